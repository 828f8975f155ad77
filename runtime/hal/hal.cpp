//===- runtime/hal/hal.cpp - Shared checks and spellings of the HAL -------===//
//
// The argument checks every driver runs before touching the vendor API live
// here once, so the messages are the same on CUDA and Vulkan.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/device.h"
#include "runtime/hal/driver.h"
#include "runtime/hal/executable.h"
#include "runtime/hal/timer.h"

#include <cinttypes>
#include <cstdio>

namespace kb::hal {

const char *toString(MemoryType type) {
  switch (type) {
  case MemoryType::DeviceLocal:
    return "device-local";
  case MemoryType::HostVisible:
    return "host-visible";
  }
  return "?";
}

const char *toString(ExecutableFormat format) {
  switch (format) {
  case ExecutableFormat::Ptx:
    return "ptx";
  case ExecutableFormat::Cubin:
    return "cubin";
  case ExecutableFormat::Spirv:
    return "spirv";
  }
  return "?";
}

std::string formatUuid(const uint8_t (&bytes)[16]) {
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      text += '-';
    text += kHex[bytes[i] >> 4];
    text += kHex[bytes[i] & 15];
  }
  return text;
}

const char *toString(DeviceType type) {
  switch (type) {
  case DeviceType::DiscreteGpu:
    return "discrete GPU";
  case DeviceType::IntegratedGpu:
    return "integrated GPU";
  case DeviceType::VirtualGpu:
    return "virtual GPU";
  case DeviceType::Cpu:
    return "CPU";
  case DeviceType::Other:
    return "other";
  }
  return "?";
}

uint32_t preferredDeviceIndex(const std::vector<DeviceProperties> &devices) {
  for (DeviceType wanted : {DeviceType::DiscreteGpu, DeviceType::IntegratedGpu,
                            DeviceType::VirtualGpu})
    for (size_t i = 0; i < devices.size(); ++i)
      if (devices[i].type == wanted)
        return static_cast<uint32_t>(i);
  return 0;
}

static std::string dims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

Status Buffer::checkRange(uint64_t offset, uint64_t length,
                          const char *what) const {
  if (offset > size_ || length > size_ - offset)
    return outOfRange(std::string(what) + ": range [" + std::to_string(offset) +
                      ", " + std::to_string(offset + length) +
                      ") exceeds the buffer size " + std::to_string(size_));
  return okStatus();
}

Status Timer::checkSlot(uint32_t slot) const {
  if (slot >= slotCount_)
    return outOfRange("timestamp slot " + std::to_string(slot) +
                      " is out of range: the timer has " +
                      std::to_string(slotCount_) + " slots");
  return okStatus();
}

uint64_t timestampDelta(uint64_t begin, uint64_t end, uint32_t validBits) {
  uint64_t mask =
      validBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << validBits) - 1;
  return ((end & mask) - (begin & mask)) & mask;
}

std::optional<size_t> Executable::findExport(std::string_view entry) const {
  for (size_t i = 0; i < exports_.size(); ++i)
    if (exports_[i].entry == entry)
      return i;
  return std::nullopt;
}

/// "executable `name` export i (`entry`)": the subject of every refusal below.
static std::string describeExport(std::string_view executableName,
                                  size_t exportIndex, const KernelAbi &abi) {
  return "executable `" + std::string(executableName) + "` export " +
         std::to_string(exportIndex) + " (`" + abi.entry + "`)";
}

Status checkExportFitsDevice(std::string_view executableName,
                             size_t exportIndex, const KernelAbi &abi,
                             const DeviceLimits &limits) {
  std::string where = describeExport(executableName, exportIndex, abi);
  const auto &wg = abi.workgroupSize;
  static const char *kAxis[] = {"x", "y", "z"};
  uint64_t invocations = 1;
  for (int i = 0; i < 3; ++i) {
    if (wg[i] == 0)
      return invalidArgument(where + ": workgroup size " + dims(wg) +
                             " has a zero dimension");
    if (wg[i] > limits.maxWorkgroupSize[i])
      return invalidArgument(where + ": workgroup size " + dims(wg) +
                             " exceeds the device limit " +
                             dims(limits.maxWorkgroupSize) + " in " + kAxis[i] +
                             "; lower the export's workgroup size");
    invocations *= wg[i];
  }
  if (invocations > limits.maxWorkgroupInvocations)
    return invalidArgument(where + ": workgroup size " + dims(wg) + " has " +
                           std::to_string(invocations) +
                           " invocations, over the device limit of " +
                           std::to_string(limits.maxWorkgroupInvocations));
  if (abi.dynamicSharedMemoryBytes > limits.maxSharedMemoryBytes)
    return invalidArgument(where + ": " +
                           std::to_string(abi.dynamicSharedMemoryBytes) +
                           " bytes of dynamic shared memory exceed the device "
                           "limit of " +
                           std::to_string(limits.maxSharedMemoryBytes));
  // Constants in a uniform block take no push-constant space (the module
  // loader bounds the block itself).
  uint32_t constantBytes = abi.uniformConstants ? 0 : pushConstantSize(abi);
  if (constantBytes > limits.maxConstantBytes)
    return invalidArgument(where + ": " + std::to_string(constantBytes) +
                           " bytes of constants exceed the device limit of " +
                           std::to_string(limits.maxConstantBytes));
  if (abi.bindings.size() > limits.maxBindings)
    return invalidArgument(where + ": " + std::to_string(abi.bindings.size()) +
                           " bindings exceed the device limit of " +
                           std::to_string(limits.maxBindings));
  if (limits.maxParameterBytes) {
    std::vector<ParamSlot> params = cudaParamLayout(abi);
    uint64_t paramBytes =
        params.empty() ? 0
                       : uint64_t(params.back().offset) + params.back().size;
    if (paramBytes > limits.maxParameterBytes)
      return invalidArgument(where + ": " + std::to_string(paramBytes) +
                             " bytes of kernel parameters (8 per binding, "
                             "then the constants) exceed the device limit of " +
                             std::to_string(limits.maxParameterBytes));
  }
  return okStatus();
}

Status checkSubgroupSize(std::string_view executableName, size_t exportIndex,
                         const KernelAbi &abi, const DeviceProperties &device) {
  if (abi.subgroupSize == 0)
    return okStatus();
  std::string subject = describeExport(executableName, exportIndex, abi);
  if (abi.fullSubgroups && abi.workgroupSize[0] % abi.subgroupSize != 0)
    return invalidArgument(
        subject + ": full subgroups of " + std::to_string(abi.subgroupSize) +
        " need a workgroup size x that is a multiple of it; found " +
        std::to_string(abi.workgroupSize[0]));
  std::string where = subject + " requires subgroup size " +
                      std::to_string(abi.subgroupSize) +
                      (abi.fullSubgroups ? " with full subgroups" : "");
  std::string who = device.driver + ":" + std::to_string(device.index) + " (" +
                    device.name + ")";
  if (device.minSubgroupSize == 0)
    return unavailable(
        where + ", but " + who +
        " cannot be asked for a subgroup size (no Vulkan 1.3 "
        "subgroupSizeControl for compute); its subgroup size is " +
        std::to_string(device.subgroupSize));
  if (abi.subgroupSize < device.minSubgroupSize ||
      abi.subgroupSize > device.maxSubgroupSize)
    return unavailable(where + ", but " + who + " supports " +
                       std::to_string(device.minSubgroupSize) + " to " +
                       std::to_string(device.maxSubgroupSize));
  if (abi.fullSubgroups && !device.fullSubgroups)
    return unavailable(where + ", but " + who +
                       " cannot guarantee full subgroups "
                       "(computeFullSubgroups is not supported)");
  return okStatus();
}

std::string describeDispatch(const DispatchParams &params) {
  if (!params.label.empty())
    return "dispatch " + params.label;
  std::string s = "dispatch";
  if (params.executable) {
    s += " of `" + params.executable->name() + "` export " +
         std::to_string(params.exportIndex);
    if (params.exportIndex < params.executable->exportCount())
      s +=
          " (`" + params.executable->exportAbi(params.exportIndex).entry + "`)";
  }
  return s;
}

Status checkDispatchParams(const DispatchParams &params,
                           const DeviceLimits &limits) {
  std::string what = describeDispatch(params);
  if (!params.executable)
    return invalidArgument(what + ": no executable");
  const Executable &exe = *params.executable;
  if (params.exportIndex >= exe.exportCount())
    return outOfRange(what + ": export index " +
                      std::to_string(params.exportIndex) + " but `" +
                      exe.name() + "` has " +
                      std::to_string(exe.exportCount()) + " exports");
  const KernelAbi &abi = exe.exportAbi(params.exportIndex);
  if (params.bindings.size() != abi.bindings.size())
    return invalidArgument(
        what + ": expected " + std::to_string(abi.bindings.size()) +
        " bindings, got " + std::to_string(params.bindings.size()));
  for (size_t i = 0; i < params.bindings.size(); ++i) {
    const BindingRef &ref = params.bindings[i];
    std::string b = what + ": " + describeBinding(abi, i);
    if (!ref.buffer)
      return invalidArgument(b + ": no buffer bound");
    uint64_t size = ref.buffer->size();
    uint64_t length =
        ref.length ? ref.length : size - std::min(size, ref.offset);
    if (ref.offset > size || length > size - ref.offset)
      return outOfRange(b + ": range [" + std::to_string(ref.offset) + ", " +
                        std::to_string(ref.offset + length) +
                        ") exceeds the buffer size " + std::to_string(size));
    if (length == 0)
      return invalidArgument(b + ": empty range at offset " +
                             std::to_string(ref.offset));
    if (limits.minBindingOffsetAlignment > 1 &&
        ref.offset % limits.minBindingOffsetAlignment != 0)
      return invalidArgument(
          b + ": offset " + std::to_string(ref.offset) +
          " is not a multiple of the device's binding offset alignment " +
          std::to_string(limits.minBindingOffsetAlignment));
    if (length > limits.maxBindingRange)
      return invalidArgument(b + ": range of " + std::to_string(length) +
                             " bytes exceeds the device limit of " +
                             std::to_string(limits.maxBindingRange));
  }
  uint32_t expected = pushConstantSize(abi);
  if (params.constants.size() != expected)
    return invalidArgument(
        what + ": expected " + std::to_string(expected) +
        " bytes of constants (" + std::to_string(abi.constants.size()) +
        " constants), got " + std::to_string(params.constants.size()));
  static const char *kAxis[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (params.workgroupCount[i] == 0)
      return invalidArgument(what + ": workgroup count " +
                             dims(params.workgroupCount) +
                             " has a zero dimension");
    if (params.workgroupCount[i] > limits.maxWorkgroupCount[i])
      return invalidArgument(
          what + ": workgroup count " + dims(params.workgroupCount) +
          " exceeds the device limit " + dims(limits.maxWorkgroupCount) +
          " in " + kAxis[i]);
  }
  return checkExportFitsDevice(exe.name(), params.exportIndex, abi, limits)
      .withContext(what);
}

Status checkFillParams(const Buffer &buffer, uint64_t offset, uint64_t length) {
  if (offset % 4 != 0 || length % 4 != 0)
    return invalidArgument("fill: offset " + std::to_string(offset) +
                           " and length " + std::to_string(length) +
                           " must be multiples of 4");
  uint64_t size = buffer.size();
  uint64_t n = length ? length : size - std::min(size, offset);
  if (offset > size || n > size - offset)
    return outOfRange("fill: range [" + std::to_string(offset) + ", " +
                      std::to_string(offset + n) +
                      ") exceeds the buffer size " + std::to_string(size));
  return okStatus();
}

Status checkCopyParams(const Buffer &source, uint64_t sourceOffset,
                       const Buffer &target, uint64_t targetOffset,
                       uint64_t length) {
  if (sourceOffset % 4 || targetOffset % 4 || length % 4)
    return invalidArgument("copy: offsets and length must be multiples of 4 "
                           "(got source offset " +
                           std::to_string(sourceOffset) + ", target offset " +
                           std::to_string(targetOffset) + ", length " +
                           std::to_string(length) + ")");
  if (length == 0)
    return invalidArgument("copy: length is 0");
  if (sourceOffset > source.size() || length > source.size() - sourceOffset)
    return outOfRange("copy: source range [" + std::to_string(sourceOffset) +
                      ", " + std::to_string(sourceOffset + length) +
                      ") exceeds the buffer size " +
                      std::to_string(source.size()));
  if (targetOffset > target.size() || length > target.size() - targetOffset)
    return outOfRange("copy: target range [" + std::to_string(targetOffset) +
                      ", " + std::to_string(targetOffset + length) +
                      ") exceeds the buffer size " +
                      std::to_string(target.size()));
  if (&source == &target && sourceOffset < targetOffset + length &&
      targetOffset < sourceOffset + length)
    return invalidArgument("copy: source and target ranges overlap");
  return okStatus();
}

} // namespace kb::hal

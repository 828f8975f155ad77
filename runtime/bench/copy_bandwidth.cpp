//===- runtime/bench/copy_bandwidth.cpp - The measured peak ---------------===//
#include "runtime/bench/copy_bandwidth.h"

#include "runtime/bench/peak_cache.h"
#include "runtime/bench/statistics.h"
#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/timer.h"

#include <algorithm>
#include <cstring>

namespace kb::bench {

namespace {
constexpr uint64_t kGpuProbeBytes = uint64_t(2) << 30;
constexpr uint64_t kCpuProbeBytes = uint64_t(32) << 20;
constexpr uint32_t kElementBytes = 16; // one float4 / vec4
constexpr uint32_t kWorkgroupSize = 256;
/// Every Vulkan device takes this many workgroups in x: the cap when the
/// device reports no limit; the grid-stride loop covers the rest. Where the
/// limit allows, one element per invocation: on an H200 a 65535-workgroup
/// grid-stride copy reached 97 % of what one float4 per invocation does, so
/// the "peak" was below the copies it was meant to bound.
constexpr uint32_t kMaxWorkgroupsUnknown = 65535;
constexpr int kWarmupRuns = 1;
constexpr int kSamples = 9;
/// What the source holds (1.0f), checked in the target after timing.
constexpr uint32_t kPattern = 0x3f800000;

/// The probe's buffers, kernel and recorded sample.
struct Probe {
  uint64_t bytes = 0;
  std::shared_ptr<hal::Buffer> source, target, flush;
  std::shared_ptr<hal::Executable> copy;
  std::shared_ptr<hal::Timer> timer;
  std::unique_ptr<hal::CommandBuffer> commands;
};

hal::DispatchParams copyDispatch(const Probe &probe,
                                 const hal::DeviceLimits &limits) {
  uint32_t count = static_cast<uint32_t>(probe.bytes / kElementBytes);
  uint32_t cap = limits.maxWorkgroupCount[0] ? limits.maxWorkgroupCount[0]
                                             : kMaxWorkgroupsUnknown;
  uint32_t workgroups = static_cast<uint32_t>(std::min<uint64_t>(
      (uint64_t(count) + kWorkgroupSize - 1) / kWorkgroupSize, cap));
  hal::DispatchParams params;
  params.executable = probe.copy.get();
  params.workgroupCount = {std::max(workgroups, 1u), 1, 1};
  params.bindings = {{probe.source.get(), 0, 0}, {probe.target.get(), 0, 0}};
  params.constants.resize(4);
  std::memcpy(params.constants.data(), &count, 4);
  params.label = "copy-bandwidth probe (kb_copy_vec4)";
  return params;
}

/// Allocates, fills the source and records one sample: flush, then the
/// copy between two timestamps, so only the copy is timed and it finds
/// nothing of its buffers in the L2.
StatusOr<Probe> prepareProbe(hal::Device &device, const L2Size &l2) {
  Probe p;
  p.bytes = copyProbeBytes(device.properties());
  if (p.bytes == 0)
    return failedPrecondition("no memory for the copy-bandwidth probe");
  KB_ASSIGN_OR_RETURN(hal::ExecutableSpec spec, copyVec4Spec(device));
  KB_ASSIGN_OR_RETURN(p.copy, device.createExecutable(spec));
  KB_ASSIGN_OR_RETURN(
      p.source, device.allocateBuffer(p.bytes, hal::MemoryType::DeviceLocal));
  KB_ASSIGN_OR_RETURN(
      p.target, device.allocateBuffer(p.bytes, hal::MemoryType::DeviceLocal));
  KB_ASSIGN_OR_RETURN(p.flush, allocateFlushBuffer(device, l2));
  KB_ASSIGN_OR_RETURN(p.timer, device.createTimer(2));
  KB_ASSIGN_OR_RETURN(auto fill, device.createCommandBuffer());
  KB_RETURN_IF_ERROR(fill->fillBuffer(*p.source, 0, 0, kPattern));
  KB_RETURN_IF_ERROR(fill->submitAndWait());
  KB_ASSIGN_OR_RETURN(p.commands, device.createCommandBuffer());
  hal::CommandBuffer &c = *p.commands;
  KB_RETURN_IF_ERROR(recordFlush(c, p.flush.get()));
  KB_RETURN_IF_ERROR(c.writeTimestamp(*p.timer, 0));
  KB_RETURN_IF_ERROR(c.dispatch(copyDispatch(p, device.properties().limits)));
  KB_RETURN_IF_ERROR(c.writeTimestamp(*p.timer, 1));
  return p;
}

/// A copy that copied nothing would report any bandwidth at all: the
/// first and last elements of the target must hold the source's pattern.
Status checkCopied(const Probe &p) {
  uint32_t words[8];
  KB_RETURN_IF_ERROR(p.target->download(0, words, 16));
  KB_RETURN_IF_ERROR(p.target->download(p.bytes - 16, words + 4, 16));
  for (uint32_t word : words)
    if (word != kPattern)
      return internalError("copy-bandwidth probe: the copy kernel did not "
                           "copy its source (a target word reads " +
                           std::to_string(word) + ", expected " +
                           std::to_string(kPattern) + ")");
  return okStatus();
}
} // namespace

std::string deviceIdentity(const hal::DeviceProperties &d) {
  std::string key =
      d.driver + "|" + d.name + "|" + d.driverVersion + "|" + d.apiVersion;
  // One record per line, fields split by tabs: keep both out of the key.
  std::replace(key.begin(), key.end(), '\n', ' ');
  std::replace(key.begin(), key.end(), '\t', ' ');
  return key;
}

std::string peakCacheKey(const hal::DeviceProperties &device) {
  return deviceIdentity(device) + "|copy probe v" +
         std::to_string(kCopyProbeVersion);
}

uint64_t copyProbeBytes(const hal::DeviceProperties &device) {
  uint64_t bytes =
      device.type == hal::DeviceType::Cpu ? kCpuProbeBytes : kGpuProbeBytes;
  const hal::DeviceLimits &limits = device.limits;
  if (limits.maxAllocationBytes)
    bytes = std::min(bytes, limits.maxAllocationBytes);
  if (limits.maxBindingRange)
    bytes = std::min(bytes, limits.maxBindingRange);
  // Two buffers in a quarter of the memory leave room for the flush buffer
  // and whatever else the device holds.
  if (device.memoryBytes)
    bytes = std::min(bytes, device.memoryBytes / 8);
  return bytes / kElementBytes * kElementBytes;
}

KernelAbi copyVec4Abi() {
  KernelAbi abi;
  abi.entry = "kb_copy_vec4";
  abi.bindings = {{"source", ElementType::F32, Access::ReadOnly},
                  {"target", ElementType::F32, Access::WriteOnly}};
  abi.constants = {{"count", ScalarType::U32}};
  abi.workgroupSize = {kWorkgroupSize, 1, 1};
  return abi;
}

std::string_view copyVec4Spirv() {
  static const uint32_t kWords[] = {
#include "runtime/bench/kernels/copy_vec4.spv.inc"
  };
  return std::string_view(reinterpret_cast<const char *>(kWords),
                          sizeof(kWords));
}

StatusOr<hal::ExecutableSpec> probeKernelSpec(const hal::Device &device,
                                              const KernelAbi &abi,
                                              std::string_view ptx,
                                              std::string_view spirv) {
  hal::ExecutableSpec spec;
  spec.name = abi.entry;
  spec.exports = {abi};
  if (device.supportsFormat(hal::ExecutableFormat::Ptx)) {
    spec.format = hal::ExecutableFormat::Ptx;
    spec.target = "sm_75";
    spec.data = ptx;
  } else if (device.supportsFormat(hal::ExecutableFormat::Spirv)) {
    spec.format = hal::ExecutableFormat::Spirv;
    spec.target = "vulkan1.0";
    spec.data = spirv;
  } else {
    return unimplemented(abi.entry + " probe: " + device.properties().name +
                         " loads neither PTX nor SPIR-V");
  }
  return spec;
}

StatusOr<hal::ExecutableSpec> copyVec4Spec(const hal::Device &device) {
  return probeKernelSpec(device, copyVec4Abi(), copyVec4Ptx(), copyVec4Spirv());
}

StatusOr<double> measureCopyBandwidth(hal::Device &device, const L2Size &l2) {
  KB_ASSIGN_OR_RETURN(Probe probe, prepareProbe(device, l2));
  std::vector<double> times;
  for (int i = 0; i < kWarmupRuns + kSamples; ++i) {
    KB_RETURN_IF_ERROR(probe.commands->submitAndWait());
    KB_ASSIGN_OR_RETURN(double ns, probe.timer->elapsedNs(0, 1));
    if (i >= kWarmupRuns)
      times.push_back(ns);
  }
  KB_RETURN_IF_ERROR(checkCopied(probe));
  double median = summarize(times).median;
  if (median <= 0)
    return internalError("copy-bandwidth probe: the device timestamps "
                         "measured no time");
  return 2.0 * double(probe.bytes) / (median * 1e-9);
}

StatusOr<PeakBandwidth> peakCopyBandwidth(hal::Device &device, const L2Size &l2,
                                          const std::string &cacheFile) {
  KB_ASSIGN_OR_RETURN(
      CachedPeak peak,
      cachedPeak(cacheFile, peakCacheKey(device.properties()),
                 [&] { return measureCopyBandwidth(device, l2); }));
  return PeakBandwidth{peak.value, peak.cached};
}

} // namespace kb::bench

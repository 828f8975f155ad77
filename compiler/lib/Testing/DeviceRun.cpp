//===- DeviceRun.cpp - one dispatch of a generated binary on a HAL device -===//
#include "DeviceRun.h"

#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/device.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace kb::differential {

/// The constant block: each constant's low |size| bytes at its offset
/// (little-endian, so a 32-bit constant is the low half of its bits).
static std::vector<uint8_t> packConstants(const KernelAbi &abi,
                                          const std::vector<uint64_t> &bits) {
  std::vector<uint8_t> block(pushConstantSize(abi), 0);
  std::vector<ParamSlot> slots = pushConstantLayout(abi);
  for (size_t i = 0; i < slots.size() && i < bits.size(); ++i)
    std::memcpy(block.data() + slots[i].offset, &bits[i], slots[i].size);
  return block;
}

Status runOnDevice(hal::Device &device, const hal::ExecutableSpec &spec,
                   const KernelAbi &abi, const std::vector<uint64_t> &constants,
                   std::array<uint32_t, 3> workgroupCount,
                   std::vector<std::vector<uint8_t>> &buffers) {
  KB_ASSIGN_OR_RETURN(std::shared_ptr<hal::Executable> executable,
                      device.createExecutable(spec));
  std::vector<std::shared_ptr<hal::Buffer>> deviceBuffers;
  hal::DispatchParams params;
  params.executable = executable.get();
  params.workgroupCount = workgroupCount;
  params.constants = packConstants(abi, constants);
  params.label = spec.name;
  for (std::vector<uint8_t> &contents : buffers) {
    // A zero-sized binding still needs a buffer to bind.
    uint64_t size = std::max<uint64_t>(contents.size(), 16);
    KB_ASSIGN_OR_RETURN(
        std::shared_ptr<hal::Buffer> buffer,
        device.allocateBuffer(size, hal::MemoryType::DeviceLocal));
    if (!contents.empty())
      KB_RETURN_IF_ERROR(buffer->upload(0, contents.data(), contents.size()));
    params.bindings.push_back({buffer.get(), 0, size});
    deviceBuffers.push_back(std::move(buffer));
  }
  KB_ASSIGN_OR_RETURN(std::unique_ptr<hal::CommandBuffer> commands,
                      device.createCommandBuffer());
  KB_RETURN_IF_ERROR(commands->dispatch(params));
  KB_RETURN_IF_ERROR(commands->submitAndWait());
  for (size_t i = 0; i < buffers.size(); ++i)
    if (!buffers[i].empty())
      KB_RETURN_IF_ERROR(
          deviceBuffers[i]->download(0, buffers[i].data(), buffers[i].size()));
  return okStatus();
}

} // namespace kb::differential

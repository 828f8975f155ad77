//===- runtime/hal/drivers/vulkan/vulkan_command_buffer.cpp ---------------===//
//
// Records straight into a VkCommandBuffer. Each dispatch gets its own
// descriptor set (set 0, binding i = storage buffer i, and the uniform block
// of constants where the kernel takes them so, in a slice of a host-visible
// buffer written at record time) from pools owned by the command buffer, so
// re-submission replays exactly what was recorded.
// The timestamp queries it writes are reset by a second command buffer, the
// prologue, submitted just before it in the same batch on every submission:
// query commands on one queue run in submission order, so each reset lands
// before its write, and none lies between two timestamps.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include <algorithm>

namespace kb::hal::vulkan {

namespace {
constexpr uint32_t kSetsPerPool = 64;
constexpr uint32_t kDescriptorsPerPool = 512;
// Dispatch constants in uniform buffers: slices of chunks this large, each
// slice at an offset aligned to 256 bytes, the largest
// minUniformBufferOffsetAlignment Vulkan allows (so any device accepts it).
constexpr uint64_t kUniformChunkBytes = 64 << 10;
constexpr uint64_t kUniformSliceAlignment = 256;
constexpr VkPipelineStageFlags kStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
} // namespace

StatusOr<std::unique_ptr<CommandBuffer>>
VulkanCommandBuffer::create(VulkanDevice &device) {
  std::unique_ptr<VulkanCommandBuffer> cb(new VulkanCommandBuffer(device));
  const DeviceSymbols &s = device.syms();
  VkCommandBufferAllocateInfo alloc{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = device.commandPool();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  KB_VK_RETURN_IF_ERROR(
      s.vkAllocateCommandBuffers(device.handle(), &alloc, &cb->commandBuffer_),
      "vkAllocateCommandBuffers");
  KB_VK_RETURN_IF_ERROR(
      s.vkAllocateCommandBuffers(device.handle(), &alloc, &cb->prologue_),
      "vkAllocateCommandBuffers (timestamp reset prologue)");
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  KB_VK_RETURN_IF_ERROR(
      s.vkCreateFence(device.handle(), &fence, nullptr, &cb->fence_),
      "vkCreateFence");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  KB_VK_RETURN_IF_ERROR(s.vkBeginCommandBuffer(cb->commandBuffer_, &begin),
                        "vkBeginCommandBuffer");
  device.recordVisibilityBarrier(cb->commandBuffer_);
  return std::unique_ptr<CommandBuffer>(std::move(cb));
}

VulkanCommandBuffer::~VulkanCommandBuffer() {
  if (device_.lost()) {
    // The submission may still be executing: its command buffer, fence,
    // descriptor sets and every buffer and pipeline it uses stay.
    leakRetained();
    for (std::unique_ptr<VulkanBuffer> &chunk : uniformChunks_)
      (void)chunk.release();
    return;
  }
  const DeviceSymbols &s = device_.syms();
  if (fence_)
    s.vkDestroyFence(device_.handle(), fence_, nullptr);
  if (commandBuffer_)
    s.vkFreeCommandBuffers(device_.handle(), device_.commandPool(), 1,
                           &commandBuffer_);
  if (prologue_)
    s.vkFreeCommandBuffers(device_.handle(), device_.commandPool(), 1,
                           &prologue_);
  destroyPools();
}

void VulkanCommandBuffer::destroyPools() {
  for (VkDescriptorPool pool : pools_)
    device_.syms().vkDestroyDescriptorPool(device_.handle(), pool, nullptr);
  pools_.clear();
  setsLeftInPool_ = descriptorsLeftInPool_ = 0;
}

Status VulkanCommandBuffer::checkRecording(const char *what) const {
  if (ended_)
    return failedPrecondition(std::string(what) +
                              ": the command buffer was submitted; reset() "
                              "it before recording again");
  return okStatus();
}

StatusOr<VkDescriptorSet>
VulkanCommandBuffer::allocateSet(VkDescriptorSetLayout layout,
                                 uint32_t bindings) {
  const DeviceSymbols &s = device_.syms();
  if (setsLeftInPool_ == 0 || descriptorsLeftInPool_ < bindings) {
    // A set holds at most one uniform buffer (the constants): one per set.
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         std::max(kDescriptorsPerPool, bindings)},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool}};
    VkDescriptorPoolCreateInfo info{
        VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    KB_VK_RETURN_IF_ERROR(
        s.vkCreateDescriptorPool(device_.handle(), &info, nullptr, &pool),
        "vkCreateDescriptorPool");
    pools_.push_back(pool);
    setsLeftInPool_ = kSetsPerPool;
    descriptorsLeftInPool_ = sizes[0].descriptorCount;
  }
  VkDescriptorSetAllocateInfo alloc{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pools_.back();
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  KB_VK_RETURN_IF_ERROR(
      s.vkAllocateDescriptorSets(device_.handle(), &alloc, &set),
      "vkAllocateDescriptorSets");
  --setsLeftInPool_;
  descriptorsLeftInPool_ -= bindings;
  return set;
}

Status VulkanCommandBuffer::dispatch(const DispatchParams &params) {
  KB_RETURN_IF_ERROR(checkRecording("dispatch"));
  KB_RETURN_IF_ERROR(checkDispatchParams(params, device_.properties().limits));
  const auto *exe = dynamic_cast<const VulkanExecutable *>(params.executable);
  if (!exe)
    return invalidArgument(
        describeDispatch(params) +
        ": the executable was not created by a Vulkan device");
  for (size_t i = 0; i < params.bindings.size(); ++i)
    if (!dynamic_cast<const VulkanBuffer *>(params.bindings[i].buffer))
      return invalidArgument(describeDispatch(params) + ": binding " +
                             std::to_string(i) +
                             " is not a buffer of a Vulkan device");
  KB_RETURN_IF_ERROR(retain(*exe, "dispatch"));
  for (const BindingRef &ref : params.bindings)
    KB_RETURN_IF_ERROR(retain(*ref.buffer, "dispatch binding"));
  const VulkanExecutable::ExportPipeline &p = exe->pipeline(params.exportIndex);
  const DeviceSymbols &s = device_.syms();
  uint32_t bindingCount = static_cast<uint32_t>(params.bindings.size());

  if (bindingCount || p.uniformBinding) {
    KB_ASSIGN_OR_RETURN(VkDescriptorSet set,
                        allocateSet(p.setLayout, bindingCount));
    KB_RETURN_IF_ERROR(writeDescriptors(params, p, set));
    s.vkCmdBindDescriptorSets(commandBuffer_, VK_PIPELINE_BIND_POINT_COMPUTE,
                              p.layout, 0, 1, &set, 0, nullptr);
  }
  s.vkCmdBindPipeline(commandBuffer_, VK_PIPELINE_BIND_POINT_COMPUTE,
                      p.pipeline);
  if (p.pushConstantBytes) {
    std::vector<uint8_t> block(p.pushConstantBytes, 0);
    std::copy(params.constants.begin(), params.constants.end(), block.begin());
    s.vkCmdPushConstants(commandBuffer_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT,
                         0, p.pushConstantBytes, block.data());
  }
  s.vkCmdDispatch(commandBuffer_, params.workgroupCount[0],
                  params.workgroupCount[1], params.workgroupCount[2]);
  labels_.push_back(describeDispatch(params));
  return okStatus();
}

StatusOr<VkDescriptorBufferInfo>
VulkanCommandBuffer::uniformSlice(const DispatchParams &params) {
  const KernelAbi &abi = params.executable->exportAbi(params.exportIndex);
  std::vector<uint8_t> bytes = packUniformConstants(abi, params.constants);
  if (bytes.empty())
    return invalidArgument(describeDispatch(params) +
                           ": its constants do not fit the kernel's uniform "
                           "block (" +
                           describeUniformConstants(abi) + ")");
  uint64_t offset = (uniformChunkUsed_ + kUniformSliceAlignment - 1) /
                    kUniformSliceAlignment * kUniformSliceAlignment;
  if (uniformChunks_.empty() || offset + bytes.size() > kUniformChunkBytes) {
    KB_ASSIGN_OR_RETURN(
        std::unique_ptr<VulkanBuffer> chunk,
        VulkanBuffer::create(
            device_, std::max<uint64_t>(kUniformChunkBytes, bytes.size()),
            MemoryType::DeviceLocal, MemoryUse::Uniform));
    uniformChunks_.push_back(std::move(chunk));
    offset = 0;
  }
  VulkanBuffer &chunk = *uniformChunks_.back();
  KB_RETURN_IF_ERROR(chunk.upload(offset, bytes.data(), bytes.size()));
  uniformChunkUsed_ = offset + bytes.size();
  return VkDescriptorBufferInfo{chunk.handle(), offset, bytes.size()};
}

Status
VulkanCommandBuffer::writeDescriptors(const DispatchParams &params,
                                      const VulkanExecutable::ExportPipeline &p,
                                      VkDescriptorSet set) {
  uint32_t bindingCount = static_cast<uint32_t>(params.bindings.size());
  std::vector<VkDescriptorBufferInfo> infos(bindingCount);
  std::vector<VkWriteDescriptorSet> writes(bindingCount);
  for (uint32_t i = 0; i < bindingCount; ++i) {
    const BindingRef &ref = params.bindings[i];
    const auto *buffer = static_cast<const VulkanBuffer *>(ref.buffer);
    infos[i] = {buffer->handle(), ref.offset,
                ref.length ? ref.length : VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  VkDescriptorBufferInfo uniform{};
  if (p.uniformBinding) {
    KB_ASSIGN_OR_RETURN(uniform, uniformSlice(params));
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = *p.uniformBinding;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    write.pBufferInfo = &uniform;
    writes.push_back(write);
  }
  device_.syms().vkUpdateDescriptorSets(device_.handle(),
                                        static_cast<uint32_t>(writes.size()),
                                        writes.data(), 0, nullptr);
  return okStatus();
}

Status VulkanCommandBuffer::barrier() {
  KB_RETURN_IF_ERROR(checkRecording("barrier"));
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  device_.syms().vkCmdPipelineBarrier(commandBuffer_, kStages, kStages, 0, 1,
                                      &b, 0, nullptr, 0, nullptr);
  return okStatus();
}

Status VulkanCommandBuffer::fillBuffer(Buffer &buffer, uint64_t offset,
                                       uint64_t length, uint32_t pattern) {
  KB_RETURN_IF_ERROR(checkRecording("fill"));
  KB_RETURN_IF_ERROR(checkFillParams(buffer, offset, length));
  auto *vk = dynamic_cast<VulkanBuffer *>(&buffer);
  if (!vk)
    return invalidArgument("fill: not a buffer of a Vulkan device");
  KB_RETURN_IF_ERROR(retain(buffer, "fill"));
  uint64_t n = length ? length : vk->allocatedSize() - offset;
  device_.syms().vkCmdFillBuffer(commandBuffer_, vk->handle(), offset, n,
                                 pattern);
  return okStatus();
}

Status VulkanCommandBuffer::copyBuffer(Buffer &source, uint64_t sourceOffset,
                                       Buffer &target, uint64_t targetOffset,
                                       uint64_t length) {
  KB_RETURN_IF_ERROR(checkRecording("copy"));
  KB_RETURN_IF_ERROR(
      checkCopyParams(source, sourceOffset, target, targetOffset, length));
  auto *src = dynamic_cast<VulkanBuffer *>(&source);
  auto *dst = dynamic_cast<VulkanBuffer *>(&target);
  if (!src || !dst)
    return invalidArgument("copy: not a buffer of a Vulkan device");
  KB_RETURN_IF_ERROR(retain(source, "copy source"));
  KB_RETURN_IF_ERROR(retain(target, "copy target"));
  VkBufferCopy region{sourceOffset, targetOffset, length};
  device_.syms().vkCmdCopyBuffer(commandBuffer_, src->handle(), dst->handle(),
                                 1, &region);
  return okStatus();
}

Status VulkanCommandBuffer::writeTimestamp(Timer &timer, uint32_t slot) {
  KB_RETURN_IF_ERROR(checkRecording("timestamp"));
  auto *vk = dynamic_cast<VulkanTimer *>(&timer);
  if (!vk)
    return invalidArgument("timestamp: not a timer of a Vulkan device");
  if (slot >= vk->slotCount())
    return outOfRange("timestamp slot " + std::to_string(slot) +
                      " is out of range: the timer has " +
                      std::to_string(vk->slotCount()) + " slots");
  KB_RETURN_IF_ERROR(retain(timer, "timestamp"));
  const DeviceSymbols &s = device_.syms();
  std::pair<VkQueryPool, uint32_t> query{vk->pool(), slot};
  if (std::find(timedSlots_.begin(), timedSlots_.end(), query) !=
      timedSlots_.end()) {
    // Written twice in one recording: a query takes one write per reset,
    // so only this rare case keeps a reset in the command buffer itself.
    s.vkCmdResetQueryPool(commandBuffer_, vk->pool(), slot, 1);
  } else {
    timedSlots_.push_back(query);
  }
  // An execution barrier, then the write at TOP_OF_PIPE. The barrier puts
  // every earlier command in its first scope and everything after it,
  // this write included, in its second: the timestamp is taken once the
  // earlier work has finished, and later dispatches cannot start before the
  // barrier either, so a pair brackets exactly the work recorded between
  // them. A bare BOTTOM_OF_PIPE write also waits for earlier work, but
  // nothing stops the *following* dispatches from starting before it is
  // written, so a begin timestamp could land inside the region it opens.
  s.vkCmdPipelineBarrier(commandBuffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                         nullptr, 0, nullptr);
  s.vkCmdWriteTimestamp(commandBuffer_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                        vk->pool(), slot);
  return okStatus();
}

Status VulkanCommandBuffer::recordPrologue() {
  const DeviceSymbols &s = device_.syms();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  KB_VK_RETURN_IF_ERROR(s.vkBeginCommandBuffer(prologue_, &begin),
                        "vkBeginCommandBuffer (timestamp reset prologue)");
  for (const auto &[pool, slot] : timedSlots_)
    s.vkCmdResetQueryPool(prologue_, pool, slot, 1);
  KB_VK_RETURN_IF_ERROR(s.vkEndCommandBuffer(prologue_),
                        "vkEndCommandBuffer (timestamp reset prologue)");
  return okStatus();
}

Status VulkanCommandBuffer::beginLabel(const std::string &name) {
  KB_RETURN_IF_ERROR(checkRecording("beginLabel"));
  if (!device_.cmdBeginLabel())
    return unavailable("cannot label `" + name +
                       "`: " + device_.labelsMissing());
  VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
  label.pLabelName = name.c_str(); // copied by the call
  device_.cmdBeginLabel()(commandBuffer_, &label);
  ++openLabels_;
  return okStatus();
}

Status VulkanCommandBuffer::endLabel() {
  KB_RETURN_IF_ERROR(checkRecording("endLabel"));
  if (openLabels_ == 0)
    return failedPrecondition("endLabel: no label is open");
  device_.cmdEndLabel()(commandBuffer_);
  --openLabels_;
  return okStatus();
}

Status VulkanCommandBuffer::submitAndWait() {
  const DeviceSymbols &s = device_.syms();
  // A label left open would close in some later command buffer: refuse it
  // here, where the caller's mistake is still theirs.
  if (!ended_ && openLabels_ != 0)
    return failedPrecondition("submitAndWait: " + std::to_string(openLabels_) +
                              " label(s) still open; endLabel() each first");
  if (!ended_) {
    if (!timedSlots_.empty())
      KB_RETURN_IF_ERROR(recordPrologue());
    // Make shader/transfer writes visible to host reads after the fence.
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    s.vkCmdPipelineBarrier(commandBuffer_, kStages, VK_PIPELINE_STAGE_HOST_BIT,
                           0, 1, &toHost, 0, nullptr, 0, nullptr);
    KB_VK_RETURN_IF_ERROR(s.vkEndCommandBuffer(commandBuffer_),
                          "vkEndCommandBuffer");
    ended_ = true;
  }
  std::string what = "command buffer";
  if (!labels_.empty()) {
    what += " with " + std::to_string(labels_.size()) +
            " dispatch(es): " + labels_.front();
    if (labels_.size() > 1)
      what += " ... " + labels_.back();
  }
  if (timedSlots_.empty())
    return device_.submitAndWait(commandBuffer_, fence_, what);
  return device_.submitAndWait({prologue_, commandBuffer_}, fence_, what);
}

Status VulkanCommandBuffer::reset() {
  KB_RETURN_IF_ERROR(device_.checkUsable());
  const DeviceSymbols &s = device_.syms();
  KB_VK_RETURN_IF_ERROR(s.vkResetCommandBuffer(commandBuffer_, 0),
                        "vkResetCommandBuffer");
  KB_VK_RETURN_IF_ERROR(s.vkResetCommandBuffer(prologue_, 0),
                        "vkResetCommandBuffer (timestamp reset prologue)");
  timedSlots_.clear();
  destroyPools();
  uniformChunks_.clear();
  uniformChunkUsed_ = 0;
  releaseRetained(); // nothing refers to them any more
  labels_.clear();
  openLabels_ = 0;
  ended_ = false;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  KB_VK_RETURN_IF_ERROR(s.vkBeginCommandBuffer(commandBuffer_, &begin),
                        "vkBeginCommandBuffer");
  device_.recordVisibilityBarrier(commandBuffer_);
  return okStatus();
}

} // namespace kb::hal::vulkan

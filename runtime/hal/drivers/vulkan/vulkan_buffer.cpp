//===- runtime/hal/drivers/vulkan/vulkan_buffer.cpp - Storage buffers -----===//
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include <algorithm>
#include <cstring>

namespace kb::hal::vulkan {

namespace {
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT;
// Staged transfers go through a host-visible buffer of at most this size, so
// a large upload does not need a second allocation of the same size.
constexpr uint64_t kStagingChunkBytes = 64ull << 20;
} // namespace

StatusOr<std::unique_ptr<VulkanBuffer>>
VulkanBuffer::create(VulkanDevice &device, uint64_t size, MemoryType type) {
  return create(device, size, type,
                type == MemoryType::DeviceLocal ? MemoryUse::DeviceLocal
                                                : MemoryUse::Readback);
}

StatusOr<std::unique_ptr<VulkanBuffer>>
VulkanBuffer::create(VulkanDevice &device, uint64_t size, MemoryType type,
                     MemoryUse use) {
  KB_RETURN_IF_ERROR(device.checkUsable());
  if (size == 0)
    return invalidArgument("buffer allocation of 0 bytes");
  uint64_t limit = device.properties().limits.maxAllocationBytes;
  if (limit && size > limit)
    return resourceExhausted("a buffer of " + std::to_string(size) +
                             " bytes exceeds the largest "
                             "allocation " +
                             device.properties().name + " allows (" +
                             std::to_string(limit) +
                             " bytes, maxMemoryAllocationSize or the "
                             "device-local heap); use smaller buffers");
  std::unique_ptr<VulkanBuffer> buffer(new VulkanBuffer(device, size, type));
  const DeviceSymbols &s = device.syms();
  // Padded to 4 bytes so whole-buffer fills (vkCmdFillBuffer works on
  // words) cover every byte.
  buffer->allocatedSize_ = (size + 3) & ~uint64_t(3);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = buffer->allocatedSize_;
  // A dispatch's constants for a kernel that reads them from a uniform
  // block (VulkanCommandBuffer::uniformSlice).
  info.usage = use == MemoryUse::Uniform
                   ? kUsage | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
                   : kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  KB_VK_RETURN_IF_ERROR(
      s.vkCreateBuffer(device.handle(), &info, nullptr, &buffer->buffer_),
      "vkCreateBuffer of " + std::to_string(size) + " bytes");
  VkMemoryRequirements req{};
  s.vkGetBufferMemoryRequirements(device.handle(), buffer->buffer_, &req);
  KB_ASSIGN_OR_RETURN(buffer->choice_,
                      device.chooseMemory(req.memoryTypeBits, use, req.size));
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = buffer->choice_.typeIndex;
  KB_VK_RETURN_IF_ERROR(
      s.vkAllocateMemory(device.handle(), &alloc, nullptr, &buffer->memory_),
      "vkAllocateMemory of " + std::to_string(req.size) + " bytes");
  buffer->memoryBytes_ = req.size;
  device.allocated(buffer->choice_.heapIndex, req.size);
  KB_VK_RETURN_IF_ERROR(s.vkBindBufferMemory(device.handle(), buffer->buffer_,
                                             buffer->memory_, 0),
                        "vkBindBufferMemory");
  if (buffer->choice_.mapped)
    KB_VK_RETURN_IF_ERROR(s.vkMapMemory(device.handle(), buffer->memory_, 0,
                                        VK_WHOLE_SIZE, 0, &buffer->mapped_),
                          "vkMapMemory");
  return buffer;
}

VulkanBuffer::~VulkanBuffer() {
  // A lost device may still run a shader that uses this memory.
  if (device_.lost())
    return;
  const DeviceSymbols &s = device_.syms();
  if (mapped_)
    s.vkUnmapMemory(device_.handle(), memory_);
  if (buffer_)
    s.vkDestroyBuffer(device_.handle(), buffer_, nullptr);
  if (memory_) {
    s.vkFreeMemory(device_.handle(), memory_, nullptr);
    device_.freed(choice_.heapIndex, memoryBytes_);
  }
}

Status VulkanBuffer::flush(bool afterHostWrite) {
  if (!choice_.needsFlush)
    return okStatus();
  // Whole-allocation ranges: offset 0 and VK_WHOLE_SIZE satisfy the
  // nonCoherentAtomSize alignment rules.
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  range.memory = memory_;
  range.offset = 0;
  range.size = VK_WHOLE_SIZE;
  const DeviceSymbols &s = device_.syms();
  if (afterHostWrite)
    KB_VK_RETURN_IF_ERROR(
        s.vkFlushMappedMemoryRanges(device_.handle(), 1, &range),
        "vkFlushMappedMemoryRanges");
  else
    KB_VK_RETURN_IF_ERROR(
        s.vkInvalidateMappedMemoryRanges(device_.handle(), 1, &range),
        "vkInvalidateMappedMemoryRanges");
  return okStatus();
}

Status VulkanBuffer::upload(uint64_t offset, const void *data,
                            uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "upload"));
  KB_RETURN_IF_ERROR(device_.checkUsable());
  if (length == 0)
    return okStatus();
  if (!mapped_)
    return staged(offset, const_cast<void *>(data), length, /*upload=*/true);
  std::memcpy(static_cast<char *>(mapped_) + offset, data, length);
  return flush(/*afterHostWrite=*/true);
}

Status VulkanBuffer::download(uint64_t offset, void *data, uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "download"));
  KB_RETURN_IF_ERROR(device_.checkUsable());
  if (length == 0)
    return okStatus();
  if (!mapped_)
    return staged(offset, data, length, /*upload=*/false);
  KB_RETURN_IF_ERROR(flush(/*afterHostWrite=*/false));
  std::memcpy(data, static_cast<const char *>(mapped_) + offset, length);
  return okStatus();
}

Status VulkanBuffer::staged(uint64_t offset, void *data, uint64_t length,
                            bool upload) {
  KB_ASSIGN_OR_RETURN(
      auto staging,
      VulkanBuffer::create(device_, std::min(length, kStagingChunkBytes),
                           MemoryType::HostVisible,
                           upload ? MemoryUse::Upload : MemoryUse::Readback));
  const DeviceSymbols &s = device_.syms();
  char *bytes = static_cast<char *>(data);
  for (uint64_t done = 0; done < length;) {
    uint64_t n = std::min(length - done, kStagingChunkBytes);
    if (upload) {
      std::memcpy(staging->mapped_, bytes + done, n);
      KB_RETURN_IF_ERROR(staging->flush(/*afterHostWrite=*/true));
    }
    VkBufferCopy region = upload ? VkBufferCopy{0, offset + done, n}
                                 : VkBufferCopy{offset + done, 0, n};
    Status copied = device_.runOnce(
        [&](VkCommandBuffer cb) {
          s.vkCmdCopyBuffer(cb, upload ? staging->buffer_ : buffer_,
                            upload ? buffer_ : staging->buffer_, 1, &region);
          if (upload)
            return;
          VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
          s.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                                 nullptr, 0, nullptr);
        },
        upload ? "staging upload" : "staging download");
    if (!copied.ok()) {
      if (device_.lost())
        (void)staging.release(); // the copy may still read or write it
      return copied;
    }
    if (!upload) {
      KB_RETURN_IF_ERROR(staging->flush(/*afterHostWrite=*/false));
      std::memcpy(bytes + done, staging->mapped_, n);
    }
    done += n;
  }
  return okStatus();
}

} // namespace kb::hal::vulkan

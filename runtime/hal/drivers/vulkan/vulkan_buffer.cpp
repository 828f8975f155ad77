//===- runtime/hal/drivers/vulkan/vulkan_buffer.cpp - Storage buffers -----===//
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include <algorithm>
#include <cstring>

namespace kb::hal::vulkan {

namespace {
constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkMemoryPropertyFlags kHostFlags =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
// Staged transfers go through a host-visible buffer of at most this size, so
// a large upload does not need a second allocation of the same size.
constexpr uint64_t kStagingChunkBytes = 64ull << 20;
} // namespace

StatusOr<std::unique_ptr<VulkanBuffer>>
VulkanBuffer::create(VulkanDevice &device, uint64_t size, MemoryType type) {
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
  info.usage = kUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  KB_VK_RETURN_IF_ERROR(
      s.vkCreateBuffer(device.handle(), &info, nullptr, &buffer->buffer_),
      "vkCreateBuffer of " + std::to_string(size) + " bytes");
  VkMemoryRequirements req{};
  s.vkGetBufferMemoryRequirements(device.handle(), buffer->buffer_, &req);

  // Device-local memory that is also host visible (lavapipe, integrated and
  // ReBAR GPUs) is mapped directly; otherwise host access is staged.
  std::optional<uint32_t> typeIndex =
      type == MemoryType::DeviceLocal
          ? device.findMemoryType(
                req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | kHostFlags)
          : device.findMemoryType(req.memoryTypeBits, kHostFlags, kHostFlags);
  if (!typeIndex)
    return resourceExhausted(std::string("no Vulkan memory type is ") +
                             (type == MemoryType::DeviceLocal
                                  ? "device local"
                                  : "host visible and coherent") +
                             " for a storage buffer on this device");
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *typeIndex;
  KB_VK_RETURN_IF_ERROR(
      s.vkAllocateMemory(device.handle(), &alloc, nullptr, &buffer->memory_),
      "vkAllocateMemory of " + std::to_string(req.size) + " bytes");
  KB_VK_RETURN_IF_ERROR(s.vkBindBufferMemory(device.handle(), buffer->buffer_,
                                             buffer->memory_, 0),
                        "vkBindBufferMemory");
  if ((device.memoryTypeFlags(*typeIndex) & kHostFlags) == kHostFlags)
    KB_VK_RETURN_IF_ERROR(s.vkMapMemory(device.handle(), buffer->memory_, 0,
                                        VK_WHOLE_SIZE, 0, &buffer->mapped_),
                          "vkMapMemory");
  return buffer;
}

VulkanBuffer::~VulkanBuffer() {
  const DeviceSymbols &s = device_.syms();
  if (mapped_)
    s.vkUnmapMemory(device_.handle(), memory_);
  if (buffer_)
    s.vkDestroyBuffer(device_.handle(), buffer_, nullptr);
  if (memory_)
    s.vkFreeMemory(device_.handle(), memory_, nullptr);
}

Status VulkanBuffer::upload(uint64_t offset, const void *data,
                            uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "upload"));
  if (length == 0)
    return okStatus();
  if (mapped_) {
    std::memcpy(static_cast<char *>(mapped_) + offset, data, length);
    return okStatus();
  }
  KB_ASSIGN_OR_RETURN(auto staging,
                      VulkanBuffer::create(device_,
                                           std::min(length, kStagingChunkBytes),
                                           MemoryType::HostVisible));
  const DeviceSymbols &s = device_.syms();
  for (uint64_t done = 0; done < length;) {
    uint64_t n = std::min(length - done, kStagingChunkBytes);
    std::memcpy(staging->mapped_, static_cast<const char *>(data) + done, n);
    VkBufferCopy region{0, offset + done, n};
    KB_RETURN_IF_ERROR(device_.runOnce(
        [&](VkCommandBuffer cb) {
          s.vkCmdCopyBuffer(cb, staging->buffer_, buffer_, 1, &region);
        },
        "staging upload"));
    done += n;
  }
  return okStatus();
}

Status VulkanBuffer::download(uint64_t offset, void *data, uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "download"));
  if (length == 0)
    return okStatus();
  if (mapped_) {
    std::memcpy(data, static_cast<const char *>(mapped_) + offset, length);
    return okStatus();
  }
  KB_ASSIGN_OR_RETURN(auto staging,
                      VulkanBuffer::create(device_,
                                           std::min(length, kStagingChunkBytes),
                                           MemoryType::HostVisible));
  const DeviceSymbols &s = device_.syms();
  for (uint64_t done = 0; done < length;) {
    uint64_t n = std::min(length - done, kStagingChunkBytes);
    VkBufferCopy region{offset + done, 0, n};
    KB_RETURN_IF_ERROR(device_.runOnce(
        [&](VkCommandBuffer cb) {
          s.vkCmdCopyBuffer(cb, buffer_, staging->buffer_, 1, &region);
          VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
          s.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                                 nullptr, 0, nullptr);
        },
        "staging download"));
    std::memcpy(static_cast<char *>(data) + done, staging->mapped_, n);
    done += n;
  }
  return okStatus();
}

} // namespace kb::hal::vulkan

//===- runtime/hal/buffer.h - Device memory ------------------------------===//
//
// A Buffer is a range of device memory used as a storage buffer by
// dispatches. CUDA: a cuMemAlloc allocation. Vulkan: a VkBuffer with
// STORAGE|TRANSFER_SRC|TRANSFER_DST usage bound to its own VkDeviceMemory.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_BUFFER_H_
#define KB_RUNTIME_HAL_BUFFER_H_

#include "common/status.h"

#include <cstdint>
#include <memory>

namespace kb::hal {

//===----------------------------------------------------------------------===//
// Types and enums
//===----------------------------------------------------------------------===//

/// Where a buffer lives.
enum class MemoryType {
  /// Fastest memory for the device (VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  /// CUDA device memory). Host access goes through a staging copy unless the
  /// device exposes device-local memory that is also host visible (lavapipe,
  /// integrated GPUs), in which case the buffer is mapped directly.
  DeviceLocal,
  /// Memory the host can map, chosen for reading back (HOST_VISIBLE,
  /// preferably HOST_CACHED; CUDA: device memory as well, since every host
  /// transfer is a copy on the device's stream either way).
  HostVisible,
};

const char *toString(MemoryType type);

//===----------------------------------------------------------------------===//
// Buffer
//===----------------------------------------------------------------------===//

/// Shared: the caller holds the shared_ptr Device::allocateBuffer returns,
/// and every CommandBuffer that records the buffer holds another until it is
/// reset or destroyed. Must not outlive its Device. Host transfers are
/// synchronous and wait for nothing else: the caller orders them against
/// submitted command buffers (submitAndWait does). Not thread-safe.
class Buffer : public std::enable_shared_from_this<Buffer> {
public:
  virtual ~Buffer() = default;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  /// Size in bytes as requested (the allocation may be padded to 4 bytes).
  uint64_t size() const { return size_; }
  MemoryType memoryType() const { return memoryType_; }

  /// Copies |length| bytes from |data| into [offset, offset+length).
  /// OutOfRange when the range exceeds size().
  virtual Status upload(uint64_t offset, const void *data, uint64_t length) = 0;
  /// Copies [offset, offset+length) into |data|.
  virtual Status download(uint64_t offset, void *data, uint64_t length) = 0;

protected:
  Buffer(uint64_t size, MemoryType type) : size_(size), memoryType_(type) {}
  /// The range check every implementation runs first.
  Status checkRange(uint64_t offset, uint64_t length, const char *what) const;

private:
  uint64_t size_;
  MemoryType memoryType_;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_BUFFER_H_

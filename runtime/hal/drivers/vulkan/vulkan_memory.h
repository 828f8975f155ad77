//===- runtime/hal/drivers/vulkan/vulkan_memory.h - Memory type choice ----===//
//
// Which VkMemoryType a buffer gets, as a pure function of the device's
// VkPhysicalDeviceMemoryProperties, so the rules can be tested against the
// heap layouts of real GPUs on a machine that has only lavapipe:
//
//  * Device-local buffers live in DEVICE_LOCAL memory. Device-local memory
//    that is also host visible is mapped only when its heap is (one of) the
//    largest device-local heap(s): unified memory, resizable BAR, lavapipe.
//    Discrete GPUs without resizable BAR expose a ~256 MiB BAR heap of
//    DEVICE_LOCAL|HOST_VISIBLE memory that aliases VRAM: putting buffers
//    there fails past 256 MiB and reads over PCIe uncached, so such memory
//    is used (unmapped) only when no other device-local type fits.
//  * Host-visible buffers (readback) prefer HOST_CACHED: NVIDIA's first
//    HOST_VISIBLE|HOST_COHERENT type is write-combined, which the CPU reads
//    an order of magnitude slower.
//  * Upload staging prefers HOST_COHERENT system memory (write-combined is
//    fine for writes).
//  * Every allocation must fit the heap of its type: the heap's size minus
//    what this device has allocated from it already.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_MEMORY_H_
#define KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_MEMORY_H_

#include "common/status.h"

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>

namespace kb::hal::vulkan {

enum class MemoryUse {
  DeviceLocal, // storage buffers the kernels use
  Readback,    // host-visible buffers: the host reads them (and writes)
  Upload,      // staging for uploads: the host writes, the device reads
  /// A dispatch's constants for a kernel that reads them from a uniform
  /// block: written once by the host, read by every invocation of every
  /// dispatch, so device-local where the host can map it (resizable BAR,
  /// unified memory), else staged into device-local, host memory last.
  Uniform,
};

struct MemoryChoice {
  uint32_t typeIndex = 0;
  uint32_t heapIndex = 0;
  /// Host access maps the memory (else it is staged through a copy).
  bool mapped = false;
  /// Mapped but not HOST_COHERENT: flush after host writes, invalidate
  /// before host reads.
  bool needsFlush = false;
};

/// What a device has allocated so far.
struct MemoryBudget {
  /// Bytes allocated from each heap.
  std::array<uint64_t, VK_MAX_MEMORY_HEAPS> heapUsed{};
  uint32_t liveAllocations = 0;
  /// maxMemoryAllocationCount (4096 on some drivers; every buffer, staging
  /// included, is its own allocation); 0 = unlimited.
  uint32_t maxAllocations = 0;
};

/// The memory type for |size| bytes of |use| among |typeBits| (from
/// vkGetBufferMemoryRequirements). |mapDeviceLocal| false keeps device-local
/// memory unmapped even where it could be mapped (forces the staging path).
/// ResourceExhausted when the allocation count is at its limit, or, naming
/// the heaps, when no allowed type's heap has room.
StatusOr<MemoryChoice>
chooseMemoryType(const VkPhysicalDeviceMemoryProperties &memory,
                 uint32_t typeBits, MemoryUse use, uint64_t size,
                 const MemoryBudget &budget, bool mapDeviceLocal);

/// The device's memory for DeviceProperties::memoryBytes: the largest
/// DEVICE_LOCAL heap. Not the sum: a BAR heap is a window into the VRAM heap,
/// not more memory.
uint64_t deviceLocalBytes(const VkPhysicalDeviceMemoryProperties &memory);

} // namespace kb::hal::vulkan

#endif // KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_MEMORY_H_

//===- runtime/hal/drivers/vulkan/vulkan_memory.cpp - Memory type choice --===//
#include "runtime/hal/drivers/vulkan/vulkan_memory.h"

#include <algorithm>
#include <string>

namespace kb::hal::vulkan {

namespace {

constexpr VkMemoryPropertyFlags kDeviceLocal =
    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kHostVisible =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags kCoherent =
    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

const char *useName(MemoryUse use) {
  switch (use) {
  case MemoryUse::DeviceLocal:
    return "device-local";
  case MemoryUse::Readback:
    return "host-visible";
  case MemoryUse::Upload:
    return "upload staging";
  case MemoryUse::Uniform:
    return "uniform constants";
  }
  return "";
}

/// How much |use| wants a type with |flags| (higher is better; -1: not at
/// all) and whether the host maps it.
int rank(VkMemoryPropertyFlags flags, bool onLargestDeviceHeap, MemoryUse use,
         bool mapDeviceLocal, bool *mapped) {
  bool visible = flags & kHostVisible;
  switch (use) {
  case MemoryUse::DeviceLocal:
    if (!(flags & kDeviceLocal))
      return -1;
    *mapped = false;
    if (!visible)
      return 3; // VRAM proper
    if (onLargestDeviceHeap) {
      // Unified memory, resizable BAR, lavapipe: all of memory is mappable.
      *mapped = mapDeviceLocal;
      return 2;
    }
    return 1; // a BAR window into VRAM: only when nothing else fits
  case MemoryUse::Readback:
    if (!visible)
      return -1;
    *mapped = true;
    return 4 * bool(flags & kCached) + 2 * bool(flags & kCoherent) +
           !(flags & kDeviceLocal);
  case MemoryUse::Upload:
    if (!visible)
      return -1;
    *mapped = true;
    return 2 * bool(flags & kCoherent) + !(flags & kDeviceLocal);
  case MemoryUse::Uniform:
    *mapped = visible;
    if (flags & kDeviceLocal)
      return visible ? 4 + bool(flags & kCoherent) : 3;
    return visible ? 1 + bool(flags & kCoherent) : -1;
  }
  return -1;
}

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

} // namespace

uint64_t deviceLocalBytes(const VkPhysicalDeviceMemoryProperties &memory) {
  uint64_t largest = 0;
  for (uint32_t h = 0; h < memory.memoryHeapCount && h < VK_MAX_MEMORY_HEAPS;
       ++h)
    if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      largest = std::max<uint64_t>(largest, memory.memoryHeaps[h].size);
  return largest;
}

StatusOr<MemoryChoice>
chooseMemoryType(const VkPhysicalDeviceMemoryProperties &memory,
                 uint32_t typeBits, MemoryUse use, uint64_t size,
                 const MemoryBudget &budget, bool mapDeviceLocal) {
  if (budget.maxAllocations && budget.liveAllocations >= budget.maxAllocations)
    return resourceExhausted(
        "the device allows " + std::to_string(budget.maxAllocations) +
        " memory allocations at once (maxMemoryAllocationCount) and all are "
        "in use: every buffer is one; free buffers or use fewer, larger ones");
  uint64_t largest = deviceLocalBytes(memory);
  int bestRank = -1;
  uint64_t bestHeapSize = 0;
  MemoryChoice best;
  std::string full; // heaps that had a wanted type but no room
  uint32_t types =
      std::min<uint32_t>(memory.memoryTypeCount, VK_MAX_MEMORY_TYPES);
  for (uint32_t i = 0; i < types; ++i) {
    if (!(typeBits & (1u << i)))
      continue;
    const VkMemoryType &type = memory.memoryTypes[i];
    if (type.heapIndex >= memory.memoryHeapCount)
      continue;
    const VkMemoryHeap &heap = memory.memoryHeaps[type.heapIndex];
    bool largestDeviceHeap =
        (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && heap.size == largest;
    bool mapped = false;
    int r = rank(type.propertyFlags, largestDeviceHeap, use, mapDeviceLocal,
                 &mapped);
    if (r < 0)
      continue;
    uint64_t inUse = budget.heapUsed[type.heapIndex];
    if (inUse > heap.size || size > heap.size - inUse) {
      std::string entry = "heap " + std::to_string(type.heapIndex) + " (" +
                          mib(heap.size) + ", " + mib(inUse) + " in use)";
      if (full.find(entry) == std::string::npos)
        full += (full.empty() ? "" : ", ") + entry;
      continue;
    }
    if (r > bestRank || (r == bestRank && heap.size > bestHeapSize)) {
      bestRank = r;
      bestHeapSize = heap.size;
      best.typeIndex = i;
      best.heapIndex = type.heapIndex;
      best.mapped = mapped;
      best.needsFlush = mapped && !(type.propertyFlags & kCoherent);
    }
  }
  if (bestRank >= 0)
    return best;
  if (!full.empty())
    return resourceExhausted("no room for a " + std::string(useName(use)) +
                             " buffer of " + std::to_string(size) + " bytes: " +
                             full + "; free buffers or use smaller ones");
  return resourceExhausted("no Vulkan memory type of this device can hold a " +
                           std::string(useName(use)) + " storage buffer");
}

} // namespace kb::hal::vulkan

//===- runtime/hal/drivers/vulkan/vulkan_memory_test.cpp - Memory choice --===//
//
// chooseMemoryType against the heap layouts real GPUs report (taken from
// vulkaninfo of each kind of device), so the choice that matters on
// hardware is tested on a machine with only lavapipe.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/vulkan/vulkan_memory.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

namespace kb::hal::vulkan {
namespace {

constexpr VkMemoryPropertyFlags DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags HC = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags CACHED = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
constexpr uint64_t MiB = 1ull << 20, GiB = 1ull << 30;
constexpr uint32_t kAllTypes = ~0u;

VkPhysicalDeviceMemoryProperties layout(
    std::initializer_list<std::pair<uint64_t, bool>> heaps,
    std::initializer_list<std::pair<uint32_t, VkMemoryPropertyFlags>> types) {
  VkPhysicalDeviceMemoryProperties m{};
  for (auto [size, deviceLocal] : heaps)
    m.memoryHeaps[m.memoryHeapCount++] = {
        size, deviceLocal ? VkMemoryHeapFlags(VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                          : VkMemoryHeapFlags(0)};
  for (auto [heap, flags] : types)
    m.memoryTypes[m.memoryTypeCount++] = {flags, heap};
  return m;
}

/// An NVIDIA discrete GPU without resizable BAR: VRAM, system memory, and
/// the 256 MiB BAR window (DEVICE_LOCAL|HOST_VISIBLE) into VRAM.
VkPhysicalDeviceMemoryProperties nvidia() {
  return layout({{24 * GiB, true}, {32 * GiB, false}, {256 * MiB, true}},
                {{1, 0},
                 {0, DL},
                 {1, HV | HC},
                 {1, HV | HC | CACHED},
                 {2, DL | HV | HC}});
}

/// AMD (RADV) without resizable BAR: the BAR heap comes last, host types
/// list the uncached one first.
VkPhysicalDeviceMemoryProperties amd() {
  return layout(
      {{8 * GiB, true}, {16 * GiB, false}, {256 * MiB, true}},
      {{0, DL}, {1, HV | HC}, {2, DL | HV | HC}, {1, HV | HC | CACHED}});
}

/// Resizable BAR: the whole VRAM heap is mappable, no separate window.
VkPhysicalDeviceMemoryProperties resizableBar() {
  return layout(
      {{24 * GiB, true}, {32 * GiB, false}},
      {{0, DL}, {1, HV | HC}, {0, DL | HV | HC}, {1, HV | HC | CACHED}});
}

/// Unified memory (lavapipe, integrated GPUs): one heap, all of it mapped.
VkPhysicalDeviceMemoryProperties lavapipe() {
  return layout({{2 * GiB, true}}, {{0, DL | HV | HC | CACHED}});
}

MemoryChoice choose(const VkPhysicalDeviceMemoryProperties &m, MemoryUse use,
                    uint64_t size = MiB, MemoryBudget budget = {},
                    bool mapDeviceLocal = true) {
  auto c = chooseMemoryType(m, kAllTypes, use, size, budget, mapDeviceLocal);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : MemoryChoice{};
}

TEST(VulkanMemory, DeviceLocalBuffersStayOutOfTheBarWindow) {
  MemoryChoice c = choose(nvidia(), MemoryUse::DeviceLocal);
  EXPECT_EQ(c.typeIndex, 1u);
  EXPECT_EQ(c.heapIndex, 0u);
  EXPECT_FALSE(c.mapped) << "VRAM is reached through staging";
  // Larger than the BAR heap: still fits VRAM.
  c = choose(nvidia(), MemoryUse::DeviceLocal, 1 * GiB);
  EXPECT_EQ(c.heapIndex, 0u);
  c = choose(amd(), MemoryUse::DeviceLocal);
  EXPECT_EQ(c.typeIndex, 0u);
  EXPECT_FALSE(c.mapped);
}

TEST(VulkanMemory, ReadbackPrefersCachedHostMemory) {
  MemoryChoice c = choose(nvidia(), MemoryUse::Readback);
  EXPECT_EQ(c.typeIndex, 3u) << "the write-combined type reads slowly";
  EXPECT_TRUE(c.mapped);
  EXPECT_FALSE(c.needsFlush);
  EXPECT_EQ(choose(amd(), MemoryUse::Readback).typeIndex, 3u);
  EXPECT_EQ(choose(resizableBar(), MemoryUse::Readback).typeIndex, 3u);
}

TEST(VulkanMemory, NonCoherentCachedMemoryNeedsFlushes) {
  auto m = layout({{8 * GiB, true}, {16 * GiB, false}},
                  {{0, DL}, {1, HV | HC}, {1, HV | CACHED}});
  MemoryChoice c = choose(m, MemoryUse::Readback);
  EXPECT_EQ(c.typeIndex, 2u);
  EXPECT_TRUE(c.needsFlush);
  // Uploads take the coherent type.
  c = choose(m, MemoryUse::Upload);
  EXPECT_EQ(c.typeIndex, 1u);
  EXPECT_FALSE(c.needsFlush);
}

TEST(VulkanMemory, UploadStagingUsesSystemMemory) {
  MemoryChoice c = choose(nvidia(), MemoryUse::Upload);
  EXPECT_EQ(c.heapIndex, 1u);
  EXPECT_TRUE(c.mapped);
}

TEST(VulkanMemory, UniformConstantsLiveInMappableVramFirst) {
  // Read by every invocation of every dispatch: VRAM the host can write
  // (the BAR window, resizable BAR), then VRAM through staging, host memory
  // only where nothing else exists.
  MemoryChoice c = choose(nvidia(), MemoryUse::Uniform);
  EXPECT_EQ(c.typeIndex, 4u);
  EXPECT_TRUE(c.mapped);
  EXPECT_EQ(choose(resizableBar(), MemoryUse::Uniform).typeIndex, 2u);
  c = choose(
      layout({{8 * GiB, true}, {16 * GiB, false}}, {{0, DL}, {1, HV | HC}}),
      MemoryUse::Uniform);
  EXPECT_EQ(c.typeIndex, 0u);
  EXPECT_FALSE(c.mapped) << "staged into VRAM";
  c = choose(lavapipe(), MemoryUse::Uniform);
  EXPECT_EQ(c.typeIndex, 0u);
  EXPECT_TRUE(c.mapped);
}

TEST(VulkanMemory, MappableVramIsStillSecondToPlainVram) {
  // With resizable BAR plain DEVICE_LOCAL is there: it wins, unmapped.
  MemoryChoice c = choose(resizableBar(), MemoryUse::DeviceLocal);
  EXPECT_EQ(c.typeIndex, 0u);
  EXPECT_FALSE(c.mapped);
  // Unified memory has nothing else: mapped.
  c = choose(lavapipe(), MemoryUse::DeviceLocal);
  EXPECT_EQ(c.typeIndex, 0u);
  EXPECT_TRUE(c.mapped);
  // ... unless mapping is turned off (the staging path, as on a GPU).
  c = choose(lavapipe(), MemoryUse::DeviceLocal, MiB, {}, false);
  EXPECT_FALSE(c.mapped);
}

TEST(VulkanMemory, EveryAllocationMustFitItsHeap) {
  MemoryBudget budget;
  budget.heapUsed[0] = 24 * GiB - 64 * MiB; // VRAM nearly full
  // The BAR window takes it (unmapped) rather than failing.
  MemoryChoice c = choose(nvidia(), MemoryUse::DeviceLocal, 128 * MiB, budget);
  EXPECT_EQ(c.heapIndex, 2u);
  EXPECT_FALSE(c.mapped) << "a window that is not all of VRAM is never mapped";
  // Past both: ResourceExhausted naming the heaps.
  auto none = chooseMemoryType(nvidia(), kAllTypes, MemoryUse::DeviceLocal,
                               512 * MiB, budget, true);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(
      none.status().message().find("heap 0 (24576 MiB, 24512 MiB in "
                                   "use), heap 2 (256 MiB, 0 MiB in use)"),
      std::string::npos)
      << none.status().message();
  // The memory types the buffer allows are respected.
  auto excluded = chooseMemoryType(nvidia(), 1u << 4, MemoryUse::DeviceLocal,
                                   MiB, {}, true);
  ASSERT_TRUE(excluded.ok());
  EXPECT_EQ(excluded->typeIndex, 4u);
}

TEST(VulkanMemory, TheAllocationCountLimitIsConsulted) {
  MemoryBudget budget;
  budget.maxAllocations = 4096;
  budget.liveAllocations = 4096;
  auto c = chooseMemoryType(nvidia(), kAllTypes, MemoryUse::DeviceLocal, MiB,
                            budget, true);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(c.status().message().find("maxMemoryAllocationCount"),
            std::string::npos)
      << c.status().message();
  budget.liveAllocations = 4095;
  EXPECT_TRUE(chooseMemoryType(nvidia(), kAllTypes, MemoryUse::DeviceLocal, MiB,
                               budget, true)
                  .ok());
}

TEST(VulkanMemory, DeviceMemoryExcludesTheBarAlias) {
  EXPECT_EQ(deviceLocalBytes(nvidia()), 24 * GiB);
  EXPECT_EQ(deviceLocalBytes(amd()), 8 * GiB);
  EXPECT_EQ(deviceLocalBytes(lavapipe()), 2 * GiB);
}

} // namespace
} // namespace kb::hal::vulkan

//===- common/cuda_occupancy_test.cpp -------------------------------------===//
// Theoretical occupancy against NVIDIA's occupancy calculator's figures.
#include "common/cuda_occupancy.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(CudaOccupancyTest, LimitedByEachResourceInTurn) {
  // sm_90, 256 threads: 32 registers fill the SM (8 blocks x 8 warps).
  EXPECT_DOUBLE_EQ(*theoreticalOccupancy({90, 256, 32, 0}), 1.0);
  // 128 registers: 4096 per warp, 16 warps, 2 blocks.
  EXPECT_DOUBLE_EQ(*theoreticalOccupancy({90, 256, 128, 0}), 0.25);
  // 100 KiB of shared memory (+1 KiB reserved): 2 blocks in 228 KiB.
  EXPECT_DOUBLE_EQ(*theoreticalOccupancy({90, 256, 32, 100 * 1024}), 0.25);
  // Small blocks hit the 32-block limit: 32 x 1 warp of 64.
  EXPECT_DOUBLE_EQ(*theoreticalOccupancy({90, 32, 16, 0}), 0.5);
  // sm_86: 1536 threads, 16 blocks.
  EXPECT_DOUBLE_EQ(*theoreticalOccupancy({86, 256, 32, 0}), 1.0);
  // More shared memory than an SM has: not resident.
  EXPECT_DOUBLE_EQ(*theoreticalOccupancy({75, 256, 32, 80 * 1024}), 0.0);
  EXPECT_FALSE(theoreticalOccupancy({60, 256, 32, 0}));
  EXPECT_FALSE(theoreticalOccupancy({90, 0, 32, 0}));
}

} // namespace
} // namespace kb

//===- common/cuda_occupancy.cpp - Theoretical occupancy from ptxas ------===//
#include "common/cuda_occupancy.h"

#include <algorithm>

namespace kb {

namespace {

struct SmLimits {
  int sm;
  uint32_t maxThreads;    // resident threads per SM
  uint32_t maxBlocks;     // resident blocks per SM
  uint32_t sharedBytes;   // shared memory per SM usable by blocks
  uint32_t reservedBytes; // shared memory the system reserves per block
};

// NVIDIA's CUDA occupancy calculator, per compute capability.
constexpr SmLimits kLimits[] = {
    {70, 2048, 32, 96 * 1024, 0},     {72, 2048, 32, 96 * 1024, 0},
    {75, 1024, 16, 64 * 1024, 0},     {80, 2048, 32, 164 * 1024, 1024},
    {86, 1536, 16, 100 * 1024, 1024}, {87, 2048, 16, 164 * 1024, 1024},
    {89, 1536, 24, 100 * 1024, 1024}, {90, 2048, 32, 228 * 1024, 1024},
};

constexpr uint32_t kRegistersPerSm = 65536;
constexpr uint32_t kRegisterUnit =
    256; // registers are allocated per warp in these
constexpr uint32_t kSharedUnit = 128; // bytes

uint32_t roundUp(uint32_t value, uint32_t unit) {
  return (value + unit - 1) / unit * unit;
}

} // namespace

std::optional<double> theoreticalOccupancy(const OccupancyInput &in) {
  const SmLimits *limits = nullptr;
  for (const SmLimits &l : kLimits)
    if (l.sm == in.sm)
      limits = &l;
  if (!limits || in.threadsPerBlock == 0)
    return std::nullopt;
  const uint32_t warpsPerBlock = (in.threadsPerBlock + 31) / 32;
  const uint32_t maxWarps = limits->maxThreads / 32;
  uint32_t blocks = std::min(limits->maxBlocks, maxWarps / warpsPerBlock);
  if (in.registersPerThread > 0) {
    uint32_t perWarp = roundUp(in.registersPerThread * 32, kRegisterUnit);
    blocks = std::min(blocks, (kRegistersPerSm / perWarp) / warpsPerBlock);
  }
  if (in.sharedBytesPerBlock > 0) {
    uint32_t perBlock =
        roundUp(in.sharedBytesPerBlock + limits->reservedBytes, kSharedUnit);
    blocks = std::min(blocks, limits->sharedBytes / perBlock);
  }
  return static_cast<double>(blocks * warpsPerBlock) / maxWarps;
}

} // namespace kb

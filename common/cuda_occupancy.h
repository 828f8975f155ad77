//===- common/cuda_occupancy.h - Theoretical occupancy from ptxas --------===//
//
// What `kernel-bench tune` and `inspect` show next to ptxas's registers: the
// theoretical occupancy of a CUDA kernel (resident warps per SM over the SM's
// maximum), limited by the block size, the registers per thread and the shared
// memory per block, with the per-architecture limits of NVIDIA's occupancy
// calculator (sm_70 to sm_90). A planning figure, not a measurement.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_CUDA_OCCUPANCY_H_
#define KB_COMMON_CUDA_OCCUPANCY_H_

#include <cstdint>
#include <optional>

namespace kb {

struct OccupancyInput {
  int sm = 0; // 90 for sm_90
  uint32_t threadsPerBlock = 0;
  uint32_t registersPerThread = 0;
  uint32_t sharedBytesPerBlock = 0; // static + dynamic
};

/// In (0, 1]; 0 when the block cannot be resident at all (too many
/// registers or too much shared memory); none for an architecture outside
/// the table or an empty block.
std::optional<double> theoreticalOccupancy(const OccupancyInput &in);

} // namespace kb

#endif // KB_COMMON_CUDA_OCCUPANCY_H_

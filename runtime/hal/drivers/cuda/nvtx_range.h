//===- runtime/hal/drivers/cuda/nvtx_range.h - NVTX ranges ----*- C++ -*-===//
//
// The CUDA driver's command-buffer labels are NVTX ranges: host-side push and
// pop around a submission, which `ncu --nvtx --nvtx-include` and nsys match
// against the launches made inside them. NVTX is the CUDA toolkit's
// header-only nvtx3: with no profiler attached (no NVTX_INJECTION64_PATH)
// each call is a test of one pointer. A build without the toolkit's headers
// has no ranges, and says so. NVTX's own loader dlopens the tool a profiler
// names in NVTX_INJECTION64_PATH: that is NVTX's documented protocol with
// the profiler, not a library of ours, so it does not go through
// kb::DynamicLibrary.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_NVTX_RANGE_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_NVTX_RANGE_H_

#include <string>
#include <vector>

namespace kb::hal::cuda {

/// Empty when this build has NVTX; otherwise why labels are unavailable.
const char *nvtxMissing();

/// Pushes one NVTX range per name, outermost first, and pops them all when
/// destroyed: the ranges enclose whatever the holder does in between.
class NvtxRanges {
public:
  explicit NvtxRanges(const std::vector<std::string> &names);
  ~NvtxRanges();
  NvtxRanges(const NvtxRanges &) = delete;
  NvtxRanges &operator=(const NvtxRanges &) = delete;

private:
  size_t pushed_ = 0;
};

} // namespace kb::hal::cuda

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_NVTX_RANGE_H_

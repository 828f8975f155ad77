//===- runtime/bench/fma_peak.h - The measured compute peak ---------------===//
//
// A roofline has two ceilings; the copy probe (copy_bandwidth.h) measures
// the bandwidth one, this the compute one: f32 fused multiply-adds per
// second, measured by a kernel (kernels/fma_peak.*: eight independent
// chains of FMAs per thread, sixteen per chain per loop iteration, one store
// per thread at the end; PTX and SPIR-V embedded at build time) over enough
// workgroups to fill the device, timed with device timestamps, the best of
// 9 samples after 100 ms of warm-up (the clocks ramp up first; a ceiling is
// what the device reaches). Two FLOPs per FMA, as vendors count their peak.
// Cached per device identity and probe version beside the copy bandwidth
// (peak_cache.h), so it runs once per device, driver and probe.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_FMA_PEAK_H_
#define KB_RUNTIME_BENCH_FMA_PEAK_H_

#include "common/kernel_abi.h"
#include "common/status.h"
#include "runtime/hal/device.h"
#include "runtime/hal/executable.h"

#include <string>
#include <string_view>

namespace kb::bench {

/// Changes whenever the probe measures something else.
constexpr int kFmaProbeVersion = 1;

/// The cache key of |device|'s FMA peak: its identity and "|fma probe vN".
std::string fmaPeakCacheKey(const hal::DeviceProperties &device);

/// kb_fma_peak(out, a, b, iterations): PTX (sm_75) and SPIR-V (Vulkan
/// 1.0), binding `out` (f32, written), constants a, b (f32) and
/// `iterations` (u32); 256 threads a workgroup.
std::string_view fmaPeakPtx();
std::string_view fmaPeakSpirv();
KernelAbi fmaPeakAbi();

/// The workgroups and loop iterations the probe runs on |device|: enough
/// threads to fill a GPU, a few milliseconds of work on either.
struct FmaProbeSize {
  uint32_t workgroups = 0;
  uint32_t iterations = 0;
  double flops() const;
};
FmaProbeSize fmaProbeSize(const hal::DeviceProperties &device);

/// Measures |device|'s f32 FMA throughput now, in FLOP/s.
StatusOr<double> measureFmaPeak(hal::Device &device);

/// The figure for |device| cached in |cacheFile|, else measured and added
/// ("" = never cache); |cached| says which.
StatusOr<double> peakFmaThroughput(hal::Device &device,
                                   const std::string &cacheFile,
                                   bool *cached = nullptr);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_FMA_PEAK_H_

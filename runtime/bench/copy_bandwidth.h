//===- runtime/bench/copy_bandwidth.h - The measured peak for % of peak ---===//
//
// Roofline figures use a *measured* peak, not the nominal 2 x memclk x
// buswidth: a kernel (kernels/copy_vec4.*: one 16-byte load and store per
// element in a grid-stride loop, its PTX and SPIR-V embedded at build time)
// copies one buffer into another, 2 GiB each on a GPU (within the
// allocation and binding limits and an eighth of device memory; 32 MiB on a
// CPU device such as lavapipe), with the L2 flushed before every sample as
// in a cold benchmark sample (cache_flush.h), timed with device timestamps;
// the median of 9 samples after a warm-up. A kernel rather than the API
// copy, because % of peak compares kernels with what a kernel can reach (a
// copy engine is not one); buffers far beyond the L2 and the flush, because
// L2 hits would make the peak an L2 figure. The bandwidth counts bytes read
// + written. The result is cached per device identity (driver, name, driver
// and API version) and probe version in a small text file, so the probe
// runs once per device, driver and probe.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_COPY_BANDWIDTH_H_
#define KB_RUNTIME_BENCH_COPY_BANDWIDTH_H_

#include "common/kernel_abi.h"
#include "common/status.h"
#include "runtime/bench/cache_flush.h"
#include "runtime/hal/device.h"
#include "runtime/hal/executable.h"

#include <string>
#include <string_view>

namespace kb::bench {

/// Changes whenever the probe measures something else, so that a figure
/// cached by another version (such as the API copy without a flush that
/// version 1 timed, or version 2's grid-stride launch of 65535 workgroups)
/// is measured again instead of reused.
constexpr int kCopyProbeVersion = 3;

struct PeakBandwidth {
  double bytesPerS = 0;
  bool cached = false;
};

/// The identity of |device|: "driver|name|driverVersion|apiVersion".
std::string deviceIdentity(const hal::DeviceProperties &device);
/// The cache key of |device|'s peak: its identity and "|copy probe vN"
/// (N = kCopyProbeVersion).
std::string peakCacheKey(const hal::DeviceProperties &device);

/// Bytes of each of the probe's two buffers on |device|: 2 GiB on a GPU,
/// 32 MiB on a CPU device, within maxAllocationBytes, maxBindingRange and
/// an eighth of memoryBytes; a multiple of 16 (one vec4).
uint64_t copyProbeBytes(const hal::DeviceProperties &device);

/// The copy kernel kb_copy_vec4(source, target, count): PTX (sm_75, JIT
/// elsewhere) and SPIR-V (Vulkan 1.0) words, and its ABI: bindings `source`
/// (read-only) and `target` (write-only) of float4/vec4 elements, constant
/// `count` (u32 elements), 256 threads per workgroup.
std::string_view copyVec4Ptx();
std::string_view copyVec4Spirv();
KernelAbi copyVec4Abi();
/// The spec of the copy kernel in the format |device| loads (PTX where it
/// takes PTX, else SPIR-V); Unimplemented when it takes neither.
StatusOr<hal::ExecutableSpec> copyVec4Spec(const hal::Device &device);

/// A probe kernel's spec (one export, |abi|) from its embedded |ptx| (sm_75)
/// or |spirv| (Vulkan 1.0), whichever |device| loads; Unimplemented when it
/// takes neither.
StatusOr<hal::ExecutableSpec> probeKernelSpec(const hal::Device &device,
                                              const KernelAbi &abi,
                                              std::string_view ptx,
                                              std::string_view spirv);

/// Measures the copy bandwidth of |device| now, flushing |l2| before each
/// sample.
StatusOr<double> measureCopyBandwidth(hal::Device &device, const L2Size &l2);

/// The cached figure for |device| in |cacheFile|, else measured and added
/// to it ("" = never cache). A cache file that cannot be read or written
/// only costs a new measurement.
StatusOr<PeakBandwidth> peakCopyBandwidth(hal::Device &device, const L2Size &l2,
                                          const std::string &cacheFile);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_COPY_BANDWIDTH_H_

//===- runtime/hal/cts/cts_support.h - Conformance-suite helpers ----------===//
//
// Opens a driver's first device (skipping the test when the driver is
// Unavailable) and loads the conformance kernels compiled at build time:
// kernels/<name>.spv for Vulkan, kernels/cts_kernels.ptx (and the sm_90
// cubin) for CUDA. The kernel directory is $KB_CTS_KERNEL_DIR, else
// kernels/ next to the test binary, else where this build wrote them.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_CTS_CTS_SUPPORT_H_
#define KB_RUNTIME_HAL_CTS_CTS_SUPPORT_H_

#include "runtime/hal/api.h"

#include <memory>
#include <string>

namespace kb::hal::cts {

std::string kernelDir();

/// The ABI of a conformance kernel: "double_plus_one" or "constants" (and,
/// CUDA only, "fault"; Vulkan only, "spin" and "big_shared").
KernelAbi kernelAbi(const std::string &driver, const std::string &name);

/// Reads the kernel file for |driver| ("vulkan": <name>.spv; "cuda":
/// cts_kernels.ptx, or the cubin when |cubin|). NotFound names the file and
/// the tool that was missing at build time.
StatusOr<std::string> readKernelFile(const std::string &driver,
                                     const std::string &name,
                                     bool cubin = false);

/// An ExecutableSpec over |data| (which must outlive the spec).
ExecutableSpec kernelSpec(const std::string &driver, const std::string &name,
                          const std::string &data, bool cubin = false);

} // namespace kb::hal::cts

#endif // KB_RUNTIME_HAL_CTS_CTS_SUPPORT_H_

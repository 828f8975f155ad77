//===- runtime/hal/drivers/cuda/cuda_symbols.h - libcuda loader -----------===//
//
// libcuda.so.1 is dlopen'ed and every entry point resolved from one X-macro
// table (cuda_symbol_table.inc), as IREE's dynamic_symbols do. A missing
// library or function is Unavailable: this machine has no usable CUDA driver.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_SYMBOLS_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_SYMBOLS_H_

#include "common/status.h"
#include "runtime/hal/drivers/cuda/cuda_headers.h"
#include "common/dynamic_library.h"

#include <string>

namespace kb::hal::cuda {

struct CudaSymbols {
  kb::DynamicLibrary library;
#define KB_CU_PFN(name, exported, params) CUresult(*name) params = nullptr;
#define KB_CU_OPTIONAL_PFN(name, exported, version, params)                    \
  CUresult(*name) params = nullptr;
#include "runtime/hal/drivers/cuda/cuda_symbol_table.inc"
#undef KB_CU_PFN
#undef KB_CU_OPTIONAL_PFN
  /// How the table was resolved: "cuGetProcAddress@12000" or "dlsym".
  std::string resolvedBy;

  /// dlopen(|soname|) with RTLD_NODELETE and resolve the table.
  /// Unavailable: "libcuda.so.1 not found (...)" on machines without an
  /// NVIDIA driver. The library is never unmapped: cuInit starts driver
  /// threads and installs handlers that a dlclose would pull the code
  /// from under, and drivers are created and destroyed many times per
  /// process (every test).
  static StatusOr<CudaSymbols> load(const std::string &soname = "libcuda.so.1");

  /// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
  std::string describe(CUresult result) const;
  /// An error Status for |result| from |what|, or ok for CUDA_SUCCESS.
  Status toStatus(CUresult result, const std::string &what) const;
};

} // namespace kb::hal::cuda

/// Returns from the enclosing function when |expr| is not CUDA_SUCCESS.
#define KB_CU_RETURN_IF_ERROR(syms, expr, what)                                \
  do {                                                                         \
    ::kb::hal::cuda::CUresult kb_cu_result_ = (expr);                          \
    if (kb_cu_result_ != ::kb::hal::cuda::CUDA_SUCCESS)                        \
      return (syms).toStatus(kb_cu_result_, (what));                           \
  } while (false)

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_SYMBOLS_H_

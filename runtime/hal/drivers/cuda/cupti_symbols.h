//===- runtime/hal/drivers/cuda/cupti_symbols.h - libcupti loader ---------===//
//
// NVIDIA's CUPTI is dlopen'ed like the driver (cuda_symbols.h): the entry
// points of the range profiler (cupti_range_profiler.h, CUDA 12.6 and later)
// and of its host side (metric configuration and evaluation,
// cupti_profiler_host.h), typed by the CUDA toolkit's own headers. Only the
// files built with those headers (KB_HAVE_CUPTI) include this one; the rest
// of the driver sees the opaque CuptiSymbols of cupti_session.h.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_SYMBOLS_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_SYMBOLS_H_

#include "common/dynamic_library.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <string>

// Every entry point the counters use, by its exported name.
#define KB_CUPTI_FUNCTIONS(X)                                                  \
  X(cuptiGetResultString)                                                      \
  X(cuptiProfilerInitialize)                                                   \
  X(cuptiProfilerDeInitialize)                                                 \
  X(cuptiDeviceGetChipName)                                                    \
  X(cuptiProfilerGetCounterAvailability)                                       \
  X(cuptiProfilerHostInitialize)                                               \
  X(cuptiProfilerHostDeinitialize)                                             \
  X(cuptiProfilerHostConfigAddMetrics)                                         \
  X(cuptiProfilerHostGetConfigImageSize)                                       \
  X(cuptiProfilerHostGetConfigImage)                                           \
  X(cuptiProfilerHostEvaluateToGpuValues)                                      \
  X(cuptiRangeProfilerEnable)                                                  \
  X(cuptiRangeProfilerDisable)                                                 \
  X(cuptiRangeProfilerGetCounterDataSize)                                      \
  X(cuptiRangeProfilerCounterDataImageInitialize)                              \
  X(cuptiRangeProfilerSetConfig)                                               \
  X(cuptiRangeProfilerStart)                                                   \
  X(cuptiRangeProfilerStop)                                                    \
  X(cuptiRangeProfilerDecodeData)                                              \
  X(cuptiRangeProfilerGetCounterDataInfo)

namespace kb::hal::cuda {

struct CuptiSymbols {
  kb::DynamicLibrary library;
  /// Where the library was found ("/usr/local/cuda/lib64/libcupti.so.13").
  std::string path;
#define KB_CUPTI_PFN(name) decltype(&::name) name = nullptr;
  KB_CUPTI_FUNCTIONS(KB_CUPTI_PFN)
#undef KB_CUPTI_PFN

  /// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" and the like, from the library.
  std::string describe(CUptiResult result) const;
};

} // namespace kb::hal::cuda

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_SYMBOLS_H_

//===- runtime/hal/drivers/cuda/cuda_headers.h - Driver API subset --------===//
//
// The part of the CUDA driver API this driver uses, declared here so that the
// build needs no CUDA SDK (Debian has no cuda.h; docs/architecture.md): opaque
// handles, CUresult and only the enum values we pass or compare. Values are
// copied from cuda.h of CUDA 13.0 (CUDA_VERSION 13000) and have been stable
// since CUDA 11; each group names its cuda.h enum.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_HEADERS_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_HEADERS_H_

#include <cstddef>
#include <cstdint>

namespace kb::hal::cuda {

typedef int CUresult;                   // enum cudaError_enum
typedef int CUdevice;                   // CUdevice_v1
typedef unsigned long long CUdeviceptr; // CUdeviceptr_v2 (64-bit)
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef int CUdevice_attribute;   // enum CUdevice_attribute_enum
typedef int CUfunction_attribute; // enum CUfunction_attribute_enum
typedef int CUjit_option;         // enum CUjit_option_enum
typedef int CUstreamCaptureMode;  // enum CUstreamCaptureMode_enum
typedef uint64_t cuuint64_t;
typedef int CUdriverProcAddressQueryResult;
struct CUuuid {
  char bytes[16];
};

// cudaError_enum (CUDA 13.0)
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_ECC_UNCORRECTABLE = 214;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;
constexpr CUresult CUDA_ERROR_CAPTURED_EVENT = 907;
constexpr CUresult CUDA_ERROR_EXTERNAL_DEVICE = 911;
// The errors after which "the process must be terminated and relaunched to
// continue using CUDA" (cuda.h 13.0): ECC_UNCORRECTABLE 214,
// ILLEGAL_ADDRESS 700, LAUNCH_TIMEOUT 702, ASSERT 710, HARDWARE_STACK_ERROR
// 714, ILLEGAL_INSTRUCTION 715, MISALIGNED_ADDRESS 716,
// INVALID_ADDRESS_SPACE 717, INVALID_PC 718, LAUNCH_FAILED 719,
// EXTERNAL_DEVICE 911.
constexpr CUresult kStickyErrors[] = {214, 700, 702, 710, 714, 715,
                                      716, 717, 718, 719, 911};

// CUdevice_attribute_enum (CUDA 13.0)
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X =
    2;                                                               // Y=3, Z=4
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5; // Y=6, Z=7
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_INTEGRATED = 18;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute_enum (CUDA 13.0)
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES =
    8;

// CUjit_option_enum (CUDA 13.0)
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;

// CUstream_flags_enum, CUevent_flags_enum, CUstreamCaptureMode_enum,
// CUdriverProcAddress_flags_enum (CUDA 13.0)
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
// CUevent_record_flags_enum: the record becomes an event-record node of a
// captured graph instead of an internal dependency.
constexpr unsigned CU_EVENT_RECORD_EXTERNAL = 0x1;
constexpr CUstreamCaptureMode CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
constexpr cuuint64_t CU_GET_PROC_ADDRESS_DEFAULT = 0;

/// The driver API version entry points are resolved at (cuGetProcAddress
/// `cudaVersion`): CUDA 12.0, so that e.g. cuMemAlloc resolves to its _v2
/// ABI and CUDA 13 drivers, which dropped some unversioned names, still
/// answer.
constexpr int kPinnedDriverApiVersion = 12000;
/// cuFuncGetParamInfo appeared in CUDA 12.4: resolved at that version, and
/// optional (older drivers skip the parameter check and say so).
constexpr int kParamInfoDriverApiVersion = 12040;

} // namespace kb::hal::cuda

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_HEADERS_H_

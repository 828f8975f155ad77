//===- runtime/hal/drivers/cuda/cuda_symbols.cpp - libcuda loader ---------===//
#include "runtime/hal/drivers/cuda/cuda_symbols.h"

namespace kb::hal::cuda {

namespace {
// CUDA 12 signature (cuda.h maps cuGetProcAddress to this _v2).
using GetProcAddressV2 = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
// CUDA 11.3 signature, still exported by 12.x/13.x drivers.
using GetProcAddressV1 = CUresult (*)(const char *, void **, int, cuuint64_t);
} // namespace

StatusOr<CudaSymbols> CudaSymbols::load(const std::string &soname) {
  CudaSymbols syms;
  StatusOr<DynamicLibrary> library =
      DynamicLibrary::open(soname, DynamicLibrary::Unload::Never);
  if (!library.ok())
    return unavailable(soname + " not found (" + library.status().message() +
                       ")");
  syms.library = std::move(*library);
  auto v2 = reinterpret_cast<GetProcAddressV2>(
      syms.library.symbol("cuGetProcAddress_v2"));
  auto v1 = reinterpret_cast<GetProcAddressV1>(
      syms.library.symbol("cuGetProcAddress"));
  auto resolveAt = [&](const char *name, const char *exported,
                       int version) -> void * {
    void *fn = nullptr;
    if (v2) {
      CUdriverProcAddressQueryResult found = 0;
      if (v2(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) ==
              CUDA_SUCCESS &&
          fn)
        return fn;
    } else if (v1) {
      if (v1(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT) == CUDA_SUCCESS &&
          fn)
        return fn;
    }
    return syms.library.symbol(exported);
  };
  auto resolve = [&](const char *name, const char *exported) {
    return resolveAt(name, exported, kPinnedDriverApiVersion);
  };
  syms.resolvedBy =
      v2 || v1 ? "cuGetProcAddress@" + std::to_string(kPinnedDriverApiVersion)
               : "dlsym";
#define KB_CU_PFN(name, exported, params)                                      \
  syms.name = reinterpret_cast<CUresult(*) params>(resolve(#name, exported));  \
  if (!syms.name)                                                              \
    return unavailable("libcuda.so.1 does not provide " #name " (" exported    \
                       "); the NVIDIA driver is older than CUDA 12");
#define KB_CU_OPTIONAL_PFN(name, exported, version, params)                    \
  syms.name = reinterpret_cast<CUresult(*) params>(                            \
      resolveAt(#name, exported, version));
#include "runtime/hal/drivers/cuda/cuda_symbol_table.inc"
#undef KB_CU_PFN
#undef KB_CU_OPTIONAL_PFN
  return syms;
}

std::string CudaSymbols::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string s = name ? name : "CUresult " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

Status CudaSymbols::toStatus(CUresult result, const std::string &what) const {
  if (result == CUDA_SUCCESS)
    return okStatus();
  std::string message = what + " failed: " + describe(result);
  if (result == CUDA_ERROR_NO_DEVICE)
    return unavailable(message);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    return resourceExhausted(message);
  return internalError(message);
}

} // namespace kb::hal::cuda

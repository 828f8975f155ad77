//===- runtime/hal/drivers/cuda/cuda_fake_symbols.cpp - Recording fake ----===//
#include "runtime/hal/drivers/cuda/cuda_fake_symbols.h"

#include <cstring>

namespace kb::hal::cuda::testing {

FakeCuda *FakeCuda::current = nullptr;

namespace {

FakeCuda &fake() { return *FakeCuda::current; }

void record(const char *fn, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
  fake().calls.push_back({fn, a, b, c});
}

template <typename T> uint64_t id(T handle) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
}
template <typename T> T handle(uint64_t value) {
  return reinterpret_cast<T>(static_cast<uintptr_t>(value));
}

constexpr uint64_t kStream = 0x5700;
constexpr uint64_t kContext = 0xC700;
constexpr uint64_t kModule = 0x3300;
constexpr uint64_t kFunction = 0xF000;

const char *errorName(CUresult r) {
  switch (r) {
  case 0:
    return "CUDA_SUCCESS";
  case 1:
    return "CUDA_ERROR_INVALID_VALUE";
  case 2:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case 214:
    return "CUDA_ERROR_ECC_UNCORRECTABLE";
  case 222:
    return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case 600:
    return "CUDA_ERROR_NOT_READY";
  case 700:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case 701:
    return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
  case 907:
    return "CUDA_ERROR_CAPTURED_EVENT";
  case 911:
    return "CUDA_ERROR_EXTERNAL_DEVICE";
  default:
    return nullptr;
  }
}

CUresult fInit(unsigned) { return record("cuInit"), CUDA_SUCCESS; }
CUresult fDriverGetVersion(int *v) {
  *v = fake().driverVersion;
  return CUDA_SUCCESS;
}
CUresult fGetErrorName(CUresult r, const char **name) {
  *name = errorName(r);
  return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fGetErrorString(CUresult r, const char **text) {
  *text = errorName(r) ? "fake error text" : nullptr;
  return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult fDeviceGetCount(int *n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult fDeviceGet(CUdevice *d, int i) {
  *d = i;
  return CUDA_SUCCESS;
}
CUresult fDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Fake GPU", static_cast<size_t>(length));
  return CUDA_SUCCESS;
}
CUresult fDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 1:
    *v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 2:
    *v = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *v = 0x7fffffff;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + 1:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + 2:
    *v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *v = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = fake().sharedOptinBytes;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *v = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *v = fake().multiprocessorCount;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult fDeviceGetUuid(CUuuid *uuid, CUdevice) {
  for (int i = 0; i < 16; ++i)
    uuid->bytes[i] = static_cast<char>(0xf0 + i);
  return CUDA_SUCCESS;
}
CUresult fDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = size_t(80) << 30;
  return CUDA_SUCCESS;
}
CUresult fPrimaryCtxRetain(CUcontext *c, CUdevice) {
  record("cuDevicePrimaryCtxRetain");
  *c = handle<CUcontext>(kContext);
  return CUDA_SUCCESS;
}
CUresult fPrimaryCtxRelease(CUdevice) {
  return record("cuDevicePrimaryCtxRelease"), CUDA_SUCCESS;
}
CUresult fCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult fCtxSynchronize() {
  record("cuCtxSynchronize");
  return fake().streamSyncResult;
}
CUresult fMemAlloc(CUdeviceptr *p, size_t size) {
  record("cuMemAlloc", size);
  if (fake().memAllocResult != CUDA_SUCCESS)
    return fake().memAllocResult;
  *p = fake().nextPointer;
  fake().nextPointer += (size + 0xffff) & ~uint64_t(0xffff);
  return CUDA_SUCCESS;
}
CUresult fMemFree(CUdeviceptr p) { return record("cuMemFree", p), 0; }
CUresult fMemcpyHtoDAsync(CUdeviceptr p, const void *, size_t n, CUstream s) {
  return record("cuMemcpyHtoDAsync", p, n, id(s)), CUDA_SUCCESS;
}
CUresult fMemcpyDtoHAsync(void *, CUdeviceptr p, size_t n, CUstream s) {
  return record("cuMemcpyDtoHAsync", p, n, id(s)), CUDA_SUCCESS;
}
CUresult fMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr, size_t n, CUstream s) {
  return record("cuMemcpyDtoDAsync", d, n, id(s)), CUDA_SUCCESS;
}
CUresult fMemsetD32Async(CUdeviceptr d, unsigned, size_t n, CUstream s) {
  return record("cuMemsetD32Async", d, n, id(s)), CUDA_SUCCESS;
}
CUresult fModuleLoadDataEx(CUmodule *m, const void *, unsigned, CUjit_option *,
                           void **) {
  record("cuModuleLoadDataEx");
  if (fake().moduleLoadResult != CUDA_SUCCESS)
    return fake().moduleLoadResult;
  *m = handle<CUmodule>(kModule);
  return CUDA_SUCCESS;
}
CUresult fModuleUnload(CUmodule m) {
  return record("cuModuleUnload", id(m)), CUDA_SUCCESS;
}
CUresult fModuleGetFunction(CUfunction *f, CUmodule, const char *) {
  record("cuModuleGetFunction");
  *f = handle<CUfunction>(kFunction);
  return CUDA_SUCCESS;
}
CUresult fFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction) {
  record("cuFuncGetAttribute", uint64_t(a));
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *v = fake().maxThreadsPerFunction;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *v = fake().staticSharedBytes;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *v = fake().maxDynamicSharedBytes;
    break;
  default:
    *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult fFuncSetAttribute(CUfunction, CUfunction_attribute a, int v) {
  record("cuFuncSetAttribute", uint64_t(a), uint64_t(v));
  if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    // The driver's rule: static + dynamic within the opt-in limit.
    if (v < 0 || v > fake().sharedOptinBytes - fake().staticSharedBytes)
      return CUDA_ERROR_INVALID_VALUE;
    fake().maxDynamicSharedBytes = v;
  }
  return CUDA_SUCCESS;
}
CUresult fLaunchKernel(CUfunction, unsigned gx, unsigned, unsigned, unsigned bx,
                       unsigned, unsigned, unsigned shared, CUstream s, void **,
                       void **) {
  record("cuLaunchKernel", gx, shared, id(s));
  if (fake().capturing)
    return CUDA_SUCCESS;
  // Launching more dynamic shared memory than the attribute allows fails
  // like the driver does.
  (void)bx;
  if (int(shared) > fake().maxDynamicSharedBytes)
    return CUDA_ERROR_INVALID_VALUE;
  auto it = fake().launchResults.find(fake().launches++);
  return it == fake().launchResults.end() ? CUDA_SUCCESS : it->second;
}
CUresult fStreamCreate(CUstream *s, unsigned flags) {
  record("cuStreamCreate", flags);
  *s = handle<CUstream>(kStream);
  return CUDA_SUCCESS;
}
CUresult fStreamDestroy(CUstream s) {
  return record("cuStreamDestroy", id(s)), CUDA_SUCCESS;
}
CUresult fStreamSynchronize(CUstream s) {
  record("cuStreamSynchronize", id(s));
  return fake().streamSyncResult;
}
CUresult fStreamBeginCapture(CUstream s, CUstreamCaptureMode mode) {
  record("cuStreamBeginCapture", id(s), uint64_t(mode));
  fake().capturing = true;
  fake().graphs.emplace_back();
  return CUDA_SUCCESS;
}
CUresult fStreamEndCapture(CUstream s, CUgraph *g) {
  record("cuStreamEndCapture", id(s));
  fake().capturing = false;
  *g = handle<CUgraph>(fake().graphs.size());
  return CUDA_SUCCESS;
}
CUresult fGraphInstantiate(CUgraphExec *e, CUgraph g, unsigned long long) {
  record("cuGraphInstantiateWithFlags", id(g));
  *e = handle<CUgraphExec>(id(g));
  return CUDA_SUCCESS;
}
CUresult fGraphLaunch(CUgraphExec e, CUstream s) {
  record("cuGraphLaunch", id(e), id(s));
  for (size_t event : fake().graphs.at(id(e) - 1))
    fake().events[event].recorded = true;
  return CUDA_SUCCESS;
}
CUresult fGraphExecDestroy(CUgraphExec e) {
  return record("cuGraphExecDestroy", id(e)), CUDA_SUCCESS;
}
CUresult fGraphDestroy(CUgraph g) {
  return record("cuGraphDestroy", id(g)), CUDA_SUCCESS;
}
CUresult fEventCreate(CUevent *e, unsigned flags) {
  record("cuEventCreate", flags);
  fake().events.emplace_back();
  *e = handle<CUevent>(fake().events.size());
  return CUDA_SUCCESS;
}
CUresult fEventDestroy(CUevent e) {
  return record("cuEventDestroy", id(e)), CUDA_SUCCESS;
}
CUresult fEventRecord(CUevent e, CUstream s) {
  record("cuEventRecord", id(e), id(s));
  FakeCuda::Event &event = fake().events.at(id(e) - 1);
  if (fake().capturing)
    event.capturedInternal = true; // orders the capture, adds no node
  else
    event.recorded = true;
  return CUDA_SUCCESS;
}
CUresult fEventRecordWithFlags(CUevent e, CUstream s, unsigned flags) {
  record("cuEventRecordWithFlags", id(e), id(s), flags);
  if (!fake().capturing || !(flags & CU_EVENT_RECORD_EXTERNAL))
    return fEventRecord(e, s);
  fake().graphs.back().push_back(id(e) - 1);
  return CUDA_SUCCESS;
}
CUresult fEventQuery(CUevent e) {
  return fake().events.at(id(e) - 1).recorded ? CUDA_SUCCESS
                                              : CUDA_ERROR_NOT_READY;
}
CUresult fEventElapsedTime(float *ms, CUevent a, CUevent b) {
  record("cuEventElapsedTime", id(a), id(b));
  for (CUevent e : {a, b}) {
    const FakeCuda::Event &event = fake().events.at(id(e) - 1);
    if (!event.recorded)
      return event.capturedInternal ? CUDA_ERROR_CAPTURED_EVENT
                                    : CUDA_ERROR_NOT_READY;
  }
  unsigned call = static_cast<unsigned>(fake().count("cuEventElapsedTime")) - 1;
  auto scripted = fake().elapsedMs.find(call);
  *ms = scripted == fake().elapsedMs.end() ? 0.25f : scripted->second;
  return CUDA_SUCCESS;
}
CUresult fFuncGetParamInfo(CUfunction, size_t index, size_t *offset,
                           size_t *size) {
  record("cuFuncGetParamInfo", index);
  if (index >= fake().params.size())
    return CUDA_ERROR_INVALID_VALUE;
  *offset = fake().params[index].first;
  *size = fake().params[index].second;
  return CUDA_SUCCESS;
}

} // namespace

FakeCuda::FakeCuda() {
  calls.reserve(1 << 16);
  events.reserve(1024);
  current = this;
}

FakeCuda::~FakeCuda() {
  if (current == this)
    current = nullptr;
}

CudaSymbols FakeCuda::symbols() const {
  CudaSymbols s;
  s.cuInit = fInit;
  s.cuDriverGetVersion = fDriverGetVersion;
  s.cuGetErrorName = fGetErrorName;
  s.cuGetErrorString = fGetErrorString;
  s.cuDeviceGetCount = fDeviceGetCount;
  s.cuDeviceGet = fDeviceGet;
  s.cuDeviceGetName = fDeviceGetName;
  s.cuDeviceGetAttribute = fDeviceGetAttribute;
  s.cuDeviceTotalMem = fDeviceTotalMem;
  s.cuDeviceGetUuid = fDeviceGetUuid;
  s.cuDevicePrimaryCtxRetain = fPrimaryCtxRetain;
  s.cuDevicePrimaryCtxRelease = fPrimaryCtxRelease;
  s.cuCtxSetCurrent = fCtxSetCurrent;
  s.cuCtxSynchronize = fCtxSynchronize;
  s.cuMemAlloc = fMemAlloc;
  s.cuMemFree = fMemFree;
  s.cuMemcpyHtoDAsync = fMemcpyHtoDAsync;
  s.cuMemcpyDtoHAsync = fMemcpyDtoHAsync;
  s.cuMemcpyDtoDAsync = fMemcpyDtoDAsync;
  s.cuMemsetD32Async = fMemsetD32Async;
  s.cuModuleLoadDataEx = fModuleLoadDataEx;
  s.cuModuleUnload = fModuleUnload;
  s.cuModuleGetFunction = fModuleGetFunction;
  s.cuFuncGetAttribute = fFuncGetAttribute;
  s.cuFuncSetAttribute = fFuncSetAttribute;
  s.cuLaunchKernel = fLaunchKernel;
  s.cuStreamCreate = fStreamCreate;
  s.cuStreamDestroy = fStreamDestroy;
  s.cuStreamSynchronize = fStreamSynchronize;
  s.cuStreamBeginCapture = fStreamBeginCapture;
  s.cuStreamEndCapture = fStreamEndCapture;
  s.cuGraphInstantiateWithFlags = fGraphInstantiate;
  s.cuGraphLaunch = fGraphLaunch;
  s.cuGraphExecDestroy = fGraphExecDestroy;
  s.cuGraphDestroy = fGraphDestroy;
  s.cuEventCreate = fEventCreate;
  s.cuEventDestroy = fEventDestroy;
  s.cuEventRecord = fEventRecord;
  s.cuEventRecordWithFlags = fEventRecordWithFlags;
  s.cuEventQuery = fEventQuery;
  s.cuEventElapsedTime = fEventElapsedTime;
  s.cuFuncGetParamInfo = paramInfoAvailable ? fFuncGetParamInfo : nullptr;
  s.resolvedBy = "fake";
  return s;
}

size_t FakeCuda::count(std::string_view fn) const {
  size_t n = 0;
  for (const FakeCall &c : calls)
    n += fn == c.fn;
  return n;
}

size_t FakeCuda::find(std::string_view fn, size_t from) const {
  for (size_t i = from; i < calls.size(); ++i)
    if (fn == calls[i].fn)
      return i;
  return std::string::npos;
}

std::string FakeCuda::trace() const {
  std::string out;
  for (size_t i = 0; i < calls.size(); ++i)
    out += std::to_string(i) + ": " + calls[i].fn + "(" +
           std::to_string(calls[i].a) + ", " + std::to_string(calls[i].b) +
           ", " + std::to_string(calls[i].c) + ")\n";
  return out;
}

} // namespace kb::hal::cuda::testing

//===- runtime/hal/drivers/cuda/cuda_device.cpp - Context and stream ------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

namespace kb::hal::cuda {

Status CudaDevice::init() {
  // The primary context is what the runtime API and other libraries share;
  // cuCtxCreate_v2 is gone from CUDA 13 headers.
  KB_CU_RETURN_IF_ERROR(syms_,
                        syms_.cuDevicePrimaryCtxRetain(&context_, device_),
                        "cuDevicePrimaryCtxRetain");
  KB_RETURN_IF_ERROR(makeCurrent());
  // Every operation of this device (launches, fills, copies, host uploads
  // and downloads, event records) goes to this one stream, in order, so
  // each is ordered after the previous one by the stream alone. The stream
  // is non-blocking: it does not wait for the legacy NULL stream that other
  // libraries in the process may use, and nothing of ours relies on it.
  KB_CU_RETURN_IF_ERROR(syms_,
                        syms_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
                        "cuStreamCreate");
  return okStatus();
}

CudaDevice::~CudaDevice() {
  // Errors here (e.g. a context poisoned by a kernel fault) are ignored:
  // destructors have nobody to report to. A poisoned context fails these
  // calls at once; nothing waits on its stream.
  if (context_)
    (void)syms_.cuCtxSetCurrent(context_);
  if (stream_) {
    if (lost_.empty())
      (void)syms_.cuStreamSynchronize(stream_);
    (void)syms_.cuStreamDestroy(stream_);
  }
  if (context_) {
    (void)syms_.cuDevicePrimaryCtxRelease(device_);
    // Do not leave a released (possibly destroyed) context current.
    (void)syms_.cuCtxSetCurrent(nullptr);
  }
}

Status CudaDevice::makeCurrent() const {
  if (!lost_.empty())
    return failedPrecondition(
        properties_.driver + ":" + std::to_string(properties_.index) +
        " is unusable: " + lost_ +
        "; the CUDA context cannot be used again in this process (start a new "
        "kernel-bench process)");
  KB_CU_RETURN_IF_ERROR(syms_, syms_.cuCtxSetCurrent(context_),
                        "cuCtxSetCurrent");
  return okStatus();
}

Status CudaDevice::check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return okStatus();
  for (CUresult sticky : kStickyErrors)
    if (result == sticky && lost_.empty())
      lost_ = std::string(what) + " failed with " + syms_.describe(result);
  return syms_.toStatus(result, what);
}

StatusOr<std::shared_ptr<Buffer>> CudaDevice::allocateBuffer(uint64_t size,
                                                             MemoryType type) {
  if (size == 0)
    return invalidArgument("buffer allocation of 0 bytes");
  if (size > properties_.limits.maxAllocationBytes)
    return resourceExhausted(
        "a buffer of " + std::to_string(size) +
        " bytes exceeds the memory of " + properties_.name + " (" +
        std::to_string(properties_.limits.maxAllocationBytes) +
        " bytes); use smaller buffers");
  KB_RETURN_IF_ERROR(makeCurrent());
  CUdeviceptr pointer = 0;
  // Padded to 4 bytes so whole-buffer 32-bit fills cover every byte.
  // Through check(): out of memory is ResourceExhausted, but a sticky fault
  // reported here (an earlier kernel's) poisons the device like anywhere.
  KB_RETURN_IF_ERROR(
      check(syms_.cuMemAlloc(&pointer, (size + 3) & ~uint64_t(3)),
            "cuMemAlloc of " + std::to_string(size) + " bytes"));
  return std::shared_ptr<Buffer>(new CudaBuffer(*this, size, type, pointer));
}

StatusOr<std::shared_ptr<Executable>>
CudaDevice::createExecutable(const ExecutableSpec &spec) {
  KB_RETURN_IF_ERROR(makeCurrent());
  return CudaExecutable::create(*this, spec);
}

StatusOr<std::unique_ptr<CommandBuffer>>
CudaDevice::createCommandBuffer(const CommandBufferOptions &options) {
  return std::unique_ptr<CommandBuffer>(new CudaCommandBuffer(*this, options));
}

StatusOr<std::shared_ptr<Timer>> CudaDevice::createTimer(uint32_t slotCount) {
  KB_RETURN_IF_ERROR(makeCurrent());
  return CudaTimer::create(*this, slotCount);
}

StatusOr<std::unique_ptr<CounterSession>> CudaDevice::createCounterSession() {
  KB_ASSIGN_OR_RETURN(const CuptiSymbols *cupti, cupti_.get());
  CuptiTarget target;
  target.context = context_;
  target.deviceIndex = properties_.index;
  target.makeCurrent = [this] { return makeCurrent(); };
  return createCuptiSession(*cupti, std::move(target));
}

} // namespace kb::hal::cuda

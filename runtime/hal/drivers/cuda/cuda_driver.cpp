//===- runtime/hal/drivers/cuda/cuda_driver.cpp - Driver, device, memory --===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

namespace kb::hal::cuda {

StatusOr<std::unique_ptr<Driver>>
createCudaDriver(const DriverOptions &options) {
  return CudaDriver::create(options);
}

StatusOr<std::unique_ptr<Driver>> CudaDriver::create(const DriverOptions &) {
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  KB_ASSIGN_OR_RETURN(driver->syms_, CudaSymbols::load());
  const CudaSymbols &s = driver->syms_;
  CUresult init = s.cuInit(0);
  if (init != CUDA_SUCCESS)
    return unavailable("cuInit failed: " + s.describe(init) +
                       " (is an NVIDIA GPU visible to this process?)");
  int version = 0, count = 0;
  KB_CU_RETURN_IF_ERROR(s, s.cuDriverGetVersion(&version),
                        "cuDriverGetVersion");
  KB_CU_RETURN_IF_ERROR(s, s.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    return unavailable("the CUDA driver reports no devices");
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    KB_CU_RETURN_IF_ERROR(s, s.cuDeviceGet(&dev, i), "cuDeviceGet");
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      // An attribute this driver does not know reads as 0 ("unknown").
      if (s.cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS)
        v = 0;
      return v;
    };
    char name[256] = {0};
    KB_CU_RETURN_IF_ERROR(s, s.cuDeviceGetName(name, sizeof(name) - 1, dev),
                          "cuDeviceGetName");
    size_t memory = 0;
    KB_CU_RETURN_IF_ERROR(s, s.cuDeviceTotalMem(&memory, dev),
                          "cuDeviceTotalMem");
    DeviceProperties p;
    p.driver = "cuda";
    p.index = static_cast<uint32_t>(i);
    p.name = name;
    p.vendor = "NVIDIA";
    p.type = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED) ? DeviceType::IntegratedGpu
                                                  : DeviceType::DiscreteGpu;
    p.ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p.ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p.apiVersion = std::to_string(p.ccMajor) + "." + std::to_string(p.ccMinor);
    p.driverVersion = "CUDA " + std::to_string(version / 1000) + "." +
                      std::to_string((version % 1000) / 10);
    p.computeUnits = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p.clockKhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    p.memoryClockKhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    p.memoryBusWidthBits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    p.memoryBytes = memory;
    p.l2CacheBytes =
        static_cast<uint64_t>(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    p.subgroupSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    // Timer::elapsedNs converts cuEventElapsedTime's milliseconds itself.
    p.timestampPeriodNs = 1.0;
    p.timestampValidBits = 64;
    DeviceLimits &l = p.limits;
    for (int d = 0; d < 3; ++d) {
      l.maxWorkgroupSize[d] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + d);
      l.maxWorkgroupCount[d] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + d);
    }
    l.maxWorkgroupInvocations = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    l.maxSharedMemoryBytes =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    // The classic 4 KiB kernel-parameter space (larger since CUDA 12.1 on
    // Volta+, but 4 KiB is valid everywhere): bindings take 8 bytes each.
    l.maxConstantBytes = 4096;
    l.maxBindings = 4096 / 8;
    l.maxParameterBytes = 4096; // bindings and constants together
    l.maxBindingRange = memory;
    l.minBindingOffsetAlignment = 1;
    l.maxAllocationBytes = memory;
    driver->handles_.push_back(dev);
    driver->properties_.push_back(std::move(p));
  }
  return std::unique_ptr<Driver>(std::move(driver));
}

StatusOr<std::unique_ptr<Device>>
CudaDriver::createDevice(uint32_t index, const DeviceOptions &) {
  if (index >= handles_.size())
    return outOfRange("cuda:" + std::to_string(index) +
                      " does not exist; the driver has " +
                      std::to_string(handles_.size()) + " device(s)");
  auto device =
      std::make_unique<CudaDevice>(syms_, handles_[index], properties_[index]);
  KB_RETURN_IF_ERROR(device->init());
  return std::unique_ptr<Device>(std::move(device));
}

//===----------------------------------------------------------------------===//
// CudaDevice
//===----------------------------------------------------------------------===//

Status CudaDevice::init() {
  // The primary context is what the runtime API and other libraries share;
  // cuCtxCreate_v2 is gone from CUDA 13 headers (GPU.md).
  KB_CU_RETURN_IF_ERROR(syms_,
                        syms_.cuDevicePrimaryCtxRetain(&context_, device_),
                        "cuDevicePrimaryCtxRetain");
  KB_RETURN_IF_ERROR(makeCurrent());
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

Status CudaDevice::check(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return okStatus();
  for (CUresult sticky : kStickyErrors)
    if (result == sticky && lost_.empty())
      lost_ = what + " failed with " + syms_.describe(result);
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
  CUresult r = syms_.cuMemAlloc(&pointer, (size + 3) & ~uint64_t(3));
  if (r != CUDA_SUCCESS)
    return resourceExhausted("cuMemAlloc of " + std::to_string(size) +
                             " bytes failed: " + syms_.describe(r));
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

//===----------------------------------------------------------------------===//
// CudaBuffer
//===----------------------------------------------------------------------===//

CudaBuffer::~CudaBuffer() {
  (void)device_.makeCurrent();
  (void)device_.syms().cuMemFree(pointer_);
}

Status CudaBuffer::upload(uint64_t offset, const void *data, uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "upload"));
  if (length == 0)
    return okStatus();
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  return device_.check(
      device_.syms().cuMemcpyHtoD(pointer_ + offset, data, length),
      "cuMemcpyHtoD");
}

Status CudaBuffer::download(uint64_t offset, void *data, uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "download"));
  if (length == 0)
    return okStatus();
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  return device_.check(
      device_.syms().cuMemcpyDtoH(data, pointer_ + offset, length),
      "cuMemcpyDtoH");
}

//===----------------------------------------------------------------------===//
// CudaTimer
//===----------------------------------------------------------------------===//

StatusOr<std::shared_ptr<Timer>> CudaTimer::create(CudaDevice &device,
                                                   uint32_t slotCount) {
  if (slotCount == 0)
    return invalidArgument("a timer needs at least one slot");
  std::unique_ptr<CudaTimer> timer(new CudaTimer(device, slotCount));
  for (uint32_t i = 0; i < slotCount; ++i) {
    CUevent event = nullptr;
    KB_CU_RETURN_IF_ERROR(device.syms(),
                          device.syms().cuEventCreate(&event, CU_EVENT_DEFAULT),
                          "cuEventCreate");
    timer->events_.push_back(event);
  }
  return std::shared_ptr<Timer>(std::move(timer));
}

CudaTimer::~CudaTimer() {
  (void)device_.makeCurrent();
  for (CUevent e : events_)
    (void)device_.syms().cuEventDestroy(e);
}

StatusOr<double> CudaTimer::elapsedNs(uint32_t begin, uint32_t end) {
  KB_RETURN_IF_ERROR(checkSlot(begin));
  KB_RETURN_IF_ERROR(checkSlot(end));
  for (uint32_t slot : {begin, end})
    if (!recorded_[slot])
      return failedPrecondition("timestamp slot " + std::to_string(slot) +
                                " has not been written by a completed "
                                "command buffer");
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  float ms = 0;
  KB_RETURN_IF_ERROR(device_.check(
      device_.syms().cuEventElapsedTime(&ms, events_[begin], events_[end]),
      "cuEventElapsedTime"));
  return static_cast<double>(ms) * 1e6;
}

} // namespace kb::hal::cuda

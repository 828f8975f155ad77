//===- runtime/hal/drivers/cuda/cuda_driver.cpp - Devices and limits ----===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

#include <cstring>

namespace kb::hal::cuda {

StatusOr<std::unique_ptr<Driver>>
createCudaDriver(const DriverOptions &options) {
  return CudaDriver::create(options);
}

StatusOr<std::unique_ptr<Driver>>
CudaDriver::create(const DriverOptions &options) {
  KB_ASSIGN_OR_RETURN(CudaSymbols syms, CudaSymbols::load());
  return create(options, std::move(syms));
}

namespace {

// An attribute this driver does not know reads as 0 ("unknown").
int deviceAttribute(const CudaSymbols &s, CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  if (s.cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS)
    v = 0;
  return v;
}

// The launch limits benchmarks and the ABI checks are held to.
void queryDeviceLimits(const CudaSymbols &s, CUdevice dev, size_t memory,
                       DeviceLimits &l) {
  auto attr = [&](CUdevice_attribute a) { return deviceAttribute(s, dev, a); };
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
}

// Device |i|'s description in the driver-neutral terms of DeviceProperties
// (a warp is the subgroup, a block the workgroup); |version| is
// cuDriverGetVersion's.
StatusOr<DeviceProperties>
queryDeviceProperties(const CudaSymbols &s, CUdevice dev, int i, int version) {
  auto attr = [&](CUdevice_attribute a) { return deviceAttribute(s, dev, a); };
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
  p.vendorId = 0x10de;
  // The PCI product id needs NVML; the UUID identifies the GPU.
  CUuuid uuid{};
  if (s.cuDeviceGetUuid && s.cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
    uint8_t bytes[16];
    std::memcpy(bytes, uuid.bytes, 16);
    p.uuid = formatUuid(bytes);
  }
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
  // A warp is the subgroup: its size is fixed, never chosen.
  p.minSubgroupSize = p.maxSubgroupSize = p.subgroupSize;
  p.fullSubgroups = true;
  // Timer::elapsedNs converts cuEventElapsedTime's milliseconds itself.
  p.timestampPeriodNs = 1.0;
  p.timestampValidBits = 64;
  queryDeviceLimits(s, dev, memory, p.limits);
  return p;
}

} // namespace

StatusOr<std::unique_ptr<Driver>>
CudaDriver::create(const DriverOptions &, CudaSymbols syms,
                   std::shared_ptr<const CuptiSymbols> cupti) {
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->syms_ = std::move(syms);
  driver->cupti_ = std::make_unique<CuptiLibrary>(std::move(cupti));
  const CudaSymbols &s = driver->syms_;
  CUresult init = s.cuInit(0);
  if (init != CUDA_SUCCESS)
    return unavailable("cuInit failed: " + s.describe(init) +
                       " (is an NVIDIA GPU visible to this process?)");
  int version = 0, count = 0;
  KB_CU_RETURN_IF_ERROR(s, s.cuDriverGetVersion(&version),
                        "cuDriverGetVersion");
  driver->driverVersion_ = version;
  KB_CU_RETURN_IF_ERROR(s, s.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    return unavailable("the CUDA driver reports no devices");
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    KB_CU_RETURN_IF_ERROR(s, s.cuDeviceGet(&dev, i), "cuDeviceGet");
    KB_ASSIGN_OR_RETURN(DeviceProperties p,
                        queryDeviceProperties(s, dev, i, version));
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
  auto device = std::make_unique<CudaDevice>(
      syms_, *cupti_, handles_[index], driverVersion_, properties_[index]);
  KB_RETURN_IF_ERROR(device->init());
  return std::unique_ptr<Device>(std::move(device));
}

} // namespace kb::hal::cuda

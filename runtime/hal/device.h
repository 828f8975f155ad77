//===- runtime/hal/device.h - One GPU (or CPU Vulkan device) --------------===//
//
// A Device owns the driver-side context and creates buffers, executables,
// command buffers and timers. CUDA: the device's primary context
// (cuDevicePrimaryCtxRetain) and one non-blocking stream. Vulkan: a VkDevice
// with one compute queue, a VkPipelineCache and a command pool.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DEVICE_H_
#define KB_RUNTIME_HAL_DEVICE_H_

#include "common/status.h"
#include "runtime/hal/buffer.h"
#include "runtime/hal/counters.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/executable.h"
#include "runtime/hal/timer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace kb::hal {

//===----------------------------------------------------------------------===//
// Types and enums
//===----------------------------------------------------------------------===//

/// Maps to VkPhysicalDeviceType; CUDA devices are DiscreteGpu or, when
/// CU_DEVICE_ATTRIBUTE_INTEGRATED says so, IntegratedGpu.
enum class DeviceType { DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu, Other };
const char *toString(DeviceType type);

/// 16 UUID bytes as lowercase 8-4-4-4-12 hex
/// ("0b9c2f4e-1d3a-4c5b-8e6f-7a8b9c0d1e2f"); the form both drivers report.
std::string formatUuid(const uint8_t (&bytes)[16]);

/// Limits every dispatch is checked against before any driver call.
struct DeviceLimits {
  /// Per dimension (CUDA MAX_BLOCK_DIM_*, Vulkan maxComputeWorkGroupSize).
  std::array<uint32_t, 3> maxWorkgroupSize = {0, 0, 0};
  /// Product of the three (MAX_THREADS_PER_BLOCK,
  /// maxComputeWorkGroupInvocations).
  uint32_t maxWorkgroupInvocations = 0;
  /// MAX_GRID_DIM_*, maxComputeWorkGroupCount.
  std::array<uint32_t, 3> maxWorkgroupCount = {0, 0, 0};
  /// Shared memory per workgroup in bytes: CUDA's opt-in maximum
  /// (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), maxComputeSharedMemorySize.
  uint32_t maxSharedMemoryBytes = 0;
  /// Bytes of constants: maxPushConstantsSize on Vulkan; on CUDA the kernel
  /// parameter space (4096 bytes before CUDA 12.1 / Volta; 32764 after).
  uint32_t maxConstantBytes = 0;
  /// Storage buffers per dispatch (maxPerStageDescriptorStorageBuffers; CUDA:
  /// bounded only by the parameter space).
  uint32_t maxBindings = 0;
  /// Largest binding range (maxStorageBufferRange; CUDA: memory size).
  uint64_t maxBindingRange = 0;
  /// minStorageBufferOffsetAlignment (CUDA: 1; kernels assume their own
  /// alignment).
  uint64_t minBindingOffsetAlignment = 1;
  /// Largest single buffer (Vulkan: maxMemoryAllocationSize, capped by the
  /// device-local heap; CUDA: total memory). allocateBuffer refuses larger
  /// sizes before any driver call.
  uint64_t maxAllocationBytes = 0;
  /// Live allocations at once (Vulkan maxMemoryAllocationCount, 4096 on
  /// some drivers: every buffer, staging included, is one); 0 = unlimited.
  uint32_t maxAllocationCount = 0;
  /// Kernel parameter space shared by the bindings (8 bytes each) and the
  /// constants, laid out per kb::cudaParamLayout (CUDA: 4096). 0 = no such
  /// shared space (Vulkan: bindings are descriptors).
  uint32_t maxParameterBytes = 0;
};

/// What `kernel-bench devices` prints. 0 / empty = unknown to this driver.
struct DeviceProperties {
  std::string driver; // "cuda" or "vulkan"
  uint32_t index = 0; // index within the driver (cuda:N, vulkan:N)
  std::string name;   // "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string vendor; // "NVIDIA", "Mesa", ...
  /// PCI vendor id (0x10de NVIDIA; Vulkan vendorID, e.g. 0x10005 Mesa for
  /// lavapipe) and device id (Vulkan deviceID; 0 = unknown: the CUDA driver
  /// API does not report the PCI product id).
  uint32_t vendorId = 0;
  uint32_t deviceId = 0;
  /// The device's UUID as formatUuid() spells it (CUDA cuDeviceGetUuid;
  /// Vulkan deviceUUID, the same bytes for the same NVIDIA GPU); empty when
  /// the driver does not report one.
  std::string uuid;
  DeviceType type = DeviceType::Other;
  /// CUDA compute capability "9.0" (also in ccMajor/ccMinor); Vulkan
  /// apiVersion "1.3.230".
  std::string apiVersion;
  int ccMajor = 0, ccMinor = 0;
  std::string driverVersion;
  uint32_t computeUnits = 0; // SMs (MULTIPROCESSOR_COUNT); Vulkan: unknown
  uint32_t clockKhz = 0;     // CLOCK_RATE
  uint32_t memoryClockKhz = 0;
  uint32_t memoryBusWidthBits = 0;
  uint64_t memoryBytes = 0;  // cuDeviceTotalMem / largest device-local heap
  uint64_t l2CacheBytes = 0; // L2_CACHE_SIZE
  uint32_t subgroupSize = 0; // warp size / Vulkan subgroupSize
  /// The subgroup sizes a kernel may require (Vulkan 1.3 minSubgroupSize /
  /// maxSubgroupSize; CUDA: 32 and 32). 0 when the device cannot be asked
  /// for one: a Vulkan device without subgroupSizeControl, or whose
  /// requiredSubgroupSizeStages lacks compute.
  uint32_t minSubgroupSize = 0;
  uint32_t maxSubgroupSize = 0;
  /// Whether a compute pipeline may require full subgroups (Vulkan
  /// computeFullSubgroups; CUDA: warps of a block whose size is a multiple of
  /// 32 are always full).
  bool fullSubgroups = false;
  /// Nanoseconds per timestamp tick (Vulkan timestampPeriod; CUDA events
  /// report milliseconds: 1.0 here, resolution about 500 ns).
  double timestampPeriodNs = 0;
  /// Meaningful bits of a timestamp (Vulkan timestampValidBits of the
  /// compute queue; 0 = no timestamps). CUDA: 64.
  uint32_t timestampValidBits = 0;
  DeviceLimits limits;
};

/// Driver-specific switches; each driver reads the ones it knows.
struct DeviceOptions {
  /// Vulkan: create and use a VkPipelineCache for compute pipelines.
  bool pipelineCache = true;
  /// Vulkan: how long a submission may run before the device is declared
  /// lost (its work is then never waited for again, and nothing it uses is
  /// freed). The bench worker's watchdog is the backstop above this.
  uint32_t vulkanSubmitTimeoutMs = 60000;
  /// Vulkan: map device-local memory where the device allows it (unified
  /// memory, resizable BAR, lavapipe). false sends every host transfer of a
  /// device-local buffer through a staging copy, as on a discrete GPU
  /// without resizable BAR (tests use it to run that path on lavapipe).
  bool vulkanMapDeviceLocal = true;
  /// Vulkan: enable VK_KHR_pipeline_executable_properties where the device
  /// has it, so that executables created with captureStatistics report the
  /// driver's statistics (`kernel-bench inspect`).
  bool pipelineStatistics = false;
};

/// Unavailable when |device| cannot run export |exportIndex| of
/// |executableName| with the subgroup size |abi| requires (no subgroup size
/// control, a size outside [minSubgroupSize, maxSubgroupSize], full
/// subgroups unsupported): nothing is wrong with the kernel, this device
/// just cannot give it what it assumes, so runs and benchmarks are skipped
/// with this reason. Checked by the module layer when it picks a device and
/// by the drivers before creating a pipeline (never a dispatch on a wrong
/// size).
Status checkSubgroupSize(std::string_view executableName, size_t exportIndex,
                         const KernelAbi &abi, const DeviceProperties &device);

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

/// Created by Driver::createDevice; must not outlive its Driver, and every
/// object it creates must be destroyed before it. Not thread-safe.
class Device {
public:
  virtual ~Device() = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  virtual const DeviceProperties &properties() const = 0;

  /// Allocates |size| bytes (> 0). Contents are undefined until written.
  /// ResourceExhausted, before any driver call, when |size| exceeds
  /// limits.maxAllocationBytes.
  virtual StatusOr<std::shared_ptr<Buffer>> allocateBuffer(uint64_t size,
                                                           MemoryType type) = 0;
  /// Loads |spec|. Every export is checked against properties().limits
  /// (checkExportFitsDevice) before any driver call; a module the driver
  /// rejects is InvalidArgument with the driver's log (CUDA JIT error/info
  /// log, Vulkan result) in the message. Unimplemented for a format the
  /// driver cannot load (SPIR-V on CUDA).
  virtual StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) = 0;
  virtual StatusOr<std::unique_ptr<CommandBuffer>>
  createCommandBuffer(const CommandBufferOptions &options = {}) = 0;
  /// Unimplemented when the device has no timestamps (timestampValidBits 0).
  virtual StatusOr<std::shared_ptr<Timer>> createTimer(uint32_t slotCount) = 0;

  /// Whether this driver loads |format| at all (PTX/cubin: CUDA; SPIR-V:
  /// Vulkan).
  virtual bool supportsFormat(ExecutableFormat format) const = 0;

  /// Why executables created with captureStatistics report no driver
  /// statistics on this device; empty when they do (a Vulkan device opened
  /// with pipelineStatistics whose driver has
  /// VK_KHR_pipeline_executable_properties).
  virtual std::string driverStatisticsMissing() const {
    return "the " + properties().driver +
           " driver reports no statistics of its own";
  }

  /// A session that counts the GPU's performance counters over a range of
  /// work (counters.h). Unavailable, with the reason, where the driver or
  /// the host cannot count: a driver without counters (this default), no
  /// profiler library, or a host that restricts counters to administrators.
  virtual StatusOr<std::unique_ptr<CounterSession>> createCounterSession() {
    return unavailable(
        "hardware counters need the CUDA driver and NVIDIA's CUPTI; " +
        properties().driver +
        " has none here (run with --profile and the vendor's profiler)");
  }

protected:
  Device() = default;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_DEVICE_H_

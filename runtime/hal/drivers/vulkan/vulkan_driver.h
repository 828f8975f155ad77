//===- runtime/hal/drivers/vulkan/vulkan_driver.h - Vulkan backend --------===//
//
// Private to the Vulkan driver: the concrete HAL classes. The rest of the
// tree sees only createVulkanDriver() (through drivers/registration.h).
//
// Handles are owned by the class that created them and destroyed in its
// destructor (never throws). Every submission is waited for with a bounded
// fence wait; once one times out or faults the device is lost: later
// submissions are refused with that reason, and nothing is freed or waited
// for again (a shader may still be running: leaking is the safe choice).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_DRIVER_H_
#define KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_DRIVER_H_

#include "runtime/hal/driver.h"
#include "runtime/hal/drivers/vulkan/spirv_features.h"
#include "runtime/hal/drivers/vulkan/vulkan_memory.h"
#include "runtime/hal/drivers/vulkan/vulkan_symbols.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace kb::hal::vulkan {

StatusOr<std::unique_ptr<Driver>> createVulkanDriver(const DriverOptions &);

class VulkanDriver final : public Driver {
public:
  static StatusOr<std::unique_ptr<Driver>> create(const DriverOptions &options);
  ~VulkanDriver() override;

  const char *name() const override { return "vulkan"; }
  const std::vector<DeviceProperties> &devices() const override {
    return properties_;
  }
  StatusOr<std::unique_ptr<Device>>
  createDevice(uint32_t index, const DeviceOptions &options) override;

private:
  VulkanDriver() = default;
  /// The physical devices with a compute queue, described.
  Status enumerateDevices();
  InstanceSymbols syms_;
  /// Set by a device that was lost with work possibly still running: the
  /// instance is then leaked too (destroying it would free the device).
  std::shared_ptr<std::atomic<bool>> deviceLost_ =
      std::make_shared<std::atomic<bool>>(false);
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  /// The messenger's destination when the caller gave one (else stderr).
  std::shared_ptr<ValidationLog> validationLog_;
  /// The layer's settings file while the driver lives (debug printf).
  std::shared_ptr<void> layerSettings_;
  uint32_t instanceApiVersion_ =
      VK_API_VERSION_1_0; // what the instance asked for
  std::vector<VkPhysicalDevice> physicalDevices_;
  std::vector<uint32_t> queueFamilies_; // compute queue family per device
  std::vector<DeviceProperties> properties_;
};

class VulkanDevice final : public Device {
public:
  static StatusOr<std::unique_ptr<Device>>
  create(const InstanceSymbols &instanceSyms, VkPhysicalDevice physical,
         uint32_t queueFamily, uint32_t instanceApiVersion,
         const DeviceProperties &properties, const DeviceOptions &options,
         std::shared_ptr<std::atomic<bool>> driverLost);
  ~VulkanDevice() override;

  const DeviceProperties &properties() const override { return properties_; }
  StatusOr<std::shared_ptr<Buffer>> allocateBuffer(uint64_t size,
                                                   MemoryType type) override;
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override;
  StatusOr<std::unique_ptr<CommandBuffer>>
  createCommandBuffer(const CommandBufferOptions &options) override;
  StatusOr<std::shared_ptr<Timer>> createTimer(uint32_t slotCount) override;
  bool supportsFormat(ExecutableFormat format) const override {
    return format == ExecutableFormat::Spirv;
  }
  /// The API version and features the VkDevice was created with (what a
  /// SPIR-V module may use).
  const EnabledFeatures &enabledFeatures() const { return features_; }

  // Shared with the other classes of this driver.
  const DeviceSymbols &syms() const { return syms_; }
  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool commandPool() const { return commandPool_; }
  VkPipelineCache pipelineCache() const { return pipelineCache_; }
  /// chooseMemoryType over this device's heaps and what it has allocated.
  StatusOr<MemoryChoice> chooseMemory(uint32_t typeBits, MemoryUse use,
                                      uint64_t size) const;
  /// Bookkeeping of live allocations per heap (VulkanBuffer).
  void allocated(uint32_t heap, uint64_t bytes);
  void freed(uint32_t heap, uint64_t bytes);
  /// FailedPrecondition with the reason once the device is lost.
  Status checkUsable() const;
  bool lost() const { return !lost_.empty(); }
  /// Makes the writes of earlier submissions (shaders, transfers) visible to
  /// the shader and transfer accesses recorded after it in |cb|: a fence
  /// wait alone makes them available to the host, not visible to the device.
  void recordVisibilityBarrier(VkCommandBuffer cb) const;
  /// The label commands (VK_EXT_debug_utils); null, with |labelsMissing|
  /// saying why, when the driver did not enable the extension.
  PFN_vkCmdBeginDebugUtilsLabelEXT cmdBeginLabel() const {
    return cmdBeginLabel_;
  }
  PFN_vkCmdEndDebugUtilsLabelEXT cmdEndLabel() const { return cmdEndLabel_; }
  const std::string &labelsMissing() const { return labelsMissing_; }
  /// Why pipelines cannot report the driver's statistics (no
  /// VK_KHR_pipeline_executable_properties, or not asked for); empty when
  /// they can (DeviceOptions::pipelineStatistics).
  const std::string &statisticsMissing() const { return statisticsMissing_; }
  std::string driverStatisticsMissing() const override {
    return statisticsMissing_;
  }
  /// Records |record| into a one-time command buffer, submits it and waits.
  Status runOnce(const std::function<void(VkCommandBuffer)> &record,
                 const std::string &what);
  /// Submits |commandBuffer| and waits on |fence| (reset first).
  Status submitAndWait(VkCommandBuffer commandBuffer, VkFence fence,
                       const std::string &what);
  /// Submits |commandBuffers| in order, in one batch, and waits on |fence|.
  Status submitAndWait(const std::vector<VkCommandBuffer> &commandBuffers,
                       VkFence fence, const std::string &what);

private:
  VulkanDevice() = default;
  /// Marks the device lost because of |why| (a timeout or a fault).
  void markLost(const std::string &why);

  DeviceProperties properties_;
  DeviceSymbols syms_;
  VkPhysicalDeviceMemoryProperties memory_{};
  MemoryBudget budget_;
  uint64_t submitTimeoutNs_ = 0;
  bool mapDeviceLocal_ = true;
  std::string lost_; // why the device is unusable; empty while it is fine
  std::string statisticsMissing_ =
      "the device was opened without pipeline statistics";
  std::shared_ptr<std::atomic<bool>> driverLost_;
  EnabledFeatures features_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkPipelineCache pipelineCache_ = VK_NULL_HANDLE;
  VkFence onceFence_ = VK_NULL_HANDLE;
  PFN_vkCmdBeginDebugUtilsLabelEXT cmdBeginLabel_ = nullptr;
  PFN_vkCmdEndDebugUtilsLabelEXT cmdEndLabel_ = nullptr;
  std::string labelsMissing_;
};

/// Device memory backing one VkBuffer.
class VulkanBuffer final : public Buffer {
public:
  static StatusOr<std::unique_ptr<VulkanBuffer>>
  create(VulkanDevice &device, uint64_t size, MemoryType type);
  /// A buffer for |use| (staging buffers are Upload or Readback).
  static StatusOr<std::unique_ptr<VulkanBuffer>>
  create(VulkanDevice &device, uint64_t size, MemoryType type, MemoryUse use);
  ~VulkanBuffer() override;

  Status upload(uint64_t offset, const void *data, uint64_t length) override;
  Status download(uint64_t offset, void *data, uint64_t length) override;

  VkBuffer handle() const { return buffer_; }
  /// Bytes actually allocated (size rounded up to 4 for fills).
  uint64_t allocatedSize() const { return allocatedSize_; }
  /// The host mapping; null when host access is staged.
  void *mapped() const { return mapped_; }
  const MemoryChoice &memory() const { return choice_; }

private:
  VulkanBuffer(VulkanDevice &device, uint64_t size, MemoryType type)
      : Buffer(size, type), device_(device) {}
  Status staged(uint64_t offset, void *data, uint64_t length, bool upload);
  /// Non-coherent mappings: make host writes visible to the device, or the
  /// device's writes visible to the host.
  Status flush(bool afterHostWrite);
  VulkanDevice &device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void *mapped_ = nullptr; // non-null when the memory is host visible
  uint64_t allocatedSize_ = 0;
  uint64_t memoryBytes_ = 0; // what vkAllocateMemory took from the heap
  MemoryChoice choice_;
};

class VulkanExecutable final : public Executable {
public:
  static StatusOr<std::shared_ptr<Executable>>
  create(VulkanDevice &device, const ExecutableSpec &spec);
  ~VulkanExecutable() override;

  struct ExportPipeline {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    uint32_t pushConstantBytes = 0; // range size (multiple of 4)
    /// Constants in a uniform buffer (KernelAbi::uniformConstants): the
    /// binding it is bound at; nullopt when they are push constants.
    std::optional<uint32_t> uniformBinding;
  };
  const ExportPipeline &pipeline(size_t exportIndex) const {
    return pipelines_[exportIndex];
  }
  /// VK_KHR_pipeline_executable_properties of the export's pipeline.
  StatusOr<std::vector<DriverExecutable>>
  driverStatistics(size_t exportIndex) const override;

private:
  VulkanExecutable(VulkanDevice &device, const ExecutableSpec &spec)
      : Executable(spec), device_(device),
        captured_(spec.captureStatistics &&
                  device.statisticsMissing().empty()) {}
  VulkanDevice &device_;
  /// Pipelines were created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT.
  bool captured_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  std::vector<ExportPipeline> pipelines_;
};

class VulkanTimer final : public Timer {
public:
  static StatusOr<std::shared_ptr<Timer>> create(VulkanDevice &device,
                                                 uint32_t slotCount);
  ~VulkanTimer() override;
  StatusOr<double> elapsedNs(uint32_t begin, uint32_t end) override;
  VkQueryPool pool() const { return pool_; }

private:
  VulkanTimer(VulkanDevice &device, uint32_t slotCount)
      : Timer(slotCount), device_(device) {}
  StatusOr<uint64_t> read(uint32_t slot);
  VulkanDevice &device_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
};

class VulkanCommandBuffer final : public CommandBuffer {
public:
  static StatusOr<std::unique_ptr<CommandBuffer>> create(VulkanDevice &device);
  ~VulkanCommandBuffer() override;

  Status dispatch(const DispatchParams &params) override;
  Status barrier() override;
  Status fillBuffer(Buffer &buffer, uint64_t offset, uint64_t length,
                    uint32_t pattern) override;
  Status copyBuffer(Buffer &source, uint64_t sourceOffset, Buffer &target,
                    uint64_t targetOffset, uint64_t length) override;
  Status writeTimestamp(Timer &timer, uint32_t slot) override;
  Status beginLabel(const std::string &name) override;
  Status endLabel() override;
  Status submitAndWait() override;
  Status reset() override;
  size_t dispatchCount() const override { return labels_.size(); }

private:
  explicit VulkanCommandBuffer(VulkanDevice &device) : device_(device) {}
  Status checkRecording(const char *what) const;
  StatusOr<VkDescriptorSet> allocateSet(VkDescriptorSetLayout layout,
                                        uint32_t bindings);
  void destroyPools();
  /// The dispatch's constants packed at their uniform-block offsets in a
  /// slice of a host-visible buffer this command buffer owns until reset().
  StatusOr<VkDescriptorBufferInfo> uniformSlice(const DispatchParams &params);
  /// Writes |set| (storage buffers, and the uniform block of constants
  /// when the export takes them so) for |params|.
  Status writeDescriptors(const DispatchParams &params,
                          const VulkanExecutable::ExportPipeline &p,
                          VkDescriptorSet set);
  /// Records the resets of every timestamp slot written into |prologue_|.
  Status recordPrologue();

  VulkanDevice &device_;
  VkCommandBuffer commandBuffer_ = VK_NULL_HANDLE;
  /// Submitted right before |commandBuffer_| in the same batch: it resets
  /// the timestamp queries the main one writes, so that nothing but the
  /// recorded work lies between two timestamps (a query must be reset
  /// before each write; a reset inside the timed region would be timed).
  VkCommandBuffer prologue_ = VK_NULL_HANDLE;
  /// The (pool, slot) queries written since the last reset(), in order.
  std::vector<std::pair<VkQueryPool, uint32_t>> timedSlots_;
  VkFence fence_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> pools_;
  uint32_t setsLeftInPool_ = 0;
  uint32_t descriptorsLeftInPool_ = 0;
  /// Uniform buffers holding the dispatches' constants of exports that take
  /// them so, filled slice by slice (uniformSlice); freed on reset().
  std::vector<std::unique_ptr<VulkanBuffer>> uniformChunks_;
  uint64_t uniformChunkUsed_ = 0;
  bool ended_ = false;
  std::vector<std::string> labels_; // one per dispatch, for fault messages
  uint32_t openLabels_ = 0;         // beginLabel()s not yet ended
};

} // namespace kb::hal::vulkan

#endif // KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_DRIVER_H_

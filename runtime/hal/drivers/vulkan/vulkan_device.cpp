//===- runtime/hal/drivers/vulkan/vulkan_device.cpp - VkDevice ------------===//
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace kb::hal::vulkan {

namespace {

// Enable every feature the device has, so that kernels using 64-bit,
// 16-bit or 8-bit types run where the hardware allows them, except
// robustBufferAccess: its bounds checks would distort benchmarks.
// The same structs record what was enabled, for the SPIR-V capability
// check (spirv_features.h). |features| and |enabled| are chained into
// |info|, so they must outlive vkCreateDevice.
void enableAllFeatures(const InstanceSymbols &instanceSyms,
                       VkPhysicalDevice physical, uint32_t instanceApiVersion,
                       EnabledFeatures &enabled,
                       VkPhysicalDeviceFeatures2 &features,
                       VkDeviceCreateInfo &info) {
  VkPhysicalDeviceProperties physicalProps{};
  instanceSyms.vkGetPhysicalDeviceProperties(physical, &physicalProps);
  // What the application may use is capped by the instance's version.
  enabled.apiVersion = std::min(physicalProps.apiVersion, instanceApiVersion);
  enabled.v11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  enabled.v12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  enabled.v13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  if (instanceSyms.vkGetPhysicalDeviceFeatures2 &&
      enabled.apiVersion >= VK_API_VERSION_1_2) {
    features.pNext = &enabled.v11;
    enabled.v11.pNext = &enabled.v12;
    if (enabled.apiVersion >= VK_API_VERSION_1_3)
      enabled.v12.pNext = &enabled.v13;
    instanceSyms.vkGetPhysicalDeviceFeatures2(physical, &features);
    features.features.robustBufferAccess = VK_FALSE;
    enabled.core = features.features;
    info.pNext = &features;
  } else {
    instanceSyms.vkGetPhysicalDeviceFeatures(physical, &enabled.core);
    enabled.core.robustBufferAccess = VK_FALSE;
    info.pEnabledFeatures = &enabled.core;
  }
}

// The subgroup operations compute shaders may use (Vulkan 1.1 and later),
// for the SPIR-V capability check; left empty on older devices.
void queryComputeSubgroupOperations(const InstanceSymbols &instanceSyms,
                                    VkPhysicalDevice physical,
                                    EnabledFeatures &enabled) {
  if (!instanceSyms.vkGetPhysicalDeviceProperties2 ||
      enabled.apiVersion < VK_API_VERSION_1_1)
    return;
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &subgroup;
  instanceSyms.vkGetPhysicalDeviceProperties2(physical, &p2);
  if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
    enabled.computeSubgroupOperations = subgroup.supportedOperations;
}

/// VK_KHR_pipeline_executable_properties with its feature, chained into
/// |info| (|names| and |feature| must outlive vkCreateDevice), where the
/// device has both; otherwise why not.
std::string enableStatistics(
    const InstanceSymbols &instanceSyms, VkPhysicalDevice physical,
    std::vector<const char *> &names,
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR &feature,
    VkDeviceCreateInfo &info) {
  const char *extension = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
  uint32_t count = 0;
  instanceSyms.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count,
                                                    nullptr);
  std::vector<VkExtensionProperties> available(count);
  instanceSyms.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count,
                                                    available.data());
  available.resize(count);
  bool listed = std::any_of(
      available.begin(), available.end(), [&](const VkExtensionProperties &e) {
        return std::strcmp(e.extensionName, extension) == 0;
      });
  if (!listed || !instanceSyms.vkGetPhysicalDeviceFeatures2)
    return std::string("the driver does not offer ") + extension +
           ", through which Vulkan drivers report their statistics";
  feature = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  query.pNext = &feature;
  instanceSyms.vkGetPhysicalDeviceFeatures2(physical, &query);
  if (!feature.pipelineExecutableInfo)
    return std::string("the driver offers ") + extension +
           " without its pipelineExecutableInfo feature";
  feature.pNext = const_cast<void *>(info.pNext);
  info.pNext = &feature;
  names.push_back(extension);
  info.enabledExtensionCount = static_cast<uint32_t>(names.size());
  info.ppEnabledExtensionNames = names.data();
  return "";
}

} // namespace

StatusOr<std::unique_ptr<Device>> VulkanDevice::create(
    const InstanceSymbols &instanceSyms, VkPhysicalDevice physical,
    uint32_t queueFamily, uint32_t instanceApiVersion,
    const DeviceProperties &properties, const DeviceOptions &options,
    std::shared_ptr<std::atomic<bool>> driverLost) {
  std::unique_ptr<VulkanDevice> device(new VulkanDevice());
  device->properties_ = properties;
  device->driverLost_ = std::move(driverLost);
  device->submitTimeoutNs_ = uint64_t(options.vulkanSubmitTimeoutMs) * 1000000;
  device->mapDeviceLocal_ = options.vulkanMapDeviceLocal;
  device->budget_.maxAllocations = properties.limits.maxAllocationCount;
  device->cmdBeginLabel_ = instanceSyms.vkCmdBeginDebugUtilsLabelEXT;
  device->cmdEndLabel_ = instanceSyms.vkCmdEndDebugUtilsLabelEXT;
  if (!device->cmdBeginLabel_ || !device->cmdEndLabel_)
    device->labelsMissing_ = instanceSyms.labelsMissing;
  instanceSyms.vkGetPhysicalDeviceMemoryProperties(physical, &device->memory_);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  EnabledFeatures &enabled = device->features_;
  enableAllFeatures(instanceSyms, physical, instanceApiVersion, enabled,
                    features, info);
  queryComputeSubgroupOperations(instanceSyms, physical, enabled);
  std::vector<const char *> extensions;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR statistics{};
  if (options.pipelineStatistics)
    device->statisticsMissing_ =
        enableStatistics(instanceSyms, physical, extensions, statistics, info);
  KB_VK_RETURN_IF_ERROR(
      instanceSyms.vkCreateDevice(physical, &info, nullptr, &device->device_),
      "vkCreateDevice for " + properties.name);
  // The pNext chain pointed into |enabled|; it is a plain record from here.
  enabled.v11.pNext = enabled.v12.pNext = enabled.v13.pNext = nullptr;
  KB_RETURN_IF_ERROR(device->syms_.load(instanceSyms, device->device_));
  const DeviceSymbols &s = device->syms_;
  s.vkGetDeviceQueue(device->device_, queueFamily, 0, &device->queue_);

  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = queueFamily;
  KB_VK_RETURN_IF_ERROR(s.vkCreateCommandPool(device->device_, &pool, nullptr,
                                              &device->commandPool_),
                        "vkCreateCommandPool");
  if (options.pipelineCache) {
    VkPipelineCacheCreateInfo cache{
        VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    KB_VK_RETURN_IF_ERROR(s.vkCreatePipelineCache(device->device_, &cache,
                                                  nullptr,
                                                  &device->pipelineCache_),
                          "vkCreatePipelineCache");
  }
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  KB_VK_RETURN_IF_ERROR(
      s.vkCreateFence(device->device_, &fence, nullptr, &device->onceFence_),
      "vkCreateFence");
  return std::unique_ptr<Device>(std::move(device));
}

VulkanDevice::~VulkanDevice() {
  if (!device_)
    return;
  // A lost device may still be running the shader that timed out: waiting
  // for it could take forever and destroying the device would free what it
  // uses, so everything is left as it is (the process's end reclaims it).
  if (lost())
    return;
  // Every submission was waited for, so this returns at once; it only
  // covers work of a submit whose wait failed for another reason.
  if (syms_.vkDeviceWaitIdle)
    (void)syms_.vkDeviceWaitIdle(device_);
  if (onceFence_)
    syms_.vkDestroyFence(device_, onceFence_, nullptr);
  if (pipelineCache_)
    syms_.vkDestroyPipelineCache(device_, pipelineCache_, nullptr);
  if (commandPool_)
    syms_.vkDestroyCommandPool(device_, commandPool_, nullptr);
  if (syms_.vkDestroyDevice)
    syms_.vkDestroyDevice(device_, nullptr);
}

StatusOr<MemoryChoice> VulkanDevice::chooseMemory(uint32_t typeBits,
                                                  MemoryUse use,
                                                  uint64_t size) const {
  auto choice =
      chooseMemoryType(memory_, typeBits, use, size, budget_, mapDeviceLocal_);
  if (!choice.ok())
    return choice.status().withContext(properties_.name);
  return choice;
}

void VulkanDevice::allocated(uint32_t heap, uint64_t bytes) {
  budget_.heapUsed[heap] += bytes;
  ++budget_.liveAllocations;
}

void VulkanDevice::freed(uint32_t heap, uint64_t bytes) {
  budget_.heapUsed[heap] -= std::min(budget_.heapUsed[heap], bytes);
  if (budget_.liveAllocations)
    --budget_.liveAllocations;
}

Status VulkanDevice::checkUsable() const {
  if (lost_.empty())
    return okStatus();
  return failedPrecondition(properties_.driver + ":" +
                            std::to_string(properties_.index) +
                            " is lost: " + lost_ +
                            "; it takes no more work in this process (start "
                            "a new kernel-bench process)");
}

void VulkanDevice::markLost(const std::string &why) {
  if (lost_.empty())
    lost_ = why;
  if (driverLost_)
    *driverLost_ = true;
}

Status VulkanDevice::submitAndWait(VkCommandBuffer commandBuffer, VkFence fence,
                                   const std::string &what) {
  return submitAndWait(std::vector<VkCommandBuffer>{commandBuffer}, fence,
                       what);
}

Status
VulkanDevice::submitAndWait(const std::vector<VkCommandBuffer> &commandBuffers,
                            VkFence fence, const std::string &what) {
  KB_RETURN_IF_ERROR(checkUsable());
  KB_VK_RETURN_IF_ERROR(syms_.vkResetFences(device_, 1, &fence),
                        "vkResetFences");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = static_cast<uint32_t>(commandBuffers.size());
  submit.pCommandBuffers = commandBuffers.data();
  KB_VK_RETURN_IF_ERROR(syms_.vkQueueSubmit(queue_, 1, &submit, fence),
                        "vkQueueSubmit (" + what + ")");
  // Bounded (a minute by default, far beyond any benchmark dispatch): a
  // hang becomes an error instead of a stuck process.
  VkResult result =
      syms_.vkWaitForFences(device_, 1, &fence, VK_TRUE, submitTimeoutNs_);
  if (result == VK_TIMEOUT) {
    std::string why = what + " did not finish within " +
                      std::to_string(submitTimeoutNs_ / 1000000) + " ms";
    markLost(why);
    return deadlineExceeded(why + "; the device is treated as lost (the work "
                                  "may still be running)");
  }
  if (result == VK_ERROR_DEVICE_LOST) {
    markLost(what + " faulted: VK_ERROR_DEVICE_LOST");
    return internalError(what + " faulted: VK_ERROR_DEVICE_LOST (the kernel "
                                "crashed the device, e.g. an out-of-bounds "
                                "access); the device is unusable now");
  }
  if (result != VK_SUCCESS) {
    // Whether the work ended is unknown: treat it like a timeout.
    markLost("vkWaitForFences (" + what + ") returned " + vkResultName(result));
    KB_VK_RETURN_IF_ERROR(result, "vkWaitForFences (" + what + ")");
  }
  return okStatus();
}

void VulkanDevice::recordVisibilityBarrier(VkCommandBuffer cb) const {
  constexpr VkPipelineStageFlags kStages =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  syms_.vkCmdPipelineBarrier(cb, kStages, kStages, 0, 1, &b, 0, nullptr, 0,
                             nullptr);
}

Status VulkanDevice::runOnce(const std::function<void(VkCommandBuffer)> &record,
                             const std::string &what) {
  KB_RETURN_IF_ERROR(checkUsable());
  VkCommandBufferAllocateInfo alloc{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = commandPool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  KB_VK_RETURN_IF_ERROR(syms_.vkAllocateCommandBuffers(device_, &alloc, &cb),
                        "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  Status status = okStatus();
  VkResult r = syms_.vkBeginCommandBuffer(cb, &begin);
  if (r != VK_SUCCESS)
    status = vkResultToStatus(r, "vkBeginCommandBuffer");
  if (status.ok()) {
    recordVisibilityBarrier(cb);
    record(cb);
    r = syms_.vkEndCommandBuffer(cb);
    if (r != VK_SUCCESS)
      status = vkResultToStatus(r, "vkEndCommandBuffer");
  }
  if (status.ok())
    status = submitAndWait(cb, onceFence_, what);
  if (!lost()) // else the command buffer may still be executing: leak it
    syms_.vkFreeCommandBuffers(device_, commandPool_, 1, &cb);
  return status;
}

StatusOr<std::shared_ptr<Buffer>>
VulkanDevice::allocateBuffer(uint64_t size, MemoryType type) {
  KB_ASSIGN_OR_RETURN(auto buffer, VulkanBuffer::create(*this, size, type));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

StatusOr<std::shared_ptr<Executable>>
VulkanDevice::createExecutable(const ExecutableSpec &spec) {
  KB_RETURN_IF_ERROR(checkUsable());
  return VulkanExecutable::create(*this, spec);
}

StatusOr<std::unique_ptr<CommandBuffer>>
VulkanDevice::createCommandBuffer(const CommandBufferOptions &) {
  KB_RETURN_IF_ERROR(checkUsable());
  return VulkanCommandBuffer::create(*this);
}

StatusOr<std::shared_ptr<Timer>> VulkanDevice::createTimer(uint32_t slotCount) {
  KB_RETURN_IF_ERROR(checkUsable());
  return VulkanTimer::create(*this, slotCount);
}

} // namespace kb::hal::vulkan

//===- runtime/hal/drivers/vulkan/vulkan_driver.cpp - Instance, devices ---===//
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include "common/file_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace kb::hal::vulkan {

namespace {

const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *userData) {
  bool error = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  bool info = severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  const char *text = data && data->pMessage ? data->pMessage : "(no message)";
  if (userData)
    static_cast<ValidationLog *>(userData)->add(error, info, text);
  else if (!info)
    std::fprintf(stderr, "vulkan validation %s: %s\n",
                 error ? "error" : "warning", text);
  return VK_FALSE;
}

/// GPU-assisted validation (out-of-bounds shader accesses; its descriptor set
/// takes the last slot, which kernels here never use: they bind set 0) and
/// synchronization validation, chained into the instance's create info.
const VkValidationFeatureEnableEXT kGpuValidation[] = {
    VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT,
    VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_RESERVE_BINDING_SLOT_EXT,
    VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
};
const VkValidationFeatureEnableEXT kDebugPrintf[] = {
    VK_VALIDATION_FEATURE_ENABLE_DEBUG_PRINTF_EXT,
};

std::string versionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
         std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string vendorName(uint32_t id) {
  switch (id) {
  case 0x10DE:
    return "NVIDIA";
  case 0x1002:
    return "AMD";
  case 0x8086:
    return "Intel";
  case 0x13B5:
    return "ARM";
  case 0x5143:
    return "Qualcomm";
  case 0x106B:
    return "Apple";
  case 0x10005:
    return "Mesa";
  default: {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%04X", id);
    return buf;
  }
  }
}

DeviceType deviceType(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return DeviceType::DiscreteGpu;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return DeviceType::IntegratedGpu;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return DeviceType::VirtualGpu;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return DeviceType::Cpu;
  default:
    return DeviceType::Other;
  }
}

std::string driverVersionString(uint32_t vendor, uint32_t v) {
  if (vendor == 0x10DE) // NVIDIA packs 10.8.8.6 bits
    return std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xff) +
           "." + std::to_string((v >> 6) & 0xff);
  return versionString(v);
}

/// The subgroup sizes a compute pipeline may require (Vulkan 1.3
/// subgroupSizeControl with compute in requiredSubgroupSizeStages) and
/// whether it may require full subgroups; left 0/false otherwise.
void querySubgroupSizeControl(const InstanceSymbols &syms, VkPhysicalDevice pd,
                              uint32_t apiVersion, DeviceProperties &props) {
  if (apiVersion < VK_API_VERSION_1_3 || !syms.vkGetPhysicalDeviceFeatures2 ||
      !syms.vkGetPhysicalDeviceProperties2)
    return;
  VkPhysicalDeviceVulkan13Features features13{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &features13;
  syms.vkGetPhysicalDeviceFeatures2(pd, &features);
  VkPhysicalDeviceVulkan13Properties properties13{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &properties13;
  syms.vkGetPhysicalDeviceProperties2(pd, &p2);
  if (!features13.subgroupSizeControl ||
      !(properties13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT))
    return;
  props.minSubgroupSize = properties13.minSubgroupSize;
  props.maxSubgroupSize = properties13.maxSubgroupSize;
  props.fullSubgroups = features13.computeFullSubgroups == VK_TRUE;
}

/// The validation layer and the debug-utils extension, or why they cannot
/// be had.
Status requireValidationLayer(InstanceSymbols &syms,
                              std::vector<const char *> &layers,
                              std::vector<const char *> &extensions) {
  uint32_t count = 0;
  syms.vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> available(count);
  syms.vkEnumerateInstanceLayerProperties(&count, available.data());
  bool found = false;
  for (const VkLayerProperties &l : available)
    found |= std::strcmp(l.layerName, kValidationLayer) == 0;
  if (!found)
    return failedPrecondition(
        std::string("the Vulkan validation layer (") + kValidationLayer +
        ", which --vk-validation and --sanitize use) is not installed; "
        "install Debian's vulkan-validationlayers package (scripts/setup.sh "
        "does)");
  layers.push_back(kValidationLayer);
  extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  return okStatus();
}

/// A compute queue family of |pd|, preferring one that has timestamps; none
/// when the device has no compute queue.
std::optional<uint32_t> computeQueueFamily(InstanceSymbols &syms,
                                           VkPhysicalDevice pd) {
  uint32_t familyCount = 0;
  syms.vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  syms.vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount,
                                                families.data());
  std::optional<uint32_t> family;
  for (uint32_t i = 0; i < familyCount; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
      continue;
    if (!family || (families[*family].timestampValidBits == 0 &&
                    families[i].timestampValidBits != 0))
      family = i;
  }
  return family;
}

/// Fills the 1.1 properties (subgroup size, UUID, maximum allocation).
/// Properties2 is core 1.1: both the instance and the device need it.
void queryProperties11(InstanceSymbols &syms, VkPhysicalDevice pd,
                       uint32_t apiVersion, uint32_t deviceApiVersion,
                       uint64_t largestHeap, DeviceProperties &props) {
  if (!syms.vkGetPhysicalDeviceProperties2 || apiVersion < VK_API_VERSION_1_1 ||
      deviceApiVersion < VK_API_VERSION_1_1)
    return;
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceIDProperties id{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  subgroup.pNext = &maintenance3;
  maintenance3.pNext = &id;
  VkPhysicalDeviceProperties2 p2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &subgroup;
  syms.vkGetPhysicalDeviceProperties2(pd, &p2);
  props.subgroupSize = subgroup.subgroupSize;
  props.uuid = formatUuid(id.deviceUUID);
  if (maintenance3.maxMemoryAllocationSize)
    props.limits.maxAllocationBytes =
        std::min<uint64_t>(largestHeap, maintenance3.maxMemoryAllocationSize);
}

/// What kernel-bench knows of |pd|: identity, memory, limits, subgroups and
/// timestamps of queue family |family|.
DeviceProperties describeDevice(InstanceSymbols &syms, VkPhysicalDevice pd,
                                uint32_t apiVersion, uint32_t family,
                                uint32_t index) {
  VkPhysicalDeviceProperties p{};
  syms.vkGetPhysicalDeviceProperties(pd, &p);
  VkPhysicalDeviceMemoryProperties mem{};
  syms.vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  uint32_t familyCount = 0;
  syms.vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  syms.vkGetPhysicalDeviceQueueFamilyProperties(pd, &familyCount,
                                                families.data());

  DeviceProperties props;
  props.driver = "vulkan";
  props.index = index;
  props.name = p.deviceName;
  props.vendor = vendorName(p.vendorID);
  props.vendorId = p.vendorID;
  props.deviceId = p.deviceID;
  props.type = deviceType(p.deviceType);
  props.apiVersion = versionString(p.apiVersion);
  props.driverVersion = driverVersionString(p.vendorID, p.driverVersion);
  // The largest device-local heap is the device's memory (a BAR heap
  // aliases it) and bounds any one allocation.
  uint64_t largestHeap = deviceLocalBytes(mem);
  props.memoryBytes = largestHeap;
  props.limits.maxAllocationBytes = largestHeap;
  props.limits.maxAllocationCount = p.limits.maxMemoryAllocationCount;
  queryProperties11(syms, pd, apiVersion, p.apiVersion, largestHeap, props);
  querySubgroupSizeControl(syms, pd, std::min(apiVersion, p.apiVersion), props);
  props.timestampPeriodNs = p.limits.timestampPeriod;
  // The queue family's timestampValidBits alone says whether its queues
  // write timestamps (0 = not at all).
  props.timestampValidBits = families[family].timestampValidBits;
  DeviceLimits &l = props.limits;
  for (int i = 0; i < 3; ++i) {
    l.maxWorkgroupSize[i] = p.limits.maxComputeWorkGroupSize[i];
    l.maxWorkgroupCount[i] = p.limits.maxComputeWorkGroupCount[i];
  }
  l.maxWorkgroupInvocations = p.limits.maxComputeWorkGroupInvocations;
  l.maxSharedMemoryBytes = p.limits.maxComputeSharedMemorySize;
  l.maxConstantBytes = p.limits.maxPushConstantsSize;
  l.maxBindings = p.limits.maxPerStageDescriptorStorageBuffers;
  l.maxBindingRange = p.limits.maxStorageBufferRange;
  l.minBindingOffsetAlignment = p.limits.minStorageBufferOffsetAlignment;
  return props;
}

/// The layer (1.3.239) reads printf_verbose, which puts the invocation that
/// printed in each line, only from a settings file: one is written to a
/// private directory named by VK_LAYER_SETTINGS_PATH for the driver's life,
/// then removed and the variable restored. Lines go to the
/// messenger, never to stdout, where they would mix with the report.
class PrintfSettings {
public:
  static StatusOr<PrintfSettings> apply() {
    KB_ASSIGN_OR_RETURN(TempDir dir,
                        TempDir::create(std::filesystem::temp_directory_path(),
                                        "kb-vk-printf-"));
    KB_RETURN_IF_ERROR(
        writeFileAtomic(dir.path() / "vk_layer_settings.txt",
                        "khronos_validation.printf_verbose = true\n"
                        "khronos_validation.printf_to_stdout = false\n"));
    const char *previous = std::getenv(kVariable);
    PrintfSettings settings(std::move(dir), previous);
    ::setenv(kVariable, settings.dir_.path().c_str(), 1);
    return settings;
  }
  PrintfSettings(PrintfSettings &&) = default;
  PrintfSettings &operator=(PrintfSettings &&) = default;
  ~PrintfSettings() {
    if (dir_.path().empty())
      return; // moved from
    if (previous_)
      ::setenv(kVariable, previous_->c_str(), 1);
    else
      ::unsetenv(kVariable);
  }

private:
  static constexpr const char *kVariable = "VK_LAYER_SETTINGS_PATH";
  PrintfSettings(TempDir dir, const char *previous) : dir_(std::move(dir)) {
    if (previous)
      previous_ = previous;
  }
  TempDir dir_;
  std::optional<std::string> previous_;
};

/// The validation layer and, for --sanitize, its features (GPU-assisted
/// validation or debug printf, through VK_EXT_validation_features, which the
/// layer provides: 1.3.239 has no VK_EXT_layer_settings).
Status enableValidation(InstanceSymbols &syms, const DriverOptions &options,
                        std::vector<const char *> &layers,
                        std::vector<const char *> &extensions,
                        VkValidationFeaturesEXT &features) {
  KB_RETURN_IF_ERROR(requireValidationLayer(syms, layers, extensions));
  if (options.vulkanGpuValidation) {
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    features.enabledValidationFeatureCount =
        sizeof kGpuValidation / sizeof kGpuValidation[0];
    features.pEnabledValidationFeatures = kGpuValidation;
  } else if (options.vulkanDebugPrintf) {
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = kDebugPrintf;
  }
  return okStatus();
}

bool hasExtension(const std::vector<const char *> &extensions,
                  const char *name) {
  for (const char *e : extensions)
    if (std::strcmp(e, name) == 0)
      return true;
  return false;
}

/// VK_EXT_debug_utils for command-buffer labels, added to |extensions|
/// unless the validation layer brought it already; why not when the
/// instance does not offer it (the loader usually does).
std::string enableLabels(InstanceSymbols &syms,
                         std::vector<const char *> &extensions) {
  if (hasExtension(extensions, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
    return "";
  uint32_t count = 0;
  syms.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> available(count);
  syms.vkEnumerateInstanceExtensionProperties(nullptr, &count,
                                              available.data());
  for (const VkExtensionProperties &e : available)
    if (std::strcmp(e.extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0) {
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
      return "";
    }
  return "the Vulkan instance does not offer VK_EXT_debug_utils, which "
         "command-buffer labels need";
}

/// The label commands stay only where the instance has VK_EXT_debug_utils
/// (a loader may resolve them either way).
void keepLabelsIfEnabled(InstanceSymbols &syms,
                         const std::vector<const char *> &extensions,
                         const std::string &why) {
  if (hasExtension(extensions, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
    return;
  syms.vkCmdBeginDebugUtilsLabelEXT = nullptr;
  syms.vkCmdEndDebugUtilsLabelEXT = nullptr;
  if (!why.empty())
    syms.labelsMissing = why;
}

/// The validation layer's messages to |log|, or to stderr without one.
Status createMessenger(InstanceSymbols &syms, VkInstance instance,
                       ValidationLog *log, bool withInfo,
                       VkDebugUtilsMessengerEXT &messenger) {
  if (!syms.vkCreateDebugUtilsMessengerEXT)
    return okStatus();
  VkDebugUtilsMessengerCreateInfoEXT m{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  if (withInfo)
    m.messageSeverity |= VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
  m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                  VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  m.pfnUserCallback = debugCallback;
  m.pUserData = log;
  KB_VK_RETURN_IF_ERROR(
      syms.vkCreateDebugUtilsMessengerEXT(instance, &m, nullptr, &messenger),
      "vkCreateDebugUtilsMessengerEXT");
  return okStatus();
}

} // namespace

StatusOr<std::unique_ptr<Driver>>
createVulkanDriver(const DriverOptions &options) {
  return VulkanDriver::create(options);
}

StatusOr<std::unique_ptr<Driver>>
VulkanDriver::create(const DriverOptions &options) {
  std::unique_ptr<VulkanDriver> driver(new VulkanDriver());
  KB_ASSIGN_OR_RETURN(driver->syms_, InstanceSymbols::load());
  InstanceSymbols &syms = driver->syms_;

  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (syms.vkEnumerateInstanceVersion)
    syms.vkEnumerateInstanceVersion(&loaderVersion);
  uint32_t apiVersion =
      loaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loaderVersion;

  std::vector<const char *> layers, extensions;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  bool validation = options.vulkanValidation || options.vulkanGpuValidation ||
                    options.vulkanDebugPrintf;
  if (validation)
    KB_RETURN_IF_ERROR(
        enableValidation(syms, options, layers, extensions, features));
  driver->validationLog_ = options.validationLog;
  std::string noLabels =
      options.debugLabels ? enableLabels(syms, extensions) : std::string();

  driver->instanceApiVersion_ = apiVersion;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "kernel-bench";
  app.apiVersion = apiVersion;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (features.enabledValidationFeatureCount)
    info.pNext = &features;
  // The layer reads its settings once per process, at the first instance:
  // a --sanitize run's first driver (GPU-assisted) already needs them for
  // its printf pass.
  if (options.vulkanDebugPrintf || options.vulkanGpuValidation) {
    KB_ASSIGN_OR_RETURN(PrintfSettings settings, PrintfSettings::apply());
    driver->layerSettings_ =
        std::make_shared<PrintfSettings>(std::move(settings));
  }
  VkResult result = syms.vkCreateInstance(&info, nullptr, &driver->instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    return unavailable(
        "vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER "
        "(no Vulkan driver/ICD found; on a GPU host set "
        "VK_DRIVER_FILES to the vendor's ICD json; tests/gpu/README.md)");
  KB_VK_RETURN_IF_ERROR(result, "vkCreateInstance");
  KB_RETURN_IF_ERROR(syms.loadInstance(driver->instance_));
  keepLabelsIfEnabled(syms, extensions, noLabels);

  if (validation)
    KB_RETURN_IF_ERROR(
        createMessenger(syms, driver->instance_, driver->validationLog_.get(),
                        options.vulkanDebugPrintf, driver->messenger_));

  KB_RETURN_IF_ERROR(driver->enumerateDevices());
  return std::unique_ptr<Driver>(std::move(driver));
}

Status VulkanDriver::enumerateDevices() {
  uint32_t count = 0;
  KB_VK_RETURN_IF_ERROR(
      syms_.vkEnumeratePhysicalDevices(instance_, &count, nullptr),
      "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physical(count);
  KB_VK_RETURN_IF_ERROR(
      syms_.vkEnumeratePhysicalDevices(instance_, &count, physical.data()),
      "vkEnumeratePhysicalDevices");
  for (VkPhysicalDevice pd : physical) {
    std::optional<uint32_t> family = computeQueueFamily(syms_, pd);
    if (!family)
      continue; // a device without compute queues is of no use here
    DeviceProperties props =
        describeDevice(syms_, pd, instanceApiVersion_, *family,
                       static_cast<uint32_t>(physicalDevices_.size()));
    physicalDevices_.push_back(pd);
    queueFamilies_.push_back(*family);
    properties_.push_back(std::move(props));
  }
  if (properties_.empty())
    return unavailable("the Vulkan loader found no device with a compute "
                       "queue (install mesa-vulkan-drivers for lavapipe, or a "
                       "GPU driver)");
  return okStatus();
}

VulkanDriver::~VulkanDriver() {
  // A lost device was left alive (its shader may still run); the instance
  // that owns it stays too.
  if (deviceLost_->load()) {
    // Nor is the loader unmapped (dlclose) under the ICD's running threads.
    (void)new InstanceSymbols(std::move(syms_));
    return;
  }
  if (messenger_ && syms_.vkDestroyDebugUtilsMessengerEXT)
    syms_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_ && syms_.vkDestroyInstance)
    syms_.vkDestroyInstance(instance_, nullptr);
}

StatusOr<std::unique_ptr<Device>>
VulkanDriver::createDevice(uint32_t index, const DeviceOptions &options) {
  if (index >= physicalDevices_.size())
    return outOfRange("vulkan:" + std::to_string(index) +
                      " does not exist; the driver has " +
                      std::to_string(physicalDevices_.size()) + " device(s)");
  return VulkanDevice::create(syms_, physicalDevices_[index],
                              queueFamilies_[index], instanceApiVersion_,
                              properties_[index], options, deviceLost_);
}

} // namespace kb::hal::vulkan

//===- vulkan_statistics_layer.cpp - Pipeline statistics for lavapipe -----===//
//
// Test-only: an explicit Vulkan layer (VK_LAYER_KB_executable_statistics,
// enabled by the test through VK_LAYER_PATH and VK_INSTANCE_LAYERS) that
// stands in for a driver implementing VK_KHR_pipeline_executable_properties.
// NVIDIA's driver and RADV report their own statistics of a compiled pipeline
// through it and `inspect` shows them; lavapipe, the only driver on the test
// machines, does not implement it. So this layer advertises the extension and
// its feature, keeps it and the capture flags away from lavapipe, and reports
// one executable per compute pipeline created with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR, with four statistics, one in
// each statistic format, made from what the pipeline was created from:
//
//   SPIR-V words          UINT64   the module's codeSize / 4
//   Specialized           BOOL32   whether it had specialization map entries
//   Words (thousands)     FLOAT64  SPIR-V words / 1000
//   Entry point length    INT64    strlen of the compute stage's pName
//
// No internal representations are reported. Every other call is passed on to
// the next layer or the driver unchanged.
//
//===----------------------------------------------------------------------===//
#define VK_NO_PROTOTYPES
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "tests/support/vulkan_layer_link.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace {

const char *const LayerName = "VK_LAYER_KB_executable_statistics";
const VkExtensionProperties Extension = {
    VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME, 1};
const VkPipelineCreateFlags CaptureFlags =
    VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
    VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;

/// The next layer's (or the driver's) entry points of one instance; its
/// physical devices share its dispatch key.
struct InstanceNext {
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
  PFN_vkEnumerateDeviceExtensionProperties enumerateDeviceExtensions = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 getFeatures2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2KHR getFeatures2KHR = nullptr;
};

/// The next layer's (or the driver's) entry points of one device.
struct DeviceNext {
  PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
  PFN_vkCreateShaderModule createShaderModule = nullptr;
  PFN_vkDestroyShaderModule destroyShaderModule = nullptr;
  PFN_vkCreateComputePipelines createComputePipelines = nullptr;
  PFN_vkDestroyPipeline destroyPipeline = nullptr;
  /// Whether the application enabled the extension: only then does the
  /// device hand out its commands, as a driver's would.
  bool extensionEnabled = false;
};

/// What the statistics of one pipeline created with the capture flag are
/// made from.
struct Captured {
  uint64_t words = 0;
  bool specialized = false;
  std::string entryPoint;
};

std::mutex mutex;
// Keyed by the loader's dispatch table pointer, which an instance (device)
// shares with its physical devices (queues and command buffers).
std::map<void *, InstanceNext> instances;
std::map<void *, DeviceNext> devices;
std::map<VkShaderModule, size_t> moduleBytes;
std::map<VkPipeline, Captured> captured;

using kb::test::vulkan_layer::dispatchKey;
namespace vulkan_layer = kb::test::vulkan_layer;

InstanceNext &instanceOf(const void *handle) {
  std::lock_guard<std::mutex> lock(mutex);
  return instances[dispatchKey(handle)];
}

DeviceNext &deviceOf(const void *handle) {
  std::lock_guard<std::mutex> lock(mutex);
  return devices[dispatchKey(handle)];
}

/// Copies |text| into a fixed-size string member, cut to fit.
template <size_t N> void setText(char (&target)[N], const char *text) {
  std::strncpy(target, text, N - 1);
  target[N - 1] = '\0';
}

/// The count-query protocol of Vulkan's enumerations: with no |out|, the
/// count; else as many as fit, and VK_INCOMPLETE when not all did. Output
/// structures keep the sType and pNext the application gave them.
template <typename T>
VkResult copyOut(const std::vector<T> &all, uint32_t *count, T *out) {
  if (!out) {
    *count = static_cast<uint32_t>(all.size());
    return VK_SUCCESS;
  }
  uint32_t written = std::min(*count, static_cast<uint32_t>(all.size()));
  for (uint32_t i = 0; i < written; ++i) {
    T filled = all[i];
    if constexpr (!std::is_same_v<T, VkExtensionProperties>) {
      filled.sType = out[i].sType;
      filled.pNext = out[i].pNext;
    }
    out[i] = filled;
  }
  *count = written;
  return written < all.size() ? VK_INCOMPLETE : VK_SUCCESS;
}

/// The structure of |type| in |head|'s pNext chain and the one before it,
/// which links to it; both null when the chain has none.
std::pair<VkBaseOutStructure *, VkBaseOutStructure *>
findInChain(const void *head, VkStructureType type) {
  auto *before = static_cast<VkBaseOutStructure *>(const_cast<void *>(head));
  for (; before->pNext; before = before->pNext)
    if (before->pNext->sType == type)
      return {before, before->pNext};
  return {nullptr, nullptr};
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(
    VkPhysicalDevice physical, const char *layerName, uint32_t *count,
    VkExtensionProperties *properties) {
  if (layerName && std::strcmp(layerName, LayerName) == 0)
    return copyOut(std::vector<VkExtensionProperties>{Extension}, count,
                   properties);
  PFN_vkEnumerateDeviceExtensionProperties next =
      instanceOf(physical).enumerateDeviceExtensions;
  if (layerName)
    return next(physical, layerName, count, properties);
  // The driver's own list, plus the extension unless the driver has it: the
  // layer stands in for a driver that implements it, so an application's
  // plain query (no layer name) must see it, as it would on such a driver.
  uint32_t driverCount = 0;
  VkResult result = next(physical, nullptr, &driverCount, nullptr);
  if (result != VK_SUCCESS)
    return result;
  std::vector<VkExtensionProperties> all(driverCount);
  result = next(physical, nullptr, &driverCount, all.data());
  if (result != VK_SUCCESS)
    return result;
  all.resize(driverCount);
  if (std::none_of(all.begin(), all.end(), [](const VkExtensionProperties &e) {
        return std::strcmp(e.extensionName, Extension.extensionName) == 0;
      }))
    all.push_back(Extension);
  return copyOut(all, count, properties);
}

/// Calls |next| with the extension's feature structure unlinked from
/// |features|, so that the driver never sees a structure it does not know,
/// then relinks it and reports the feature supported.
template <typename F>
void getFeatures(F next, VkPhysicalDevice physical,
                 VkPhysicalDeviceFeatures2 *features) {
  auto [before, ours] = findInChain(
      features,
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  if (ours)
    before->pNext = ours->pNext;
  next(physical, features);
  if (!ours)
    return;
  before->pNext = ours;
  reinterpret_cast<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR *>(
      ours)
      ->pipelineExecutableInfo = VK_TRUE;
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2(
    VkPhysicalDevice physical, VkPhysicalDeviceFeatures2 *features) {
  getFeatures(instanceOf(physical).getFeatures2, physical, features);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2KHR(
    VkPhysicalDevice physical, VkPhysicalDeviceFeatures2 *features) {
  getFeatures(instanceOf(physical).getFeatures2KHR, physical, features);
}

VKAPI_ATTR VkResult VKAPI_CALL
CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *ci,
                   const VkAllocationCallbacks *a, VkShaderModule *module) {
  VkResult result = deviceOf(device).createShaderModule(device, ci, a, module);
  if (result == VK_SUCCESS) {
    std::lock_guard<std::mutex> lock(mutex);
    moduleBytes[*module] = ci->codeSize;
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyShaderModule(VkDevice device,
                                               VkShaderModule module,
                                               const VkAllocationCallbacks *a) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    moduleBytes.erase(module);
  }
  deviceOf(device).destroyShaderModule(device, module, a);
}

/// What a pipeline created from |ci| reports. A stage may give its SPIR-V
/// inline, a VkShaderModuleCreateInfo in its pNext, in place of a module.
Captured captureOf(const VkComputePipelineCreateInfo &ci) {
  Captured capture;
  size_t bytes = 0;
  if (ci.stage.module != VK_NULL_HANDLE) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = moduleBytes.find(ci.stage.module);
    bytes = found == moduleBytes.end() ? 0 : found->second;
  } else if (auto [before, code] = findInChain(
                 &ci.stage, VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
             code) {
    bytes = reinterpret_cast<VkShaderModuleCreateInfo *>(code)->codeSize;
  }
  capture.words = bytes / 4;
  capture.specialized = ci.stage.pSpecializationInfo &&
                        ci.stage.pSpecializationInfo->mapEntryCount > 0;
  capture.entryPoint = ci.stage.pName ? ci.stage.pName : "";
  return capture;
}

VKAPI_ATTR VkResult VKAPI_CALL
CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                       const VkComputePipelineCreateInfo *cis,
                       const VkAllocationCallbacks *a, VkPipeline *pipelines) {
  // lavapipe gets the create infos without the capture flags, which it does
  // not know; the layer does the capturing.
  std::vector<VkComputePipelineCreateInfo> stripped(cis, cis + count);
  for (VkComputePipelineCreateInfo &ci : stripped)
    ci.flags &= ~CaptureFlags;
  VkResult result = deviceOf(device).createComputePipelines(
      device, cache, count, stripped.data(), a, pipelines);
  // Even a failed call may have created some of the pipelines.
  for (uint32_t i = 0; i < count; ++i) {
    if (pipelines[i] == VK_NULL_HANDLE ||
        !(cis[i].flags & VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR))
      continue;
    Captured capture = captureOf(cis[i]);
    std::lock_guard<std::mutex> lock(mutex);
    captured[pipelines[i]] = std::move(capture);
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyPipeline(VkDevice device, VkPipeline pipeline,
                                           const VkAllocationCallbacks *a) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    captured.erase(pipeline);
  }
  deviceOf(device).destroyPipeline(device, pipeline, a);
}

/// What |pipeline| was created from; false for a pipeline created without
/// the capture-statistics flag (or not by this layer's device).
bool findCaptured(VkPipeline pipeline, Captured *capture) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = captured.find(pipeline);
  if (found == captured.end())
    return false;
  *capture = found->second;
  return true;
}

VKAPI_ATTR VkResult VKAPI_CALL GetPipelineExecutablePropertiesKHR(
    VkDevice, const VkPipelineInfoKHR *info, uint32_t *count,
    VkPipelineExecutablePropertiesKHR *properties) {
  std::vector<VkPipelineExecutablePropertiesKHR> all;
  Captured capture;
  if (findCaptured(info->pipeline, &capture)) {
    VkPipelineExecutablePropertiesKHR one = {};
    one.stages = VK_SHADER_STAGE_COMPUTE_BIT;
    setText(one.name, "Compute shader");
    setText(one.description,
            "KB statistics layer: the compute pipeline's one shader");
    one.subgroupSize = 32;
    all.push_back(one);
  }
  return copyOut(all, count, properties);
}

VkPipelineExecutableStatisticKHR
statistic(const char *name, const char *description,
          VkPipelineExecutableStatisticFormatKHR format) {
  VkPipelineExecutableStatisticKHR s = {};
  setText(s.name, name);
  setText(s.description, description);
  s.format = format;
  return s;
}

/// The four statistics of a captured pipeline's one executable, one in each
/// format, so that a test sees how each is shown.
std::vector<VkPipelineExecutableStatisticKHR>
statisticsOf(const Captured &capture) {
  std::vector<VkPipelineExecutableStatisticKHR> all;
  all.push_back(statistic(
      "SPIR-V words",
      "32-bit words of the SPIR-V module the pipeline was created from",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR));
  all.back().value.u64 = capture.words;
  all.push_back(statistic(
      "Specialized",
      "whether the pipeline was created with specialization constants",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR));
  all.back().value.b32 = capture.specialized ? VK_TRUE : VK_FALSE;
  all.push_back(statistic(
      "Words (thousands)",
      "SPIR-V words divided by 1000 (a made-up figure in FLOAT64 format, for "
      "tests)",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR));
  all.back().value.f64 = static_cast<double>(capture.words) / 1000.0;
  all.push_back(statistic(
      "Entry point length",
      "characters in the compute stage's entry point name (an INT64-format "
      "statistic, for tests)",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR));
  all.back().value.i64 = static_cast<int64_t>(capture.entryPoint.size());
  return all;
}

VKAPI_ATTR VkResult VKAPI_CALL GetPipelineExecutableStatisticsKHR(
    VkDevice, const VkPipelineExecutableInfoKHR *info, uint32_t *count,
    VkPipelineExecutableStatisticKHR *statistics) {
  // The commands have no error for an unknown pipeline or executable index
  // (both are invalid usage), so those get none.
  Captured capture;
  std::vector<VkPipelineExecutableStatisticKHR> all;
  if (info->executableIndex == 0 && findCaptured(info->pipeline, &capture))
    all = statisticsOf(capture);
  return copyOut(all, count, statistics);
}

VKAPI_ATTR VkResult VKAPI_CALL GetPipelineExecutableInternalRepresentationsKHR(
    VkDevice, const VkPipelineExecutableInfoKHR *, uint32_t *count,
    VkPipelineExecutableInternalRepresentationKHR *) {
  *count = 0;
  return VK_SUCCESS;
}

template <typename F>
F resolve(PFN_vkGetInstanceProcAddr gipa, VkInstance instance,
          const char *name) {
  return reinterpret_cast<F>(gipa(instance, name));
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *ci,
                                              const VkAllocationCallbacks *a,
                                              VkInstance *instance) {
  PFN_vkGetInstanceProcAddr gipa = vulkan_layer::nextInstanceLink(ci);
  if (!gipa)
    return VK_ERROR_INITIALIZATION_FAILED;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(
      gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  VkResult result = create(ci, a, instance);
  if (result != VK_SUCCESS)
    return result;
  InstanceNext next;
  next.getInstanceProcAddr = gipa;
  next.enumerateDeviceExtensions =
      resolve<PFN_vkEnumerateDeviceExtensionProperties>(
          gipa, *instance, "vkEnumerateDeviceExtensionProperties");
  next.getFeatures2 = resolve<PFN_vkGetPhysicalDeviceFeatures2>(
      gipa, *instance, "vkGetPhysicalDeviceFeatures2");
  next.getFeatures2KHR = resolve<PFN_vkGetPhysicalDeviceFeatures2KHR>(
      gipa, *instance, "vkGetPhysicalDeviceFeatures2KHR");
  std::lock_guard<std::mutex> lock(mutex);
  instances[dispatchKey(*instance)] = next;
  return result;
}

/// |ci| as lavapipe must get it: without the extension's name and feature
/// structure. The feature structure is unlinked from the caller's chain
/// until restoreChain; the names live in |names|.
VkDeviceCreateInfo withoutExtension(const VkDeviceCreateInfo &ci,
                                    std::vector<const char *> &names,
                                    bool &enabled) {
  enabled = false;
  for (uint32_t i = 0; i < ci.enabledExtensionCount; ++i) {
    if (std::strcmp(ci.ppEnabledExtensionNames[i], Extension.extensionName))
      names.push_back(ci.ppEnabledExtensionNames[i]);
    else
      enabled = true;
  }
  VkDeviceCreateInfo copy = ci;
  copy.enabledExtensionCount = static_cast<uint32_t>(names.size());
  copy.ppEnabledExtensionNames = names.data();
  return copy;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical,
                                            const VkDeviceCreateInfo *ci,
                                            const VkAllocationCallbacks *a,
                                            VkDevice *device) {
  vulkan_layer::DeviceLink link = vulkan_layer::nextDeviceLink(ci);
  if (!link.getInstanceProcAddr)
    return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link.getInstanceProcAddr;
  DeviceNext next;
  next.getDeviceProcAddr = link.getDeviceProcAddr;
  std::vector<const char *> names;
  VkDeviceCreateInfo copy = withoutExtension(*ci, names, next.extensionEnabled);
  // Unlinked from the chain (the caller's structures) only for the call.
  auto [before, feature] = findInChain(
      &copy,
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  if (feature)
    before->pNext = feature->pNext;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(
      gipa(VK_NULL_HANDLE, "vkCreateDevice"));
  VkResult result = create(physical, &copy, a, device);
  if (feature)
    before->pNext = feature;
  if (result != VK_SUCCESS)
    return result;
  auto get = [&](const char *name) {
    return next.getDeviceProcAddr(*device, name);
  };
  next.createShaderModule =
      reinterpret_cast<PFN_vkCreateShaderModule>(get("vkCreateShaderModule"));
  next.destroyShaderModule =
      reinterpret_cast<PFN_vkDestroyShaderModule>(get("vkDestroyShaderModule"));
  next.createComputePipelines = reinterpret_cast<PFN_vkCreateComputePipelines>(
      get("vkCreateComputePipelines"));
  next.destroyPipeline =
      reinterpret_cast<PFN_vkDestroyPipeline>(get("vkDestroyPipeline"));
  std::lock_guard<std::mutex> lock(mutex);
  devices[dispatchKey(*device)] = next;
  return result;
}

template <typename F> PFN_vkVoidFunction asVoid(F function) {
  return reinterpret_cast<PFN_vkVoidFunction>(function);
}

/// The extension's commands; null for every other name.
PFN_vkVoidFunction extensionCommand(const char *name) {
  static const std::map<std::string, PFN_vkVoidFunction> own = {
      {"vkGetPipelineExecutablePropertiesKHR",
       asVoid(GetPipelineExecutablePropertiesKHR)},
      {"vkGetPipelineExecutableStatisticsKHR",
       asVoid(GetPipelineExecutableStatisticsKHR)},
      {"vkGetPipelineExecutableInternalRepresentationsKHR",
       asVoid(GetPipelineExecutableInternalRepresentationsKHR)},
  };
  auto found = own.find(name);
  return found == own.end() ? nullptr : found->second;
}

/// The device commands this layer wraps to capture; null for every other
/// name.
PFN_vkVoidFunction capturingCommand(const char *name) {
  static const std::map<std::string, PFN_vkVoidFunction> own = {
      {"vkCreateShaderModule", asVoid(CreateShaderModule)},
      {"vkDestroyShaderModule", asVoid(DestroyShaderModule)},
      {"vkCreateComputePipelines", asVoid(CreateComputePipelines)},
      {"vkDestroyPipeline", asVoid(DestroyPipeline)},
  };
  auto found = own.find(name);
  return found == own.end() ? nullptr : found->second;
}

/// The physical-device commands this layer answers, with the next layer's
/// entry point for the name: the layer's own is handed out only where the
/// next has one (vkGetPhysicalDeviceFeatures2KHR needs its extension).
PFN_vkVoidFunction physicalDeviceCommand(const char *name,
                                         PFN_vkVoidFunction next) {
  static const std::map<std::string, PFN_vkVoidFunction> own = {
      {"vkEnumerateDeviceExtensionProperties",
       asVoid(EnumerateDeviceExtensionProperties)},
      {"vkGetPhysicalDeviceFeatures2", asVoid(GetPhysicalDeviceFeatures2)},
      {"vkGetPhysicalDeviceFeatures2KHR",
       asVoid(GetPhysicalDeviceFeatures2KHR)},
  };
  auto found = own.find(name);
  return found == own.end() || !next ? next : found->second;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device,
                                                           const char *name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
GetInstanceProcAddr(VkInstance instance, const char *name) {
  if (std::strcmp(name, "vkGetInstanceProcAddr") == 0)
    return asVoid(GetInstanceProcAddr);
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return asVoid(GetDeviceProcAddr);
  if (std::strcmp(name, "vkCreateInstance") == 0)
    return asVoid(CreateInstance);
  if (std::strcmp(name, "vkCreateDevice") == 0)
    return asVoid(CreateDevice);
  if (PFN_vkVoidFunction own = extensionCommand(name))
    return own;
  if (PFN_vkVoidFunction own = capturingCommand(name))
    return own;
  if (!instance)
    return nullptr;
  PFN_vkGetInstanceProcAddr next = instanceOf(instance).getInstanceProcAddr;
  // With pfnGetPhysicalDeviceProcAddr null the loader resolves the
  // physical-device commands here, with the instance.
  return next ? physicalDeviceCommand(name, next(instance, name)) : nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device,
                                                           const char *name) {
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return asVoid(GetDeviceProcAddr);
  DeviceNext &next = deviceOf(device);
  if (PFN_vkVoidFunction own = capturingCommand(name))
    return own;
  // A driver hands out an extension's commands only to a device that
  // enabled it.
  if (PFN_vkVoidFunction own = extensionCommand(name))
    return next.extensionEnabled ? own : nullptr;
  return next.getDeviceProcAddr ? next.getDeviceProcAddr(device, name)
                                : nullptr;
}

} // namespace

extern "C" VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *version) {
  if (version->loaderLayerInterfaceVersion < 2)
    return VK_ERROR_INITIALIZATION_FAILED;
  version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = GetInstanceProcAddr;
  version->pfnGetDeviceProcAddr = GetDeviceProcAddr;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

//===- vulkan_call_recorder.cpp - A Vulkan layer that records submissions -===//
//
// Test-only: an explicit Vulkan layer (VK_LAYER_KB_record_calls,
// enabled by the test through VK_LAYER_PATH and VK_INSTANCE_LAYERS) that
// keeps, per command buffer, the commands recorded into it that a test
// checks — labels, dispatches, fills, copies, timestamps — and appends them to
// the file named by KB_VK_RECORD_CALLS each time the command buffer is
// submitted. So the file says what each submission ran, in order, as the
// driver saw it; e.g. that `bench --profile` ran one dispatch inside its
// labels and no cache flush or timestamp there.
//
//   submit
//   begin saxpy_4096x1x1
//   begin candidate
//   dispatch 16 1 1
//   end
//   end
//
// Every call is passed on to the next layer or the driver unchanged. With
// KB_VK_PRINT_ON_SUBMIT set, each submission also writes that text and a
// newline to the process's stdout, as CUDA's driver writes what a kernel
// printed when the host synchronizes: a test of what a worker whose stdout
// carries its report does with a driver that prints.
//
//===----------------------------------------------------------------------===//
#define VK_NO_PROTOTYPES
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "tests/support/vulkan_layer_link.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

/// The next layer's (or the driver's) entry points of one instance or device.
struct Next {
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
  PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
  PFN_vkCmdDispatch cmdDispatch = nullptr;
  PFN_vkCmdFillBuffer cmdFillBuffer = nullptr;
  PFN_vkCmdCopyBuffer cmdCopyBuffer = nullptr;
  PFN_vkCmdWriteTimestamp cmdWriteTimestamp = nullptr;
  PFN_vkCmdBeginDebugUtilsLabelEXT cmdBeginLabel = nullptr;
  PFN_vkCmdEndDebugUtilsLabelEXT cmdEndLabel = nullptr;
  PFN_vkBeginCommandBuffer beginCommandBuffer = nullptr;
  PFN_vkQueueSubmit queueSubmit = nullptr;
};

std::mutex mutex;
// Keyed by the loader's dispatch table pointer, which an instance (device)
// shares with its physical devices (queues and command buffers).
std::map<void *, Next> instances, devices;
std::map<VkCommandBuffer, std::vector<std::string>> recorded;

using kb::test::vulkan_layer::dispatchKey;
namespace vulkan_layer = kb::test::vulkan_layer;

Next &deviceOf(const void *handle) {
  std::lock_guard<std::mutex> lock(mutex);
  return devices[dispatchKey(handle)];
}

void note(VkCommandBuffer cb, std::string line) {
  std::lock_guard<std::mutex> lock(mutex);
  recorded[cb].push_back(std::move(line));
}

/// One write per submission, appended: workers of one run share the file.
void appendToLog(const std::string &text) {
  const char *path = std::getenv("KB_VK_RECORD_CALLS");
  if (!path || !*path)
    return;
  int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  ssize_t ignored = ::write(fd, text.data(), text.size());
  (void)ignored;
  ::close(fd);
}

VKAPI_ATTR void VKAPI_CALL CmdDispatch(VkCommandBuffer cb, uint32_t x,
                                       uint32_t y, uint32_t z) {
  note(cb, "dispatch " + std::to_string(x) + " " + std::to_string(y) + " " +
               std::to_string(z));
  deviceOf(cb).cmdDispatch(cb, x, y, z);
}

VKAPI_ATTR void VKAPI_CALL CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer,
                                         VkDeviceSize offset, VkDeviceSize size,
                                         uint32_t data) {
  note(cb, "fill");
  deviceOf(cb).cmdFillBuffer(cb, buffer, offset, size, data);
}

VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer(VkCommandBuffer cb, VkBuffer source,
                                         VkBuffer target, uint32_t count,
                                         const VkBufferCopy *regions) {
  note(cb, "copy");
  deviceOf(cb).cmdCopyBuffer(cb, source, target, count, regions);
}

VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp(VkCommandBuffer cb,
                                             VkPipelineStageFlagBits stage,
                                             VkQueryPool pool, uint32_t slot) {
  note(cb, "timestamp");
  deviceOf(cb).cmdWriteTimestamp(cb, stage, pool, slot);
}

VKAPI_ATTR void VKAPI_CALL
CmdBeginDebugUtilsLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *l) {
  note(cb, std::string("begin ") + (l->pLabelName ? l->pLabelName : ""));
  if (PFN_vkCmdBeginDebugUtilsLabelEXT next = deviceOf(cb).cmdBeginLabel)
    next(cb, l);
}

VKAPI_ATTR void VKAPI_CALL CmdEndDebugUtilsLabelEXT(VkCommandBuffer cb) {
  note(cb, "end");
  if (PFN_vkCmdEndDebugUtilsLabelEXT next = deviceOf(cb).cmdEndLabel)
    next(cb);
}

VKAPI_ATTR VkResult VKAPI_CALL
BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    recorded[cb].clear(); // beginning implicitly resets
  }
  return deviceOf(cb).beginCommandBuffer(cb, info);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count,
                                           const VkSubmitInfo *submits,
                                           VkFence fence) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (uint32_t i = 0; i < count; ++i)
      for (uint32_t j = 0; j < submits[i].commandBufferCount; ++j) {
        text += "submit\n";
        for (const std::string &line : recorded[submits[i].pCommandBuffers[j]])
          text += line + "\n";
      }
  }
  appendToLog(text);
  if (const char *print = std::getenv("KB_VK_PRINT_ON_SUBMIT")) {
    std::string line = std::string(print) + "\n";
    ssize_t ignored = ::write(STDOUT_FILENO, line.data(), line.size());
    (void)ignored;
  }
  return deviceOf(queue).queueSubmit(queue, count, submits, fence);
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
  if (result == VK_SUCCESS) {
    std::lock_guard<std::mutex> lock(mutex);
    instances[dispatchKey(*instance)].getInstanceProcAddr = gipa;
  }
  return result;
}

template <typename F>
F resolve(const Next &next, VkDevice device, const char *name) {
  return reinterpret_cast<F>(next.getDeviceProcAddr(device, name));
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical,
                                            const VkDeviceCreateInfo *ci,
                                            const VkAllocationCallbacks *a,
                                            VkDevice *device) {
  vulkan_layer::DeviceLink link = vulkan_layer::nextDeviceLink(ci);
  if (!link.getInstanceProcAddr)
    return VK_ERROR_INITIALIZATION_FAILED;
  Next next;
  next.getInstanceProcAddr = link.getInstanceProcAddr;
  next.getDeviceProcAddr = link.getDeviceProcAddr;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(
      next.getInstanceProcAddr(VK_NULL_HANDLE, "vkCreateDevice"));
  VkResult result = create(physical, ci, a, device);
  if (result != VK_SUCCESS)
    return result;
  next.cmdDispatch = resolve<PFN_vkCmdDispatch>(next, *device, "vkCmdDispatch");
  next.cmdFillBuffer =
      resolve<PFN_vkCmdFillBuffer>(next, *device, "vkCmdFillBuffer");
  next.cmdCopyBuffer =
      resolve<PFN_vkCmdCopyBuffer>(next, *device, "vkCmdCopyBuffer");
  next.cmdWriteTimestamp =
      resolve<PFN_vkCmdWriteTimestamp>(next, *device, "vkCmdWriteTimestamp");
  next.cmdBeginLabel = resolve<PFN_vkCmdBeginDebugUtilsLabelEXT>(
      next, *device, "vkCmdBeginDebugUtilsLabelEXT");
  next.cmdEndLabel = resolve<PFN_vkCmdEndDebugUtilsLabelEXT>(
      next, *device, "vkCmdEndDebugUtilsLabelEXT");
  next.beginCommandBuffer =
      resolve<PFN_vkBeginCommandBuffer>(next, *device, "vkBeginCommandBuffer");
  next.queueSubmit = resolve<PFN_vkQueueSubmit>(next, *device, "vkQueueSubmit");
  std::lock_guard<std::mutex> lock(mutex);
  devices[dispatchKey(*device)] = next;
  return result;
}

/// The commands this layer records; null for every other name.
PFN_vkVoidFunction ownDeviceCommand(const char *name) {
  static const std::map<std::string, PFN_vkVoidFunction> own = {
      {"vkCmdDispatch", reinterpret_cast<PFN_vkVoidFunction>(CmdDispatch)},
      {"vkCmdFillBuffer", reinterpret_cast<PFN_vkVoidFunction>(CmdFillBuffer)},
      {"vkCmdCopyBuffer", reinterpret_cast<PFN_vkVoidFunction>(CmdCopyBuffer)},
      {"vkCmdWriteTimestamp",
       reinterpret_cast<PFN_vkVoidFunction>(CmdWriteTimestamp)},
      {"vkCmdBeginDebugUtilsLabelEXT",
       reinterpret_cast<PFN_vkVoidFunction>(CmdBeginDebugUtilsLabelEXT)},
      {"vkCmdEndDebugUtilsLabelEXT",
       reinterpret_cast<PFN_vkVoidFunction>(CmdEndDebugUtilsLabelEXT)},
      {"vkBeginCommandBuffer",
       reinterpret_cast<PFN_vkVoidFunction>(BeginCommandBuffer)},
      {"vkQueueSubmit", reinterpret_cast<PFN_vkVoidFunction>(QueueSubmit)},
  };
  auto found = own.find(name);
  return found == own.end() ? nullptr : found->second;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device,
                                                           const char *name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
GetInstanceProcAddr(VkInstance instance, const char *name) {
  if (std::strcmp(name, "vkGetInstanceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(GetInstanceProcAddr);
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  if (std::strcmp(name, "vkCreateInstance") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(CreateInstance);
  if (std::strcmp(name, "vkCreateDevice") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(CreateDevice);
  if (PFN_vkVoidFunction own = ownDeviceCommand(name))
    return own;
  if (!instance)
    return nullptr;
  PFN_vkGetInstanceProcAddr next;
  {
    std::lock_guard<std::mutex> lock(mutex);
    next = instances[dispatchKey(instance)].getInstanceProcAddr;
  }
  return next ? next(instance, name) : nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device,
                                                           const char *name) {
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  if (PFN_vkVoidFunction own = ownDeviceCommand(name))
    return own;
  PFN_vkGetDeviceProcAddr next = deviceOf(device).getDeviceProcAddr;
  return next ? next(device, name) : nullptr;
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

//===- tests/support/vulkan_layer_link.h - A test layer's place in chain --===//
//
// What every Vulkan layer of the tests (vulkan_call_recorder/,
// vulkan_statistics_layer/) does the same way: find the loader's link info
// in vkCreateInstance's and vkCreateDevice's chains, take the next layer's
// entry points from it and step past this layer, and key its per-instance
// and per-device state by the loader's dispatch pointer (which an instance
// shares with its physical devices, a device with its queues and command
// buffers). The loader's layer interface, version 2.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTS_SUPPORT_VULKAN_LAYER_LINK_H_
#define KB_TESTS_SUPPORT_VULKAN_LAYER_LINK_H_

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

namespace kb::test::vulkan_layer {

/// The loader's dispatch pointer of a dispatchable handle.
inline void *dispatchKey(const void *handle) {
  return *static_cast<void *const *>(handle);
}

/// Where the loader put the next layer's entry points in a create info.
template <typename Info>
Info *linkInfo(const void *pNext, VkStructureType type) {
  auto *info = static_cast<Info *>(const_cast<void *>(pNext));
  while (info && !(info->sType == type && info->function == VK_LAYER_LINK_INFO))
    info = static_cast<Info *>(const_cast<void *>(info->pNext));
  return info;
}

/// The next layer's vkGetInstanceProcAddr, and the chain stepped past this
/// layer; null when the loader left no link (fail the create then).
inline PFN_vkGetInstanceProcAddr
nextInstanceLink(const VkInstanceCreateInfo *ci) {
  auto *link = linkInfo<VkLayerInstanceCreateInfo>(
      ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (!link)
    return nullptr;
  PFN_vkGetInstanceProcAddr next =
      link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  return next;
}

struct DeviceLink {
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
  PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
};

/// The next layer's entry points for a device, and the chain stepped past
/// this layer; both null when the loader left no link.
inline DeviceLink nextDeviceLink(const VkDeviceCreateInfo *ci) {
  auto *link = linkInfo<VkLayerDeviceCreateInfo>(
      ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (!link)
    return {};
  DeviceLink next{link->u.pLayerInfo->pfnNextGetInstanceProcAddr,
                  link->u.pLayerInfo->pfnNextGetDeviceProcAddr};
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  return next;
}

} // namespace kb::test::vulkan_layer

#endif // KB_TESTS_SUPPORT_VULKAN_LAYER_LINK_H_

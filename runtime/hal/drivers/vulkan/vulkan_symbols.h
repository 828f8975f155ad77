//===- runtime/hal/drivers/vulkan/vulkan_symbols.h - libvulkan loader -----===//
//
// libvulkan.so.1 is dlopen'ed and every command resolved through
// vkGetInstanceProcAddr / vkGetDeviceProcAddr from one X-macro table
// (vulkan_symbol_table.inc). Headers come from libvulkan-dev with
// VK_NO_PROTOTYPES, so nothing links against the loader.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_SYMBOLS_H_
#define KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_SYMBOLS_H_

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "common/status.h"
#include "common/dynamic_library.h"

#include <string>

namespace kb::hal::vulkan {

/// Global and instance-level commands. Owns the library handle.
struct InstanceSymbols {
  kb::DynamicLibrary library;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define KB_VK_GLOBAL(level, name) PFN_##name name = nullptr;
#define KB_VK_INSTANCE(level, name) PFN_##name name = nullptr;
#define KB_VK_DEVICE(level, name)
#include "runtime/hal/drivers/vulkan/vulkan_symbol_table.inc"
#undef KB_VK_GLOBAL
#undef KB_VK_INSTANCE
#undef KB_VK_DEVICE

  /// Why the label commands are null (the instance was created without
  /// VK_EXT_debug_utils, or does not offer it).
  std::string labelsMissing =
      "the Vulkan driver was created without labels (DriverOptions::"
      "debugLabels)";

  /// dlopen + global commands. Unavailable when libvulkan.so.1 is missing.
  static StatusOr<InstanceSymbols> load();
  /// Resolves the instance-level commands for |instance|.
  Status loadInstance(VkInstance instance);
};

/// Device-level commands of one VkDevice.
struct DeviceSymbols {
#define KB_VK_GLOBAL(level, name)
#define KB_VK_INSTANCE(level, name)
#define KB_VK_DEVICE(level, name) PFN_##name name = nullptr;
#include "runtime/hal/drivers/vulkan/vulkan_symbol_table.inc"
#undef KB_VK_GLOBAL
#undef KB_VK_INSTANCE
#undef KB_VK_DEVICE

  Status load(const InstanceSymbols &instance, VkDevice device);
};

/// "VK_ERROR_DEVICE_LOST" etc.
const char *vkResultName(VkResult result);

/// Formats "|what| failed: VK_ERROR_..." with the status code the result
/// implies (ResourceExhausted for out-of-memory, Internal otherwise).
Status vkResultToStatus(VkResult result, const std::string &what);

} // namespace kb::hal::vulkan

/// Returns from the enclosing function when |expr| is not VK_SUCCESS.
#define KB_VK_RETURN_IF_ERROR(expr, what)                                      \
  do {                                                                         \
    VkResult kb_vk_result_ = (expr);                                           \
    if (kb_vk_result_ != VK_SUCCESS)                                           \
      return ::kb::hal::vulkan::vkResultToStatus(kb_vk_result_, (what));       \
  } while (false)

#endif // KB_RUNTIME_HAL_DRIVERS_VULKAN_VULKAN_SYMBOLS_H_

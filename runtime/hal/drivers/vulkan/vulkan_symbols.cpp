//===- runtime/hal/drivers/vulkan/vulkan_symbols.cpp - libvulkan loader ---===//
#include "runtime/hal/drivers/vulkan/vulkan_symbols.h"

namespace kb::hal::vulkan {

namespace {
constexpr bool kREQUIRED = true;
constexpr bool kOPTIONAL = false;
} // namespace

StatusOr<InstanceSymbols> InstanceSymbols::load() {
  InstanceSymbols syms;
  // Never unloaded, like libcuda: the loader and the ICDs it pulls in start
  // threads and register atexit handlers (NVIDIA's driver among them), and
  // unmapping their code under those crashes or deadlocks the process at a
  // later driver's creation or at exit.
  StatusOr<DynamicLibrary> library =
      DynamicLibrary::open("libvulkan.so.1", DynamicLibrary::Unload::Never);
  if (!library.ok())
    return unavailable("libvulkan.so.1 not found (" +
                       library.status().message() + ")");
  syms.library = std::move(*library);
  syms.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      syms.library.symbol("vkGetInstanceProcAddr"));
  if (!syms.vkGetInstanceProcAddr)
    return unavailable("libvulkan.so.1 has no vkGetInstanceProcAddr; is it a "
                       "Vulkan loader?");
#define KB_VK_GLOBAL(level, name)                                              \
  syms.name = reinterpret_cast<PFN_##name>(                                    \
      syms.vkGetInstanceProcAddr(nullptr, #name));                             \
  if (k##level && !syms.name)                                                  \
    return unavailable("libvulkan.so.1 does not provide " #name);
#define KB_VK_INSTANCE(level, name)
#define KB_VK_DEVICE(level, name)
#include "runtime/hal/drivers/vulkan/vulkan_symbol_table.inc"
#undef KB_VK_GLOBAL
#undef KB_VK_INSTANCE
#undef KB_VK_DEVICE
  return syms;
}

Status InstanceSymbols::loadInstance(VkInstance instance) {
#define KB_VK_GLOBAL(level, name)
#define KB_VK_INSTANCE(level, name)                                            \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
  if (k##level && !name)                                                       \
    return unavailable("the Vulkan instance does not provide " #name);
#define KB_VK_DEVICE(level, name)
#include "runtime/hal/drivers/vulkan/vulkan_symbol_table.inc"
#undef KB_VK_GLOBAL
#undef KB_VK_INSTANCE
#undef KB_VK_DEVICE
  return okStatus();
}

Status DeviceSymbols::load(const InstanceSymbols &instance, VkDevice device) {
#define KB_VK_GLOBAL(level, name)
#define KB_VK_INSTANCE(level, name)
#define KB_VK_DEVICE(level, name)                                              \
  name = reinterpret_cast<PFN_##name>(                                         \
      instance.vkGetDeviceProcAddr(device, #name));                            \
  if (k##level && !name)                                                       \
    return unavailable("the Vulkan device does not provide " #name);
#include "runtime/hal/drivers/vulkan/vulkan_symbol_table.inc"
#undef KB_VK_GLOBAL
#undef KB_VK_INSTANCE
#undef KB_VK_DEVICE
  return okStatus();
}

const char *vkResultName(VkResult result) {
  switch (result) {
#define KB_CASE(x)                                                             \
  case x:                                                                      \
    return #x;
    KB_CASE(VK_SUCCESS)
    KB_CASE(VK_NOT_READY)
    KB_CASE(VK_TIMEOUT)
    KB_CASE(VK_INCOMPLETE)
    KB_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    KB_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KB_CASE(VK_ERROR_INITIALIZATION_FAILED)
    KB_CASE(VK_ERROR_DEVICE_LOST)
    KB_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    KB_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    KB_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    KB_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    KB_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    KB_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    KB_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KB_CASE(VK_ERROR_FRAGMENTED_POOL)
    KB_CASE(VK_ERROR_UNKNOWN)
    KB_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    KB_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef KB_CASE
  default:
    return "VkResult(unknown)";
  }
}

Status vkResultToStatus(VkResult result, const std::string &what) {
  std::string message = what + " failed: " + vkResultName(result) + " (" +
                        std::to_string(static_cast<int>(result)) + ")";
  if (result == VK_ERROR_OUT_OF_HOST_MEMORY ||
      result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
      result == VK_ERROR_OUT_OF_POOL_MEMORY)
    return resourceExhausted(message);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    return unavailable(message + "; no Vulkan driver (ICD) is installed, or "
                                 "VK_DRIVER_FILES points at the wrong one");
  return internalError(message);
}

} // namespace kb::hal::vulkan

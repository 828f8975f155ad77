//===- runtime/hal/drivers/vulkan/spirv_features.h - What SPIR-V needs ----===//
//
// A SPIR-V module declares the capabilities and extensions it uses up front
// (OpCapability, OpExtension). Drivers are not required to reject a module
// that declares something the device lacks (Mesa's spirv_to_nir, used by
// lavapipe, warns about an unsupported capability and carries on; using one
// is undefined behaviour), so the Vulkan driver checks them itself, before any
// driver call, against the Vulkan version and the features it enabled. The
// rules follow the Vulkan spec's SPIR-V environment appendix for the
// capabilities a compute kernel can use without device extensions (this driver
// enables none); anything else is refused by name.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_VULKAN_SPIRV_FEATURES_H_
#define KB_RUNTIME_HAL_DRIVERS_VULKAN_SPIRV_FEATURES_H_

#include "common/status.h"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kb::hal::vulkan {

/// What a VkDevice was created with: its API version and the features this
/// driver enabled (every supported core feature but robustBufferAccess).
/// Structs of versions above |apiVersion| stay zero.
struct EnabledFeatures {
  uint32_t apiVersion = VK_API_VERSION_1_0;
  VkPhysicalDeviceFeatures core{};
  VkPhysicalDeviceVulkan11Features v11{};
  VkPhysicalDeviceVulkan12Features v12{};
  VkPhysicalDeviceVulkan13Features v13{};
  /// VkPhysicalDeviceSubgroupProperties::supportedOperations when subgroups
  /// are supported in the compute stage, else 0.
  VkSubgroupFeatureFlags computeSubgroupOperations = 0;
};

/// The preamble of a SPIR-V module.
struct SpirvRequirements {
  uint32_t version = 0; // 0x00010300 = SPIR-V 1.3
  std::vector<uint32_t> capabilities;
  std::vector<std::string> extensions;
};

/// Reads the header and the OpCapability/OpExtension instructions, which the
/// logical layout puts before everything else. Bounds-checked; InvalidArgument
/// for a malformed preamble.
StatusOr<SpirvRequirements> readSpirvRequirements(std::string_view bytes);

/// InvalidArgument naming |where|, each capability/extension the device
/// cannot take and the feature or Vulkan version it needs.
Status checkSpirvRequirements(const SpirvRequirements &requirements,
                              const EnabledFeatures &features,
                              const std::string &deviceName,
                              const std::string &where);

} // namespace kb::hal::vulkan

#endif // KB_RUNTIME_HAL_DRIVERS_VULKAN_SPIRV_FEATURES_H_

//===- runtime/testing/device_environment.cpp - Which devices exist -------===//
#include "runtime/testing/device_environment.h"

#include "runtime/hal/drivers/registration.h"

namespace kb::testing {
namespace {

struct VulkanListing {
  bool listed = false;
  std::string why; // when not listed: the driver's own words
};

const VulkanListing &vulkanListing() {
  static const VulkanListing listing = [] {
    VulkanListing l;
    auto driver = hal::builtinDrivers().create("vulkan", {});
    if (!driver.ok())
      l.why = driver.status().message();
    else if ((*driver)->devices().empty())
      l.why = "the Vulkan driver enumerated no physical device";
    else
      l.listed = true;
    return l;
  }();
  return listing;
}

} // namespace

bool vulkanDeviceListed() { return vulkanListing().listed; }

std::string noVulkanReason() {
  return std::string(kNoVulkanSkip) + " (" + vulkanListing().why +
         "; lavapipe comes with Debian's mesa-vulkan-drivers)";
}

} // namespace kb::testing

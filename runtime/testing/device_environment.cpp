//===- runtime/testing/device_environment.cpp - Which devices exist -------===//
#include "runtime/testing/device_environment.h"

#include "runtime/hal/drivers/registration.h"

namespace kb::testing {
namespace {

struct Listing {
  bool listed = false;
  std::string why; // when not listed: the driver's own words
};

Listing listDevices(const char *driverName) {
  Listing l;
  auto driver = hal::builtinDrivers().create(driverName, {});
  if (!driver.ok())
    l.why = driver.status().message();
  else if ((*driver)->devices().empty())
    l.why = std::string("the ") + driverName + " driver enumerated no device";
  else
    l.listed = true;
  return l;
}

const Listing &vulkanListing() {
  static const Listing listing = listDevices("vulkan");
  return listing;
}

const Listing &cudaListing() {
  static const Listing listing = listDevices("cuda");
  return listing;
}

} // namespace

bool vulkanDeviceListed() { return vulkanListing().listed; }

std::string noVulkanReason() {
  return std::string(kNoVulkanSkip) + " (" + vulkanListing().why +
         "; lavapipe comes with Debian's mesa-vulkan-drivers)";
}

bool cudaDeviceListed() { return cudaListing().listed; }

std::string noCudaReason() {
  return std::string(kNoCudaSkip) + " (" + cudaListing().why +
         "; a CUDA device needs NVIDIA's driver, libcuda.so.1)";
}

} // namespace kb::testing

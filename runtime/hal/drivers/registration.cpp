//===- runtime/hal/drivers/registration.cpp - Built-in drivers ------------===//
#include "runtime/hal/drivers/registration.h"

#ifdef KB_HAVE_CUDA_DRIVER
#include "runtime/hal/drivers/cuda/cuda_driver.h"
#endif
#ifdef KB_HAVE_VULKAN_DRIVER
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"
#endif

namespace kb::hal {

void registerBuiltinDrivers(DriverRegistry &registry) {
  // Registration order is the order `--device auto` tries drivers in. The
  // names are distinct constants, so add() cannot fail here.
#ifdef KB_HAVE_CUDA_DRIVER
  registry.add("cuda", cuda::createCudaDriver).ignoreError();
#endif
#ifdef KB_HAVE_VULKAN_DRIVER
  registry.add("vulkan", vulkan::createVulkanDriver).ignoreError();
#endif
}

const DriverRegistry &builtinDrivers() {
  static const DriverRegistry registry = [] {
    DriverRegistry r;
    registerBuiltinDrivers(r);
    return r;
  }();
  return registry;
}

} // namespace kb::hal

//===- runtime/hal/drivers/registration.h - Built-in drivers --------------===//
//
// The only backend header the rest of the tree includes: registers the
// drivers this build has (KB_ENABLE_CUDA, KB_ENABLE_VULKAN), in the order
// `--device auto` tries them (cuda, then vulkan).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_REGISTRATION_H_
#define KB_RUNTIME_HAL_DRIVERS_REGISTRATION_H_

#include "runtime/hal/driver_registry.h"

namespace kb::hal {

/// Adds every built-in driver to |registry|.
void registerBuiltinDrivers(DriverRegistry &registry);

/// A registry holding the built-in drivers (constructed on first use).
const DriverRegistry &builtinDrivers();

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_DRIVERS_REGISTRATION_H_

//===- runtime/hal/driver_registry.h - Drivers by name --------------------===//
//
// The registry maps driver names to factories. Which drivers exist is decided
// at build time (KB_ENABLE_CUDA / KB_ENABLE_VULKAN) by
// runtime/hal/drivers/registration.h, the only backend header the rest of
// the tree includes; whether they work is decided at run time (the vendor
// library is dlopen'ed when the driver is created).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVER_REGISTRY_H_
#define KB_RUNTIME_HAL_DRIVER_REGISTRY_H_

#include "common/status.h"
#include "runtime/hal/driver.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kb::hal {

using DriverFactory =
    std::function<StatusOr<std::unique_ptr<Driver>>(const DriverOptions &)>;

class DriverRegistry {
public:
  /// Registers |factory| under |name|; AlreadyExists on a duplicate.
  Status add(std::string name, DriverFactory factory);
  /// Names in registration order (the order `auto` tries them).
  std::vector<std::string> names() const;
  /// Creates driver |name|. NotFound (listing the registered names) for an
  /// unknown name; Unavailable when its library or devices are missing.
  StatusOr<std::unique_ptr<Driver>> create(std::string_view name,
                                           const DriverOptions &options) const;

private:
  struct Entry {
    std::string name;
    DriverFactory factory;
  };
  std::vector<Entry> entries_;
};

//===----------------------------------------------------------------------===//
// Device selection (`--device auto|cuda[:N]|vulkan[:N]`)
//===----------------------------------------------------------------------===//

struct SelectedDevice {
  std::unique_ptr<Driver> driver; // owns |device|'s driver; declared first
  std::unique_ptr<Device> device; // destroyed before |driver|
  /// Why this device: "auto: cuda unavailable (libcuda.so.1 not found);
  /// picked vulkan:0 llvmpipe (...) (cpu)".
  std::string reason;

  SelectedDevice() = default;
  SelectedDevice(SelectedDevice &&) = default;
  SelectedDevice &operator=(SelectedDevice &&) = default;
  ~SelectedDevice() { device.reset(); }
};

/// A parsed device spec: driver "auto" (index unused), "cuda" or "vulkan".
struct DeviceSpec {
  std::string driver;
  uint32_t index = 0;
};

/// Parses "auto", "cuda", "cuda:N", "vulkan", "vulkan:N"; InvalidArgument
/// listing the valid forms otherwise. Commands check --device with it while
/// parsing their arguments, so a malformed spec is a usage error.
StatusOr<DeviceSpec> parseDeviceSpec(std::string_view spec);

/// Why `auto` may not pick a device (e.g. "executable `x` has no variant
/// for vulkan:0 ..."), or an empty string when it may.
using DeviceFilter = std::function<std::string(const DeviceProperties &)>;

/// Opens the device named by |spec|: "auto" picks a CUDA device, then a
/// Vulkan discrete/integrated/virtual GPU, then a Vulkan CPU device
/// (lavapipe), among the devices |filter| accepts (all without one), so a
/// module with only CUDA variants is not sent to a Vulkan device; "cuda",
/// "cuda:N", "vulkan", "vulkan:N" pick that one (|filter| is not asked).
/// InvalidArgument for a malformed spec (listing the valid forms);
/// Unavailable when no requested driver/device exists or `auto` finds none
/// the filter accepts (with every reason).
StatusOr<SelectedDevice> selectDevice(const DriverRegistry &registry,
                                      std::string_view spec,
                                      const DriverOptions &driverOptions = {},
                                      const DeviceOptions &deviceOptions = {},
                                      const DeviceFilter &filter = {});

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_DRIVER_REGISTRY_H_

//===- runtime/hal/driver.h - A backend (cuda, vulkan) --------------------===//
//
// A Driver is a loaded vendor library (libcuda.so.1, libvulkan.so.1) and the
// devices it can see. Creating a driver whose library, or any device, is
// missing is an Unavailable status with the reason ("libcuda.so.1 not
// found"); callers and tests branch on Unavailable (skip, try the next one).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVER_H_
#define KB_RUNTIME_HAL_DRIVER_H_

#include "common/status.h"
#include "runtime/hal/device.h"
#include "runtime/hal/validation_log.h"

#include <memory>
#include <string>
#include <vector>

namespace kb::hal {

/// Switches read when a driver is created.
struct DriverOptions {
  /// Vulkan: enable VK_LAYER_KHRONOS_validation and report its messages as
  /// warnings on stderr. FailedPrecondition when the layer is not installed.
  bool vulkanValidation = false;
  /// Vulkan: the validation layer with GPU-assisted validation (shader
  /// accesses outside a bound buffer range) and synchronization validation;
  /// implies vulkanValidation. Shaders are instrumented: for checks, never
  /// for timing.
  bool vulkanGpuValidation = false;
  /// Vulkan: the validation layer with debug printf only (the layer cannot
  /// run it with GPU-assisted validation): a shader's debugPrintfEXT lines
  /// reach the messenger as information, verbose (with the invocation id).
  bool vulkanDebugPrintf = false;
  /// Vulkan: enable VK_EXT_debug_utils (where the instance offers it) so
  /// that command buffers can carry labels (CommandBuffer::beginLabel) for
  /// profilers. CUDA labels (NVTX) need no option.
  bool debugLabels = false;
  /// Where the layer's messages go instead of stderr (to be attributed by
  /// the caller); kept alive by the driver.
  std::shared_ptr<ValidationLog> validationLog;
};

/// Owned by the caller; outlives every Device it creates. Not thread-safe.
class Driver {
public:
  virtual ~Driver() = default;
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  /// "cuda" or "vulkan".
  virtual const char *name() const = 0;
  /// Devices enumerated at creation, in driver order (cuda:N / vulkan:N).
  virtual const std::vector<DeviceProperties> &devices() const = 0;
  /// Opens device |index|. OutOfRange for a bad index.
  virtual StatusOr<std::unique_ptr<Device>>
  createDevice(uint32_t index, const DeviceOptions &options = {}) = 0;

protected:
  Driver() = default;
};

/// The device to use when none is named: the first discrete GPU, else the
/// first integrated or virtual GPU, else device 0. With lavapipe and a GPU
/// driver both installed the loader may list the CPU device first.
uint32_t preferredDeviceIndex(const std::vector<DeviceProperties> &devices);

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_DRIVER_H_

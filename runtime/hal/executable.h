//===- runtime/hal/executable.h - Loaded kernels --------------------------===//
//
// An Executable is one compiled variant of a .kbm executable (PTX, cubin or
// SPIR-V) loaded on a device, with its exports ready to dispatch.
// CUDA: a CUmodule plus one CUfunction per export. Vulkan: a VkShaderModule
// plus, per export, a descriptor set layout (set 0, binding i = storage
// buffer i, and a uniform buffer at its own binding for an export that takes
// its constants so: KernelAbi::uniformConstants), a pipeline layout with one
// push-constant range (kb::pushConstantLayout) otherwise, and a compute
// pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_EXECUTABLE_H_
#define KB_RUNTIME_HAL_EXECUTABLE_H_

#include "common/kernel_abi.h"
#include "common/status.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::hal {

struct DeviceLimits;

//===----------------------------------------------------------------------===//
// Types and enums
//===----------------------------------------------------------------------===//

enum class ExecutableFormat {
  Ptx,   // PTX text; the CUDA driver JIT-compiles it on load
  Cubin, // ELF for one sm_XX; loads without JIT
  Spirv, // SPIR-V words (little-endian)
};

const char *toString(ExecutableFormat format);

/// Everything a driver needs to create an Executable. |data| is borrowed for
/// the duration of Device::createExecutable only.
struct ExecutableSpec {
  std::string name; // the .kbm executable name, for messages
  ExecutableFormat format = ExecutableFormat::Spirv;
  std::string target; // "sm_90", "vulkan1.2"
  std::string_view data;
  /// One per export, in dispatch-index order.
  std::vector<KernelAbi> exports;
  /// Keep the driver's statistics of each compiled export
  /// (Executable::driverStatistics); for inspection, never for timing.
  bool captureStatistics = false;
};

/// One figure a driver reports about the code it compiled (Vulkan's
/// VK_KHR_pipeline_executable_properties: registers, spills, instruction
/// counts, by the driver's own names).
struct DriverStatistic {
  std::string name;
  std::string description;
  /// As the driver typed it: "64", "true", "1.5".
  std::string value;
  /// The same as a number (a boolean is 0 or 1), for comparisons.
  double number = 0;
};

/// One executable the driver made of an export (a compute pipeline has
/// one; a driver may report more, e.g. per compilation stage).
struct DriverExecutable {
  std::string name;
  std::string description;
  uint32_t subgroupSize = 0;
  std::vector<DriverStatistic> statistics;
};

/// Checks |abi| (export |exportIndex| of executable |executableName|) against
/// |limits|: workgroup size per dimension and in total, shared memory,
/// push-constant block size, binding count. The one implementation of
/// "fits the device", run by the module loader and by every driver before
/// any driver call. InvalidArgument naming the export and the limit.
Status checkExportFitsDevice(std::string_view executableName,
                             size_t exportIndex, const KernelAbi &abi,
                             const DeviceLimits &limits);

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

/// Shared between the caller (Device::createExecutable's shared_ptr) and
/// every CommandBuffer that dispatched it, until that one is reset or
/// destroyed. Must not outlive its Device. Immutable after creation;
/// thread-safe for concurrent reads.
class Executable : public std::enable_shared_from_this<Executable> {
public:
  virtual ~Executable() = default;
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const std::string &name() const { return name_; }
  ExecutableFormat format() const { return format_; }
  size_t exportCount() const { return exports_.size(); }
  const KernelAbi &exportAbi(size_t index) const { return exports_[index]; }
  /// Index of the export whose entry is |entry|.
  std::optional<size_t> findExport(std::string_view entry) const;
  /// What the driver could not check at load, one sentence each (e.g. a
  /// CUDA driver without cuFuncGetParamInfo: "kernel parameters not
  /// checked"), for reports and `--verbose` output. Empty when everything
  /// was checked.
  const std::vector<std::string> &loadNotes() const { return loadNotes_; }
  /// What the driver reports about the code it compiled for export
  /// |exportIndex|, when the executable was created with
  /// captureStatistics. Unavailable, with the reason, where the driver
  /// reports nothing (this default; a Vulkan driver without
  /// VK_KHR_pipeline_executable_properties).
  virtual StatusOr<std::vector<DriverExecutable>>
  driverStatistics(size_t exportIndex) const {
    (void)exportIndex;
    return unavailable(std::string(toString(format_)) +
                       " executables carry no driver statistics");
  }

protected:
  Executable(const ExecutableSpec &spec)
      : name_(spec.name), format_(spec.format), exports_(spec.exports) {}
  void addLoadNote(std::string note) { loadNotes_.push_back(std::move(note)); }

private:
  std::vector<std::string> loadNotes_;
  std::string name_;
  ExecutableFormat format_;
  std::vector<KernelAbi> exports_;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_EXECUTABLE_H_

//===- workbench/inspect/driver_statistics.h - What the driver says -------===//
//
// `inspect --device`: the Vulkan driver's own statistics of the code it
// compiled for each SPIR-V variant (VK_KHR_pipeline_executable_properties:
// NVIDIA's and RADV's register counts, spills, instruction counts, by the
// driver's names), beside what inspect reads from the SPIR-V itself. The
// device is opened once, on the first SPIR-V variant, only for this: each
// variant's pipeline is created with statistics captured, read, and
// destroyed; nothing runs on it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_DRIVER_STATISTICS_H_
#define KB_WORKBENCH_INSPECT_DRIVER_STATISTICS_H_

#include "common/status.h"
#include "runtime/hal/api.h"
#include "runtime/module/module.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

class DriverStatisticsSource {
public:
  /// |device|: "auto" (a Vulkan GPU, else a Vulkan CPU device), "vulkan",
  /// "vulkan:N", or "none" (nothing is opened; every answer says so).
  explicit DriverStatisticsSource(std::string device)
      : device_(std::move(device)) {}

  /// The driver's statistics of export |exportIndex| of |variant| (a SPIR-V
  /// variant), or why there are none: no device, a driver without the
  /// extension, a pipeline the driver refused.
  StatusOr<std::vector<hal::DriverExecutable>>
  statisticsOf(const std::string &executableName,
               const module::Variant &variant, uint32_t exportIndex);

  /// The device the statistics came from ("NVIDIA H200"); empty until one
  /// statistic was read from it.
  const std::string &deviceName() const { return deviceName_; }

  /// Opens the device (once); Unavailable, with the reason, where there is
  /// none or its driver reports no statistics.
  Status open();

private:
  std::string device_;
  std::string deviceName_;
  std::optional<Status> failure_; // why no device, once known
  hal::SelectedDevice selected_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_DRIVER_STATISTICS_H_

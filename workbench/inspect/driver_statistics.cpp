//===- workbench/inspect/driver_statistics.cpp - What the driver says -----===//
#include "workbench/inspect/driver_statistics.h"

#include "runtime/hal/drivers/registration.h"

namespace kb::workbench {

Status DriverStatisticsSource::open() {
  if (failure_)
    return *failure_;
  if (selected_.device)
    return okStatus();
  if (device_ == "none")
    return *(failure_ = unavailable("not asked for (--device none)"));
  hal::DeviceOptions options;
  options.pipelineStatistics = true;
  options.pipelineCache = false; // a cached pipeline may skip compilation
  // Only Vulkan drivers report statistics of their own: no other driver is
  // even loaded, and `auto` picks among the Vulkan devices, GPUs first.
  hal::DriverRegistry vulkan;
  (void)vulkan.add("vulkan", [](const hal::DriverOptions &o) {
    return hal::builtinDrivers().create("vulkan", o);
  });
  StatusOr<hal::SelectedDevice> selected =
      hal::selectDevice(vulkan, device_, {}, options);
  if (!selected.ok())
    return *(failure_ = unavailable("no Vulkan device (" +
                                    selected.status().message() + ")"));
  // A driver without the extension: said once, and no pipeline is
  // compiled for nothing.
  if (std::string missing = selected->device->driverStatisticsMissing();
      !missing.empty())
    return *(failure_ = unavailable(missing + " (" +
                                    selected->device->properties().name + ")"));
  selected_ = std::move(*selected);
  return okStatus();
}

StatusOr<std::vector<hal::DriverExecutable>>
DriverStatisticsSource::statisticsOf(const std::string &executableName,
                                     const module::Variant &variant,
                                     uint32_t exportIndex) {
  KB_RETURN_IF_ERROR(open());
  hal::ExecutableSpec spec;
  spec.name = executableName;
  spec.format = variant.format;
  spec.target = variant.target;
  spec.data = variant.data;
  spec.exports = variant.exports;
  spec.captureStatistics = true;
  KB_ASSIGN_OR_RETURN(std::shared_ptr<hal::Executable> loaded,
                      selected_.device->createExecutable(spec));
  StatusOr<std::vector<hal::DriverExecutable>> found =
      loaded->driverStatistics(exportIndex);
  if (found.ok())
    deviceName_ = selected_.device->properties().name;
  return found;
}

} // namespace kb::workbench

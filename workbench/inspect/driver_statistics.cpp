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
  // Only Vulkan drivers report statistics of their own: `auto` looks among
  // the Vulkan devices, GPUs first.
  auto vulkanOnly = [](const hal::DeviceProperties &p) -> std::string {
    return p.driver == "vulkan" ? "" : "driver statistics come from Vulkan";
  };
  StatusOr<hal::SelectedDevice> selected = hal::selectDevice(
      hal::builtinDrivers(), device_, {}, options, vulkanOnly);
  if (!selected.ok())
    return *(failure_ = unavailable("no Vulkan device (" +
                                    selected.status().message() + ")"));
  if (selected->device->properties().driver != "vulkan")
    return *(failure_ = unavailable(
                 "only Vulkan drivers report statistics of their own; " +
                 device_ + " is " + selected->device->properties().driver));
  selected_ = std::move(*selected);
  deviceName_ = selected_.device->properties().name;
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
  return loaded->driverStatistics(exportIndex);
}

} // namespace kb::workbench

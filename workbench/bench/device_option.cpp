//===- workbench/bench/device_option.cpp - The --device flag --------------===//
#include "workbench/bench/device_option.h"

#include "runtime/hal/driver_registry.h"

#include <CLI/CLI.hpp>

namespace kb::workbench {

CLI::Option *addDeviceOption(CLI::App &app, std::string &device,
                             const std::string &autoMeans) {
  return app
      .add_option("--device", device,
                  "auto | cuda[:N] | vulkan[:N] (default auto: " + autoMeans +
                      ")")
      ->type_name("DEVICE")
      ->check([](const std::string &spec) {
        auto parsed = hal::parseDeviceSpec(spec);
        return parsed.ok() ? std::string() : parsed.status().message();
      });
}

} // namespace kb::workbench

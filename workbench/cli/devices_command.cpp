//===- workbench/cli/devices_command.cpp - `kernel-bench devices` ---------===//
//
// Lists every driver this build has, each with its devices and their
// properties, or the reason the driver is unavailable ("libcuda.so.1 not
// found"), all on stdout (the listing is the result; workbench/README.md).
// Exit 0 when at least one device exists, 77 when none does.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"

#include "runtime/hal/drivers/registration.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

std::string bytes(uint64_t n) {
  char buf[64];
  if (n >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof(buf), "%.1f GiB", n / double(uint64_t(1) << 30));
  else if (n >= (uint64_t(1) << 20))
    std::snprintf(buf, sizeof(buf), "%.1f MiB", n / double(1 << 20));
  else if (n >= 1024)
    std::snprintf(buf, sizeof(buf), "%.1f KiB", n / 1024.0);
  else
    std::snprintf(buf, sizeof(buf), "%llu B",
                  static_cast<unsigned long long>(n));
  return buf;
}

std::string orUnknown(uint64_t v, const std::string &text) {
  return v ? text : "unknown";
}

std::string hexId(uint32_t id) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", id);
  return text;
}

std::string dims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " +
         std::to_string(d[2]);
}

void printDevice(const hal::DeviceProperties &p) {
  std::printf("  %s:%u  %s\n", p.driver.c_str(), p.index, p.name.c_str());
  auto row = [](const char *key, const std::string &value) {
    std::printf("    %-24s %s\n", key, value.c_str());
  };
  row("type", hal::toString(p.type));
  row("vendor", p.vendor);
  row("vendor id", orUnknown(p.vendorId, hexId(p.vendorId)));
  row("device id", orUnknown(p.deviceId, hexId(p.deviceId)));
  row("UUID", p.uuid.empty() ? "unknown" : p.uuid);
  row(p.driver == "cuda" ? "compute capability" : "Vulkan version",
      p.apiVersion);
  row("driver version", p.driverVersion);
  row(p.driver == "cuda" ? "SMs" : "compute units",
      orUnknown(p.computeUnits, std::to_string(p.computeUnits)));
  row("clock",
      orUnknown(p.clockKhz, std::to_string(p.clockKhz / 1000) + " MHz"));
  row("memory clock",
      orUnknown(p.memoryClockKhz,
                std::to_string(p.memoryClockKhz / 1000) + " MHz"));
  row("memory bus", orUnknown(p.memoryBusWidthBits,
                              std::to_string(p.memoryBusWidthBits) + " bits"));
  row("memory", orUnknown(p.memoryBytes, bytes(p.memoryBytes)));
  row("L2 cache", orUnknown(p.l2CacheBytes, bytes(p.l2CacheBytes)));
  row(p.driver == "cuda" ? "warp size" : "subgroup size",
      orUnknown(p.subgroupSize, std::to_string(p.subgroupSize)));
  // What a kernel.toml `subgroup_size` may ask for on this device.
  row("required subgroup size",
      p.minSubgroupSize == 0
          ? std::string("cannot be required (no subgroup size control)")
          : std::to_string(p.minSubgroupSize) + " to " +
                std::to_string(p.maxSubgroupSize) +
                (p.fullSubgroups ? ", full subgroups supported"
                                 : ", full subgroups not supported"));
  const hal::DeviceLimits &l = p.limits;
  row("max workgroup size", dims(l.maxWorkgroupSize) + " (" +
                                std::to_string(l.maxWorkgroupInvocations) +
                                " invocations)");
  row("max workgroup count", dims(l.maxWorkgroupCount));
  row("max shared memory", bytes(l.maxSharedMemoryBytes));
  row(p.driver == "cuda" ? "max parameter bytes" : "max push constants",
      std::to_string(l.maxConstantBytes) + " B");
  row("max bindings", std::to_string(l.maxBindings));
  row("max allocation",
      orUnknown(l.maxAllocationBytes, bytes(l.maxAllocationBytes)));
  row("binding alignment", std::to_string(l.minBindingOffsetAlignment) + " B");
  char period[64];
  std::snprintf(period, sizeof(period), "%g ns/tick, %u valid bits",
                p.timestampPeriodNs, p.timestampValidBits);
  row("timestamps", p.timestampValidBits ? period : "not supported");
}

} // namespace

CommandRegistration addDevicesCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "devices", "List the GPU drivers and devices the runtime can see, and "
                 "why a driver is unavailable");
  auto validation = std::make_shared<bool>(false);
  app->add_flag("--vk-validation", *validation,
                "Enable the Vulkan validation layers (must be installed)");
  auto run = [validation]() -> int {
    hal::DriverOptions options;
    options.vulkanValidation = *validation;
    const hal::DriverRegistry &registry = hal::builtinDrivers();
    size_t deviceCount = 0;
    if (registry.names().empty())
      std::printf("this build has no GPU drivers (KB_ENABLE_CUDA and "
                  "KB_ENABLE_VULKAN are OFF)\n");
    for (const std::string &name : registry.names()) {
      auto driver = registry.create(name, options);
      if (!driver.ok()) {
        std::printf("%s: %s: %s\n", name.c_str(),
                    driver.status().isUnavailable() ? "unavailable" : "error",
                    driver.status().message().c_str());
        continue;
      }
      std::printf("%s: %zu device(s)\n", name.c_str(),
                  (*driver)->devices().size());
      for (const hal::DeviceProperties &p : (*driver)->devices())
        printDevice(p);
      deviceCount += (*driver)->devices().size();
    }
    return deviceCount ? kExitOk : kExitUnavailable;
  };
  return {app, run};
}

} // namespace kb::workbench

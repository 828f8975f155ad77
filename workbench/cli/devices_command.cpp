//===- workbench/cli/devices_command.cpp - `kernel-bench devices` ---------===//
//
// Lists every driver this build has, each with its devices and their
// properties, or the reason the driver is unavailable ("libcuda.so.1 not
// found"), all on stdout (the listing is the result; workbench/README.md);
// with --json, the same as one JSON document for scripts. Exit 0 when at
// least one device exists, 77 when none does.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"

#include "runtime/hal/drivers/registration.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

/// A value the driver did not report (0) is null, not a number to trust.
nlohmann::ordered_json known(uint64_t value) {
  return value ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
}

nlohmann::ordered_json deviceJson(const hal::DeviceProperties &p) {
  const hal::DeviceLimits &l = p.limits;
  nlohmann::ordered_json limits = {
      {"max_workgroup_size", l.maxWorkgroupSize},
      {"max_workgroup_invocations", l.maxWorkgroupInvocations},
      {"max_workgroup_count", l.maxWorkgroupCount},
      {"max_shared_memory_bytes", l.maxSharedMemoryBytes},
      {"max_constant_bytes", l.maxConstantBytes},
      {"max_bindings", l.maxBindings},
      {"max_binding_range_bytes", known(l.maxBindingRange)},
      {"min_binding_offset_alignment", l.minBindingOffsetAlignment},
      {"max_allocation_bytes", known(l.maxAllocationBytes)},
      {"max_allocation_count", known(l.maxAllocationCount)},
      {"max_parameter_bytes", known(l.maxParameterBytes)}};
  return {{"device", p.driver + ":" + std::to_string(p.index)},
          {"driver", p.driver},
          {"index", p.index},
          {"name", p.name},
          {"type", hal::toString(p.type)},
          {"vendor", p.vendor},
          {"vendor_id", known(p.vendorId)},
          {"device_id", known(p.deviceId)},
          {"uuid", p.uuid.empty() ? nlohmann::ordered_json()
                                  : nlohmann::ordered_json(p.uuid)},
          {"api_version", p.apiVersion},
          {"driver_version", p.driverVersion},
          {"compute_units", known(p.computeUnits)},
          {"clock_khz", known(p.clockKhz)},
          {"memory_clock_khz", known(p.memoryClockKhz)},
          {"memory_bus_width_bits", known(p.memoryBusWidthBits)},
          {"memory_bytes", known(p.memoryBytes)},
          {"l2_cache_bytes", known(p.l2CacheBytes)},
          {"subgroup_size", known(p.subgroupSize)},
          {"required_subgroup_size",
           p.minSubgroupSize == 0
               ? nlohmann::ordered_json()
               : nlohmann::ordered_json{{"min", p.minSubgroupSize},
                                        {"max", p.maxSubgroupSize},
                                        {"full_subgroups", p.fullSubgroups}}},
          {"timestamp_period_ns",
           p.timestampValidBits ? nlohmann::ordered_json(p.timestampPeriodNs)
                                : nlohmann::ordered_json()},
          {"timestamp_valid_bits", known(p.timestampValidBits)},
          {"limits", limits}};
}

/// One driver of the listing: its devices, or why it has none.
struct DriverListing {
  std::string name;
  Status status;
  std::vector<hal::DeviceProperties> devices;
};

std::vector<DriverListing> listDrivers(bool validation) {
  hal::DriverOptions options;
  options.vulkanValidation = validation;
  const hal::DriverRegistry &registry = hal::builtinDrivers();
  std::vector<DriverListing> listing;
  for (const std::string &name : registry.names()) {
    DriverListing &driver = listing.emplace_back();
    driver.name = name;
    auto created = registry.create(name, options);
    if (created.ok())
      driver.devices = (*created)->devices();
    else
      driver.status = created.status();
  }
  return listing;
}

void printJson(const std::vector<DriverListing> &listing) {
  nlohmann::ordered_json drivers = nlohmann::ordered_json::array();
  for (const DriverListing &driver : listing) {
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const hal::DeviceProperties &p : driver.devices)
      devices.push_back(deviceJson(p));
    drivers.push_back(
        {{"name", driver.name},
         {"status", driver.status.ok()              ? "ok"
                    : driver.status.isUnavailable() ? "unavailable"
                                                    : "error"},
         {"reason", driver.status.ok()
                        ? nlohmann::ordered_json()
                        : nlohmann::ordered_json(driver.status.message())},
         {"devices", devices}});
  }
  nlohmann::ordered_json document = {
      {"schema_version", 1},
      {"generator", "kernel-bench " KB_VERSION_STRING},
      {"drivers", drivers}};
  // Driver messages are not ours: bytes that are not UTF-8 become U+FFFD.
  std::printf(
      "%s\n",
      document
          .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
          .c_str());
}

void printText(const std::vector<DriverListing> &listing) {
  if (listing.empty())
    std::printf("this build has no GPU drivers (KB_ENABLE_CUDA and "
                "KB_ENABLE_VULKAN are OFF)\n");
  for (const DriverListing &driver : listing) {
    if (!driver.status.ok()) {
      std::printf("%s: %s: %s\n", driver.name.c_str(),
                  driver.status.isUnavailable() ? "unavailable" : "error",
                  driver.status.message().c_str());
      continue;
    }
    std::printf("%s: %zu device(s)\n", driver.name.c_str(),
                driver.devices.size());
    for (const hal::DeviceProperties &p : driver.devices)
      printDevice(p);
  }
}

} // namespace

CommandRegistration addDevicesCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "devices", "List the GPU drivers and devices the runtime can see, and "
                 "why a driver is unavailable");
  auto validation = std::make_shared<bool>(false);
  app->add_flag("--vk-validation", *validation,
                "Enable the Vulkan validation layers (must be installed)");
  auto json = std::make_shared<bool>(false);
  app->add_flag("--json", *json,
                "Print the listing as one JSON document (for scripts)");
  auto run = [validation, json]() -> int {
    std::vector<DriverListing> listing = listDrivers(*validation);
    if (*json)
      printJson(listing);
    else
      printText(listing);
    size_t deviceCount = 0;
    for (const DriverListing &driver : listing)
      deviceCount += driver.devices.size();
    return deviceCount ? kExitOk : kExitUnavailable;
  };
  return {app, run};
}

} // namespace kb::workbench

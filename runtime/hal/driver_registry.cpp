//===- runtime/hal/driver_registry.cpp - Drivers by name, device choice ---===//
#include "runtime/hal/driver_registry.h"

#include <algorithm>
#include <cctype>

namespace kb::hal {

Status DriverRegistry::add(std::string name, DriverFactory factory) {
  for (const Entry &e : entries_)
    if (e.name == name)
      return Status(StatusCode::AlreadyExists,
                    "driver `" + name + "` is already registered");
  entries_.push_back({std::move(name), std::move(factory)});
  return okStatus();
}

std::vector<std::string> DriverRegistry::names() const {
  std::vector<std::string> out;
  for (const Entry &e : entries_)
    out.push_back(e.name);
  return out;
}

static std::string joinNames(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

StatusOr<std::unique_ptr<Driver>>
DriverRegistry::create(std::string_view name,
                       const DriverOptions &options) const {
  for (const Entry &e : entries_)
    if (e.name == name)
      return e.factory(options);
  return notFound("no driver named `" + std::string(name) +
                  "` in this build; available: " + joinNames(names()));
}

namespace {
/// Preference of a device for `auto` (lower is better).
int autoRank(const DeviceProperties &p) {
  switch (p.type) {
  case DeviceType::DiscreteGpu:
    return 0;
  case DeviceType::IntegratedGpu:
    return 1;
  case DeviceType::VirtualGpu:
    return 2;
  case DeviceType::Other:
    return 3;
  case DeviceType::Cpu:
    return 4;
  }
  return 5;
}

std::string describe(const DeviceProperties &p) {
  return p.driver + ":" + std::to_string(p.index) + " " + p.name + " (" +
         toString(p.type) + ")";
}

StatusOr<SelectedDevice> open(std::unique_ptr<Driver> driver, uint32_t index,
                              const DeviceOptions &options,
                              std::string reason) {
  SelectedDevice selected;
  KB_ASSIGN_OR_RETURN(selected.device, driver->createDevice(index, options));
  selected.reason = std::move(reason) + describe(selected.device->properties());
  selected.driver = std::move(driver);
  return selected;
}
} // namespace

StatusOr<DeviceSpec> parseDeviceSpec(std::string_view spec) {
  const char *kForms = "expected auto, cuda, cuda:N, vulkan or vulkan:N";
  if (spec == "auto")
    return DeviceSpec{"auto", 0};
  std::string_view name = spec;
  uint32_t index = 0;
  if (size_t colon = spec.find(':'); colon != std::string_view::npos) {
    name = spec.substr(0, colon);
    std::string_view digits = spec.substr(colon + 1);
    if (digits.empty() || digits.size() > 6 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit((unsigned char)c); }))
      return invalidArgument("device `" + std::string(spec) + "`: bad index `" +
                             std::string(digits) + "`; " + kForms);
    index = static_cast<uint32_t>(std::stoul(std::string(digits)));
  }
  if (name != "cuda" && name != "vulkan")
    return invalidArgument("device `" + std::string(spec) + "`: " + kForms);
  return DeviceSpec{std::string(name), index};
}

StatusOr<SelectedDevice> selectDevice(const DriverRegistry &registry,
                                      std::string_view specText,
                                      const DriverOptions &driverOptions,
                                      const DeviceOptions &deviceOptions,
                                      const DeviceFilter &filter) {
  KB_ASSIGN_OR_RETURN(DeviceSpec parsed, parseDeviceSpec(specText));
  std::string spec(specText);
  if (parsed.driver == "auto") {
    // CUDA first, then Vulkan GPUs, then Vulkan CPU devices (lavapipe): rank
    // every device the drivers see and take the best, CUDA winning ties.
    std::vector<std::string> skipped;
    std::unique_ptr<Driver> best;
    int bestRank = 1 << 30;
    uint32_t bestIndex = 0;
    for (const std::string &name : registry.names()) {
      auto driver = registry.create(name, driverOptions);
      if (!driver.ok()) {
        if (!driver.status().isUnavailable())
          return driver.status();
        skipped.push_back(name + " unavailable (" + driver.status().message() +
                          ")");
        continue;
      }
      bool better = false;
      for (const DeviceProperties &p : (*driver)->devices()) {
        std::string unusable = filter ? filter(p) : std::string();
        if (!unusable.empty()) {
          skipped.push_back(describe(p) + " not usable (" + unusable + ")");
          continue;
        }
        if (autoRank(p) < bestRank) {
          bestRank = autoRank(p);
          bestIndex = p.index;
          better = true;
        }
      }
      if (better)
        best = std::move(*driver);
    }
    if (!best)
      return unavailable("no usable device found: " + joinNames(skipped));
    std::string reason = "auto: ";
    for (const std::string &s : skipped)
      reason += s + "; ";
    reason += "picked ";
    return open(std::move(best), bestIndex, deviceOptions, reason);
  }

  const std::string &name = parsed.driver;
  uint32_t index = parsed.index;
  KB_ASSIGN_OR_RETURN(auto driver, registry.create(name, driverOptions));
  if (index >= driver->devices().size())
    return unavailable("device `" + std::string(spec) + "`: the " +
                       std::string(name) + " driver has " +
                       std::to_string(driver->devices().size()) + " device(s)");
  return open(std::move(driver), index, deviceOptions, "");
}

} // namespace kb::hal

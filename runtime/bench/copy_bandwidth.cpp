//===- runtime/bench/copy_bandwidth.cpp - The measured peak ---------------===//
#include "runtime/bench/copy_bandwidth.h"

#include "runtime/bench/statistics.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kb::bench {

std::string deviceIdentity(const hal::DeviceProperties &d) {
  std::string key =
      d.driver + "|" + d.name + "|" + d.driverVersion + "|" + d.apiVersion;
  // One record per line, fields split by tabs: keep both out of the key.
  std::replace(key.begin(), key.end(), '\n', ' ');
  std::replace(key.begin(), key.end(), '\t', ' ');
  return key;
}

StatusOr<double> measureCopyBandwidth(hal::Device &device, const L2Size &l2) {
  const hal::DeviceLimits &limits = device.properties().limits;
  uint64_t bytes = std::max<uint64_t>(4 * l2.bytes, uint64_t(64) << 20);
  if (limits.maxAllocationBytes)
    bytes = std::min(bytes, limits.maxAllocationBytes);
  if (device.properties().memoryBytes)
    bytes = std::min(bytes, device.properties().memoryBytes / 4);
  bytes = bytes / 4 * 4;
  if (bytes == 0)
    return failedPrecondition("no memory for the copy-bandwidth probe");
  KB_ASSIGN_OR_RETURN(
      auto source, device.allocateBuffer(bytes, hal::MemoryType::DeviceLocal));
  KB_ASSIGN_OR_RETURN(
      auto target, device.allocateBuffer(bytes, hal::MemoryType::DeviceLocal));
  KB_ASSIGN_OR_RETURN(auto timer, device.createTimer(2));
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  KB_RETURN_IF_ERROR(commands->fillBuffer(*source, 0, 0, 0x3f800000));
  KB_RETURN_IF_ERROR(commands->barrier());
  KB_RETURN_IF_ERROR(commands->writeTimestamp(*timer, 0));
  KB_RETURN_IF_ERROR(commands->copyBuffer(*source, 0, *target, 0, bytes));
  KB_RETURN_IF_ERROR(commands->writeTimestamp(*timer, 1));
  std::vector<double> times;
  for (int i = 0; i < 6; ++i) {
    KB_RETURN_IF_ERROR(commands->submitAndWait());
    KB_ASSIGN_OR_RETURN(double ns, timer->elapsedNs(0, 1));
    if (i > 0) // the first run warms up
      times.push_back(ns);
  }
  double median = summarize(times).median;
  if (median <= 0)
    return internalError("copy-bandwidth probe: the device timestamps "
                         "measured no time");
  return 2.0 * double(bytes) / (median * 1e-9);
}

StatusOr<PeakBandwidth> peakCopyBandwidth(hal::Device &device, const L2Size &l2,
                                          const std::string &cacheFile) {
  std::string key = deviceIdentity(device.properties());
  if (!cacheFile.empty()) {
    std::ifstream in(cacheFile);
    std::string line;
    while (std::getline(in, line)) {
      size_t tab = line.rfind('\t');
      if (tab == std::string::npos || line.substr(0, tab) != key)
        continue;
      char *end = nullptr;
      double value = std::strtod(line.c_str() + tab + 1, &end);
      if (end && *end == '\0' && value > 0 && value < 1e15)
        return PeakBandwidth{value, true};
    }
  }
  KB_ASSIGN_OR_RETURN(double measured, measureCopyBandwidth(device, l2));
  if (!cacheFile.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(
        std::filesystem::path(cacheFile).parent_path(), ec);
    std::ofstream out(cacheFile, std::ios::app);
    std::ostringstream value;
    value.precision(17);
    value << measured;
    out << key << '\t' << value.str() << '\n';
  }
  return PeakBandwidth{measured, false};
}

} // namespace kb::bench

//===- workbench/bench/bench_report_fill.cpp - The report's device, -------===//
#include "workbench/bench/bench_report_fill.h"

namespace kb::workbench {

namespace {
report::L2Source toL2Source(const std::string &source) {
  if (source == "flag")
    return report::L2Source::Flag;
  if (source == "driver")
    return report::L2Source::Driver;
  if (source == "table")
    return report::L2Source::Table;
  if (source == "host-llc")
    return report::L2Source::HostCache;
  return report::L2Source::Default;
}

} // namespace

report::DeviceInfo toDeviceInfo(const hal::DeviceProperties &p,
                                const bench::L2Size &l2,
                                const DevicePeaks &peaks) {
  report::DeviceInfo d;
  d.driver = p.driver;
  d.name = p.name;
  d.type = hal::toString(p.type);
  d.driverVersion = p.driverVersion;
  d.vendorId = p.vendorId;
  d.deviceId = p.deviceId;
  d.uuid = p.uuid;
  d.memoryBytes = p.memoryBytes;
  d.l2Bytes = l2.bytes;
  d.l2Source = toL2Source(l2.source);
  if (peaks.copyBytesPerS)
    d.peakCopyGBps = *peaks.copyBytesPerS / 1e9;
  if (peaks.fmaFlopsPerS)
    d.peakFmaGflops = *peaks.fmaFlopsPerS / 1e9;
  return d;
}

report::BenchSettings toReportSettings(const BenchSettings &s,
                                       std::optional<double> budgetS,
                                       bool cpuDevice) {
  report::BenchSettings r;
  r.modes.clear();
  if (s.cold)
    r.modes.push_back(report::TimingMode::Cold);
  if (s.hot)
    r.modes.push_back(report::TimingMode::Hot);
  bench::MeasureSettings m = measureSettings(s, cpuDevice, {});
  r.minSamples = static_cast<uint32_t>(m.stopping.minSamples);
  r.minTimeSeconds = m.stopping.minTimeS;
  r.maxNoise = m.stopping.maxNoise;
  r.timeoutSeconds = m.stopping.timeoutS * static_cast<double>(r.modes.size());
  r.budgetSeconds = budgetS;
  r.quick = usesQuickSettings(s, cpuDevice);
  if (s.quick)
    r.quickReason = "--quick";
  else if (cpuDevice)
    r.quickReason = "CPU device: the noise target is never met there, so the "
                    "quick settings apply (10 samples, or fewer at the time "
                    "limit of 10 s per benchmark; noise reported, not "
                    "required)";
  r.seeds = s.seeds;
  r.sanitize = s.sanitize;
  r.profile = s.profile;
  r.counters = s.counters;
  return r;
}

} // namespace kb::workbench

//===- workbench/bench_report_fill.cpp - Engine results into the report ---===//
#include "workbench/bench_report_fill.h"

#include <cstdio>

namespace kb::workbench {

namespace {
report::StopReason toStopReason(bench::StopReason reason) {
  switch (reason) {
  case bench::StopReason::NoiseTarget:
    return report::StopReason::NoiseTarget;
  case bench::StopReason::NoisePlateau:
  case bench::StopReason::NoiseNotFinite: // the noise stopped improving too
    return report::StopReason::Plateau;
  case bench::StopReason::MinimumSamples:
    return report::StopReason::Quick;
  case bench::StopReason::Timeout:
    return report::StopReason::Timeout;
  case bench::StopReason::Interrupted:
  case bench::StopReason::NotStopped:
    return report::StopReason::Interrupted;
  }
  return report::StopReason::Interrupted;
}

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

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
} // namespace

report::Timing toTiming(const bench::ModeResult &mode) {
  report::Timing t;
  t.mode = mode.mode == bench::TimingMode::Cold ? report::TimingMode::Cold
                                                : report::TimingMode::Hot;
  t.dispatchesPerSample = mode.dispatchesPerSample;
  for (const bench::Sample &s : mode.samples) {
    report::Sample sample;
    sample.gpuNs = s.gpuNs;
    sample.hostNs = s.hostNs;
    if (s.smClockHz)
      sample.smClockMHz = *s.smClockHz / 1e6;
    t.samples.push_back(sample);
  }
  t.discarded = mode.discarded;
  t.noiseTargetMet = mode.noiseMet;
  t.stopReason = toStopReason(mode.stop);
  return t;
}

report::Correctness toCorrectness(const bench::CorrectnessResult &result) {
  report::Correctness c;
  switch (result.verdict) {
  case bench::Verdict::Correct:
    c.status = report::CorrectnessStatus::Correct;
    break;
  case bench::Verdict::Incorrect:
    c.status = report::CorrectnessStatus::Incorrect;
    break;
  case bench::Verdict::NoReference:
    c.status = report::CorrectnessStatus::NoReference;
    break;
  case bench::Verdict::NotChecked:
    c.status = report::CorrectnessStatus::NotChecked;
    break;
  }
  c.seeds = result.seedOffsets;
  for (const bench::OutputMismatch &m : result.mismatches)
    for (const module::Mismatch &x : m.first)
      c.firstMismatches.push_back(
          {m.output, x.index, number(x.reference), number(x.candidate)});
  c.note = result.reason;
  std::string inputs = "the seeds";
  if (result.zeroInputs)
    inputs += ", all zeros";
  for (const std::string &special : result.specialInputs)
    inputs += special == "large" ? ", large magnitudes"
              : special == "nan" ? ", NaN among them"
                                 : ", infinities among them";
  c.note += std::string(c.note.empty() ? "" : "; ") + "inputs: " + inputs;
  return c;
}

report::DeviceInfo toDeviceInfo(const hal::DeviceProperties &p,
                                const bench::L2Size &l2,
                                std::optional<double> peakBytesPerS) {
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
  if (peakBytesPerS)
    d.peakCopyGBps = *peakBytesPerS / 1e9;
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
                    "quick settings apply (>= 10 samples, <= 1 s per "
                    "benchmark, noise reported, not required)";
  r.seeds = s.seeds;
  return r;
}

} // namespace kb::workbench

//===- workbench/report/bench_results.cpp - The bench result model --------===//
#include "workbench/report/bench_results.h"

#include "runtime/bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <utility>

namespace kb::report {

const char *toString(L2Source source) {
  switch (source) {
  case L2Source::Driver:
    return "driver";
  case L2Source::Table:
    return "table";
  case L2Source::Default:
    return "default";
  case L2Source::Flag:
    return "flag";
  case L2Source::HostCache:
    return "host-llc";
  }
  return "default";
}

std::vector<double> gpuTimes(const Timing &timing) {
  std::vector<double> times;
  times.reserve(timing.samples.size());
  for (const Sample &sample : timing.samples)
    times.push_back(sample.gpuNs);
  return times;
}

namespace {
const Timing *findTiming(const Variant &variant, TimingMode mode) {
  for (const Timing &t : variant.timings)
    if (t.mode == mode)
      return &t;
  return nullptr;
}

/// A figure that is not finite (a cached copy peak of 1e-300 gives an
/// infinite percentage) becomes unknown with a warning: bench.json is strict
/// JSON, and one such number would lose the whole measured report.
void dropNonFinite(std::optional<double> &figure, const char *what,
                   const std::string &where,
                   std::vector<std::string> &warnings) {
  if (!figure || std::isfinite(*figure))
    return;
  warnings.push_back(where + ": " + what + " is not finite (" +
                     std::to_string(*figure) +
                     "); reported as unknown. Check the declared FLOPs and "
                     "bytes, and the cached copy peak");
  figure.reset();
}

/// Where |d|'s achieved FLOP/s stand under the roofline of |device|.
void deriveRoofline(Derived &d, const Variant &variant,
                    const DeviceInfo &device) {
  auto positive = [](std::optional<double> v) {
    return v && std::isfinite(*v) && *v > 0;
  };
  // No work, or no ceiling, is no point under the roofline.
  if (!positive(d.gflopPerSecond) || !variant.bytesMoved ||
      *variant.bytesMoved == 0 || !positive(variant.flops) ||
      !positive(device.peakCopyGBps) || !positive(device.peakFmaGflops))
    return;
  double intensity = *variant.flops / double(*variant.bytesMoved);
  double memoryCeiling = intensity * *device.peakCopyGBps; // GFLOP/s
  d.bound = memoryCeiling < *device.peakFmaGflops ? "memory" : "compute";
  d.percentOfRoofline = *d.gflopPerSecond /
                        std::min(memoryCeiling, *device.peakFmaGflops) * 100.0;
}

void deriveTiming(Timing &t, const Variant &variant, const Variant *reference,
                  const DeviceInfo &device) {
  t.summary = summarize(gpuTimes(t));
  Derived d;
  double medianNs = t.summary.median;
  if (medianNs > 0) {
    if (variant.bytesMoved)
      d.gbPerSecond = static_cast<double>(*variant.bytesMoved) / medianNs;
    if (variant.flops)
      d.gflopPerSecond = *variant.flops / medianNs;
    if (d.gbPerSecond && device.peakCopyGBps && *device.peakCopyGBps > 0)
      d.percentOfPeak = *d.gbPerSecond / *device.peakCopyGBps * 100.0;
    deriveRoofline(d, variant, device);
    const Timing *ref = reference && reference != &variant
                            ? findTiming(*reference, t.mode)
                            : nullptr;
    if (ref && !ref->samples.empty()) {
      double refMedian = summarize(gpuTimes(*ref)).median;
      d.speedupVsReference = refMedian / medianNs;
      d.suspiciousSpeedup = *d.speedupVsReference > kSuspiciousSpeedup;
    }
  }
  t.derived = d;
}
} // namespace

void computeDerived(BenchReport &report) {
  for (Benchmark &b : report.benchmarks) {
    const Variant *reference = findReference(b);
    for (Variant &v : b.variants)
      for (Timing &t : v.timings) {
        deriveTiming(t, v, reference, report.device);
        std::string where = b.name + "/" + v.name + "/" + toString(t.mode);
        std::vector<std::string> &warnings = report.environment.warnings;
        dropNonFinite(t.derived.gbPerSecond, "GB/s", where, warnings);
        dropNonFinite(t.derived.gflopPerSecond, "GFLOP/s", where, warnings);
        dropNonFinite(t.derived.percentOfPeak, "% of peak", where, warnings);
        dropNonFinite(t.derived.percentOfRoofline, "% of the roofline", where,
                      warnings);
        dropNonFinite(t.derived.speedupVsReference, "the speedup", where,
                      warnings);
      }
  }
  if (report.program) {
    ProgramResult &p = *report.program;
    for (std::optional<Timing> *t : {&p.withSubstitutions, &p.generatedOnly})
      if (*t)
        (*t)->summary = summarize(gpuTimes(**t));
    p.speedup.reset();
    if (p.withSubstitutions && p.generatedOnly &&
        p.withSubstitutions->summary.median > 0)
      p.speedup =
          p.generatedOnly->summary.median / p.withSubstitutions->summary.median;
  }
}

const Variant *findReference(const Benchmark &benchmark) {
  for (const Variant &v : benchmark.variants)
    if (v.role == VariantRole::Reference)
      return &v;
  return nullptr;
}

} // namespace kb::report

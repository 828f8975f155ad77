//===- workbench/bench/bench_settings.h - What `bench` measures and how ---===//
//
// The settings of a `kernel-bench bench` run as the user gave them; the
// parent passes them to each worker as flags (workerArgs), and the worker
// turns them into the engine's settings for its device (measureSettings:
// on a CPU device, or with --quick, the stopping rule becomes the quick one).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BENCH_SETTINGS_H_
#define KB_WORKBENCH_BENCH_BENCH_SETTINGS_H_

#include "runtime/bench/correctness.h"
#include "runtime/bench/measure.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Validator;
} // namespace CLI

namespace kb::workbench {

struct BenchSettings {
  std::string device = "auto";
  bool cold = true, hot = true;
  // The stopping rule's thresholds, set only when given on the command line:
  // an explicit value wins over the defaults, the quick ones included
  // (`--quick --min-samples 50` takes 50 samples). Unset: the engine's
  // defaults (bench::StoppingSettings), or the quick ones.
  std::optional<size_t> minSamples;
  std::optional<double> minTimeS;
  std::optional<double> maxNoise;
  std::optional<double> timeoutS; // sampling wall time per benchmark
  bool quick = false;
  uint64_t l2Bytes = 0; // 0 = choose (cache_flush.h)
  uint32_t seeds = 3;
  double hotMinSampleMs = 1;
  /// Where the measured copy bandwidth is cached ("" = do not probe).
  std::string peakCache;
  /// Check every benchmark under the Vulkan validation layer (GPU-assisted
  /// and synchronization validation) and time nothing: its instrumented
  /// shaders run far slower than the kernel does.
  bool sanitize = false;
  /// Run each benchmark's variants once, after a warm-up, inside profiler
  /// labels named after the benchmark and the variant, and time nothing
  /// (runtime/bench/profiled_run.h).
  bool profile = false;
  /// After each benchmark is timed, read each variant's hardware counters
  /// (DRAM bytes, achieved occupancy, SM throughput) through the device's
  /// counter session (runtime/bench/counted_run.h).
  bool counters = false;
};

/// A positive, finite number (CLI11's own checks let "inf" and "nan" in).
CLI::Validator positiveFinite();

/// Adds the measurement flags shared by `bench` and its worker to |app|.
void addMeasurementFlags(CLI::App &app, BenchSettings &settings);
/// The same flags, as worker arguments.
std::vector<std::string> workerArgs(const BenchSettings &settings);

/// Whether the quick settings apply: --quick, or a CPU device (where the
/// noise target is never met).
bool usesQuickSettings(const BenchSettings &settings, bool cpuDevice);
/// The stopping rule: the quick or the full defaults, then every threshold
/// the user gave explicitly (per benchmark; the modes share the timeout).
bench::StoppingSettings stoppingSettings(const BenchSettings &settings,
                                         bool cpuDevice);
bench::MeasureSettings measureSettings(const BenchSettings &settings,
                                       bool cpuDevice, bench::L2Size l2);
bench::CorrectnessSettings correctnessSettings(const BenchSettings &settings);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BENCH_SETTINGS_H_

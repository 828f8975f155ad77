//===- workbench/bench/bench_settings.cpp - What `bench` measures and how -===//
#include "workbench/bench/bench_settings.h"
#include "workbench/bench/device_option.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <sstream>

namespace kb::workbench {

namespace {
std::string text(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}
} // namespace

CLI::Validator positiveFinite() {
  return CLI::Validator(
      [](std::string &input) -> std::string {
        double v = 0;
        try {
          size_t used = 0;
          v = std::stod(input, &used);
          if (used != input.size())
            return "expected a number, got `" + input + "`";
        } catch (...) {
          return "expected a number, got `" + input + "`";
        }
        if (!std::isfinite(v) || v <= 0)
          return "expected a positive finite number, got `" + input + "`";
        return "";
      },
      "POSITIVE");
}

namespace {

/// `--l2-size`: a byte count the flush can honour. Checked on the text:
/// CLI11 would read "-1" into an unsigned as 2^64-1, whose doubled flush
/// size wraps to 0, and cold samples would quietly run warm.
std::string checkL2Size(const std::string &text) {
  constexpr uint64_t kMax = uint64_t(1) << 40; // 1 TiB
  bool digits = !text.empty() && text.size() <= 13 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  uint64_t bytes = digits ? std::stoull(text) : 0;
  if (bytes >= 1 && bytes <= kMax)
    return "";
  // CLI11 puts the option's name in front.
  return "expected a byte count from 1 to 1099511627776 (1 TiB), found `" +
         text + (digits ? "`, out of range" : "`, not a plain integer");
}

} // namespace

void addMeasurementFlags(CLI::App &app, BenchSettings &s) {
  addDeviceOption(app, s.device,
                  "CUDA, then a Vulkan GPU, then a Vulkan CPU device such as "
                  "lavapipe");
  auto *cold = app.add_flag_callback(
      "--cold", [&s] { s.cold = true, s.hot = false; },
      "Cold samples only (L2 flushed before each)");
  auto *hot = app.add_flag_callback(
      "--hot", [&s] { s.cold = false, s.hot = true; },
      "Hot samples only (back-to-back dispatches)");
  app.add_flag_callback(
         "--both", [&s] { s.cold = s.hot = true; },
         "Cold and hot samples (the default)")
      ->excludes(cold)
      ->excludes(hot);
  cold->excludes(hot);
  app.add_option("--min-samples", s.minSamples,
                 "Samples before the stopping rule may stop (default 10)")
      ->check(CLI::Range(size_t(1), size_t(1) << 30));
  app.add_option("--min-time", s.minTimeS,
                 "Seconds spent sampling (wall time of the accepted "
                 "samples) before stopping (default 0.5)")
      ->check(positiveFinite());
  app.add_option("--max-noise", s.maxNoise,
                 "Relative stdev that ends sampling (default 0.005 = 0.5%)")
      ->check(positiveFinite());
  app.add_option("--timeout", s.timeoutS,
                 "Seconds of sampling per benchmark, whatever the noise "
                 "(default 15)")
      ->check(positiveFinite());
  app.add_flag("--quick", s.quick,
               "Quick settings: 10 samples, or fewer at the time limit of "
               "10 s per benchmark; noise reported but not required (the "
               "default on CPU devices); "
               "--min-samples, --min-time, --max-noise and --timeout given "
               "explicitly still apply");
  app.add_option("--l2-size", s.l2Bytes,
                 "Bytes of last-level cache to flush (x2) before cold "
                 "samples, 1 B .. 1 TiB (default: from the driver, a table, "
                 "or 256 MiB)")
      ->check(checkL2Size);
  app.add_option("--seeds", s.seeds,
                 "Seeded input sets for the correctness check (default 3)")
      ->check(CLI::Range(1u, 100u));
  app.add_flag("--sanitize", s.sanitize,
               "Check each benchmark's kernels under the Vulkan validation "
               "layer (accesses outside a bound buffer, synchronization "
               "hazards) and with a guard band after every buffer (writes "
               "a little past its end), and time nothing; a finding makes "
               "the row SANITIZER (exit 1). On a Vulkan device (auto), or "
               "with --device cuda under compute-sanitizer (memcheck, "
               "racecheck, initcheck, synccheck)");
  app.add_flag("--profile", s.profile,
               "Run each benchmark's variants once after a warm-up and the "
               "correctness check, each inside a profiler label "
               "BENCHMARK/VARIANT (an NVTX range on CUDA, a "
               "VK_EXT_debug_utils label on Vulkan), with no cache flush or "
               "timer around it, and time nothing: for ncu --nvtx, nsys and "
               "RenderDoc (docs/profiling.md)")
      ->excludes("--sanitize");
  app.add_flag("--counters", s.counters,
               "After each benchmark is timed, read each variant's hardware "
               "counters over one more run of its work (DRAM bytes read and "
               "written, achieved occupancy, SM throughput), replayed as "
               "many times as the counters need. CUDA with NVIDIA's CUPTI; "
               "elsewhere, or where the driver keeps counters from this "
               "user, the rows say why they have none")
      ->excludes("--sanitize")
      ->excludes("--profile");
}

std::vector<std::string> workerArgs(const BenchSettings &s) {
  std::vector<std::string> args = {"--device", s.device, "--seeds",
                                   std::to_string(s.seeds)};
  // Only what the user gave: the worker applies the defaults for its device.
  auto pass = [&args](const char *flag, std::optional<std::string> value) {
    if (value) {
      args.push_back(flag);
      args.push_back(*value);
    }
  };
  pass("--min-samples", s.minSamples
                            ? std::optional(std::to_string(*s.minSamples))
                            : std::nullopt);
  pass("--min-time",
       s.minTimeS ? std::optional(text(*s.minTimeS)) : std::nullopt);
  pass("--max-noise",
       s.maxNoise ? std::optional(text(*s.maxNoise)) : std::nullopt);
  pass("--timeout",
       s.timeoutS ? std::optional(text(*s.timeoutS)) : std::nullopt);
  if (s.cold && !s.hot)
    args.push_back("--cold");
  if (s.hot && !s.cold)
    args.push_back("--hot");
  if (s.quick)
    args.push_back("--quick");
  if (s.sanitize)
    args.push_back("--sanitize");
  if (s.profile)
    args.push_back("--profile");
  if (s.counters)
    args.push_back("--counters");
  if (s.l2Bytes) {
    args.push_back("--l2-size");
    args.push_back(std::to_string(s.l2Bytes));
  }
  if (!s.peakCache.empty()) {
    args.push_back("--peak-cache");
    args.push_back(s.peakCache);
  }
  return args;
}

bool usesQuickSettings(const BenchSettings &s, bool cpuDevice) {
  return s.quick || cpuDevice;
}

bench::StoppingSettings stoppingSettings(const BenchSettings &s,
                                         bool cpuDevice) {
  bench::StoppingSettings stopping = usesQuickSettings(s, cpuDevice)
                                         ? bench::quickStoppingSettings()
                                         : bench::StoppingSettings();
  stopping.minSamples = s.minSamples.value_or(stopping.minSamples);
  stopping.minTimeS = s.minTimeS.value_or(stopping.minTimeS);
  stopping.maxNoise = s.maxNoise.value_or(stopping.maxNoise);
  stopping.timeoutS = s.timeoutS.value_or(stopping.timeoutS);
  return stopping;
}

bench::MeasureSettings measureSettings(const BenchSettings &s, bool cpuDevice,
                                       bench::L2Size l2) {
  bench::MeasureSettings m;
  m.stopping = stoppingSettings(s, cpuDevice);
  // The per-benchmark time is shared by the timing modes.
  int modes = (s.cold ? 1 : 0) + (s.hot ? 1 : 0);
  m.stopping.timeoutS /= std::max(modes, 1);
  m.l2 = l2;
  m.hotMinSampleNs = s.hotMinSampleMs * 1e6;
  return m;
}

bench::CorrectnessSettings correctnessSettings(const BenchSettings &s) {
  bench::CorrectnessSettings c;
  c.seeds = s.seeds;
  return c;
}

} // namespace kb::workbench

//===- workbench/bench/bench_settings_test.cpp - bench's measurement ------===//
//
// The flags as `kernel-bench bench` parses them, through the worker
// arguments, into the engine's stopping rule: explicit values win over the
// defaults, the quick ones included.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/bench_settings.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>

namespace kb::workbench {
namespace {

/// Parses |args| as `bench` does, then once more as the worker does from
/// the parent's worker arguments; returns the worker's settings.
BenchSettings parseViaWorker(std::vector<std::string> args) {
  BenchSettings parent;
  CLI::App bench;
  addMeasurementFlags(bench, parent);
  std::reverse(args.begin(), args.end()); // CLI11 wants them reversed
  bench.parse(args);

  BenchSettings worker;
  CLI::App app;
  addMeasurementFlags(app, worker);
  std::vector<std::string> passed = workerArgs(parent);
  std::reverse(passed.begin(), passed.end());
  app.parse(passed);
  return worker;
}

TEST(BenchSettings, DefaultsAreTheEngines) {
  bench::StoppingSettings s = stoppingSettings(parseViaWorker({}), false);
  bench::StoppingSettings engine;
  EXPECT_EQ(s.minSamples, engine.minSamples);
  EXPECT_EQ(s.minTimeS, engine.minTimeS);
  EXPECT_EQ(s.maxNoise, engine.maxNoise);
  EXPECT_EQ(s.timeoutS, engine.timeoutS);
  EXPECT_TRUE(s.noiseRequired);
}

TEST(BenchSettings, QuickAloneIsTheQuickRule) {
  bench::StoppingSettings s =
      stoppingSettings(parseViaWorker({"--quick"}), false);
  bench::StoppingSettings quick = bench::quickStoppingSettings();
  EXPECT_EQ(s.minSamples, quick.minSamples);
  EXPECT_EQ(s.minTimeS, quick.minTimeS);
  EXPECT_EQ(s.timeoutS, quick.timeoutS);
  EXPECT_FALSE(s.noiseRequired);
}

TEST(BenchSettings, ExplicitFlagsWinOverQuick) {
  bench::StoppingSettings s = stoppingSettings(
      parseViaWorker({"--quick", "--min-samples", "50", "--timeout", "7",
                      "--min-time", "0.25", "--max-noise", "0.02"}),
      false);
  EXPECT_EQ(s.minSamples, 50u);
  EXPECT_EQ(s.timeoutS, 7);
  EXPECT_EQ(s.minTimeS, 0.25);
  EXPECT_EQ(s.maxNoise, 0.02);
  EXPECT_FALSE(s.noiseRequired); // still quick: noise reported, not required
  // Flag order does not matter.
  EXPECT_EQ(stoppingSettings(parseViaWorker({"--min-samples", "50", "--quick"}),
                             false)
                .minSamples,
            50u);
}

TEST(BenchSettings, ExplicitFlagsWinOverTheCpuDeviceDefaults) {
  BenchSettings given = parseViaWorker({"--min-samples", "30"});
  bench::StoppingSettings s = stoppingSettings(given, /*cpuDevice=*/true);
  EXPECT_EQ(s.minSamples, 30u);
  EXPECT_EQ(s.timeoutS, bench::quickStoppingSettings().timeoutS);
  EXPECT_FALSE(s.noiseRequired);
}

TEST(BenchSettings, TheModesShareTheTimeout) {
  BenchSettings both = parseViaWorker({"--timeout", "8"});
  EXPECT_EQ(measureSettings(both, false, {}).stopping.timeoutS, 4);
  BenchSettings cold = parseViaWorker({"--timeout", "8", "--cold"});
  EXPECT_EQ(measureSettings(cold, false, {}).stopping.timeoutS, 8);
}

TEST(BenchSettings, AnL2SizeTheFlushCannotHonourIsAUsageError) {
  for (const char *bad :
       {"-1", "0", "18446744073709551615", "9223372036854775807",
        "1099511627777", "12MiB", ""}) {
    CLI::App app;
    BenchSettings settings;
    addMeasurementFlags(app, settings);
    EXPECT_THROW(app.parse(std::vector<std::string>{bad, "--l2-size"}),
                 CLI::ValidationError)
        << bad;
  }
  EXPECT_EQ(parseViaWorker({"--l2-size", "52428800"}).l2Bytes, 52428800u);
}

} // namespace
} // namespace kb::workbench

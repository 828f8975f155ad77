//===- bench/harness_overhead/harness_overhead.cpp - bench's own cost -----===//
//
//   harness_overhead BUILD KERNEL_BENCH [--device D] [--samples N]
//
// BUILD is a build of examples/quickstart (kernel-bench build). Prints, in
// one run:
//
//  1. the measurement engine's wall time per accepted cold sample
//     (runtime/bench Engine::measureInterleaved, one subject) against a raw
//     loop doing the same device work per sample — the same command buffer
//     (flush fill, barrier, timestamp, dispatch, timestamp), submitted and
//     its timer read N times, without the engine's bookkeeping (stopping
//     rule, progress, summaries). Target: ratio <= 1.2;
//  2. the total wall time of `kernel-bench bench BUILD --quick` (workers,
//     correctness checks, every benchmark, bench.json).
//
// Not a test: the numbers depend on the machine (lavapipe in CI).
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/measure.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/module/executor.h"
#include "toolchains/process.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

using namespace kb;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int fail(const std::string &message) {
  std::fprintf(stderr, "harness_overhead: %s\n", message.c_str());
  return 1;
}

/// The first benchmark module of |build| (sorted, so runs are comparable).
std::string firstBenchModule(const fs::path &build) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(build / "bench", ec))
    if (entry.path().extension() == ".kbm")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files.empty() ? "" : files.front();
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return fail("usage: harness_overhead BUILD KERNEL_BENCH [--device D] "
                "[--samples N]");
  fs::path build = argv[1];
  std::string kernelBench = argv[2];
  std::string deviceName = "auto";
  size_t samples = 50;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device"))
      deviceName = argv[i + 1];
    else if (!std::strcmp(argv[i], "--samples"))
      samples = std::max(1, std::atoi(argv[i + 1]));
  }
  std::string path = firstBenchModule(build);
  if (path.empty())
    return fail(build.string() + "/bench holds no .kbm: build "
                                 "examples/quickstart into it first");
  auto module = module::loadModuleFile(path);
  if (!module.ok())
    return fail(module.status().message());
  auto selected = hal::selectDevice(hal::builtinDrivers(), deviceName);
  if (!selected.ok()) {
    std::printf("harness_overhead: skipped: %s\n",
                selected.status().message().c_str());
    return 0;
  }
  hal::Device &device = *selected->device;
  const module::Benchmark &b = module->benchmarks.front();
  auto prepared = module::PreparedFunction::create(
      device, *module, module->functions[b.function],
      module::VariantChoice::PreferCandidate);
  if (!prepared.ok())
    return fail(prepared.status().message());

  bench::MeasureSettings settings;
  settings.stopping.minSamples = samples;
  settings.stopping.minTimeS = 0;
  settings.stopping.noiseRequired = false;
  settings.stopping.timeoutS = 1e9;
  settings.l2 = bench::selectL2Size(device.properties(), std::nullopt,
                                    bench::hostLastLevelCacheBytes());
  auto engine = bench::Engine::create(device, settings);
  if (!engine.ok())
    return fail(engine.status().message());
  bench::Subject subject{"candidate", [&](hal::CommandBuffer &c) {
                           return (*prepared)->record(c);
                         }};

  // The raw loop: the engine's cold command buffer, built by hand.
  auto flush = device.allocateBuffer(settings.l2.flushBytes(),
                                     hal::MemoryType::DeviceLocal);
  auto timer = device.createTimer(2);
  auto commands = device.createCommandBuffer();
  if (!flush.ok() || !timer.ok() || !commands.ok())
    return fail("cannot create the raw loop's resources");
  hal::CommandBuffer &cb = **commands;
  Status recorded = cb.fillBuffer(**flush, 0, 0, 0x5a5a5a5a);
  if (recorded.ok())
    recorded = cb.barrier();
  if (recorded.ok())
    recorded = cb.writeTimestamp(**timer, 0);
  if (recorded.ok())
    recorded = (*prepared)->record(cb);
  if (recorded.ok())
    recorded = cb.writeTimestamp(**timer, 1);
  if (!recorded.ok())
    return fail(recorded.message());
  if (Status warm = cb.submitAndWait(); !warm.ok())
    return fail(warm.message());

  // Alternate the two so drift hits both; best of 3 rounds each.
  double harnessBest = 1e30, rawBest = 1e30;
  for (int round = 0; round < 3; ++round) {
    auto start = Clock::now();
    auto results =
        (*engine)->measureInterleaved({subject}, bench::TimingMode::Cold);
    if (!results.ok())
      return fail(results.status().message());
    harnessBest = std::min(harnessBest, secondsSince(start) /
                                            double((*results)[0].gpu.count));
    start = Clock::now();
    double sink = 0;
    for (size_t i = 0; i < samples; ++i) {
      if (Status s = cb.submitAndWait(); !s.ok())
        return fail(s.message());
      auto ns = (*timer)->elapsedNs(0, 1);
      sink += ns.ok() ? *ns : 0;
    }
    rawBest = std::min(rawBest, secondsSince(start) / double(samples));
    if (sink < 0)
      std::printf("impossible\n");
  }
  std::printf("device: %s\n", selected->reason.c_str());
  std::printf("benchmark: %s (%s)\n", b.name.c_str(), path.c_str());
  std::printf("per accepted cold sample: harness %.3f ms, raw driver loop "
              "%.3f ms, ratio %.3fx (target <= 1.20x)\n",
              harnessBest * 1e3, rawBest * 1e3, harnessBest / rawBest);

  toolchains::ProcessOptions run;
  run.argv = {kernelBench,    "bench",
              build.string(), "--quick",
              "--device",     deviceName,
              "-o",           (build / "harness-overhead-results").string()};
  auto start = Clock::now();
  auto result = toolchains::runProcess(run);
  double total = secondsSince(start);
  if (!result.ok())
    return fail(result.status().message());
  std::printf("kernel-bench bench --quick on %s: %.2f s wall (%s)\n",
              build.string().c_str(), total, result->describe().c_str());
  return 0;
}

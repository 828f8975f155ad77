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
//     rule, throttle check, summaries). Both count their set-up (timer,
//     command buffer, one warm-up submission) and share one flush buffer;
//     the median device time of both is printed to show they timed the
//     same work. Target: ratio <= 1.2;
//  2. the total wall time of `kernel-bench bench BUILD --quick` (workers,
//     correctness checks, every benchmark, bench.json).
//
// Not a test: the numbers depend on the machine (lavapipe in CI).
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/measure.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/module/executor.h"
#include "common/process.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

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

/// The raw driver loop: the engine's cold command buffer (flush fill,
/// barrier, timestamp, dispatch, timestamp) built by hand, warmed up once,
/// then submitted and its timer read |samples| times with no bookkeeping.
/// Returns the median device time of one sample (ns), to show that both
/// loops timed the same work.
StatusOr<double> rawLoop(hal::Device &device, hal::Buffer &flush,
                         module::PreparedFunction &prepared, size_t samples) {
  KB_ASSIGN_OR_RETURN(auto timer, device.createTimer(2));
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  hal::CommandBuffer &cb = *commands;
  KB_RETURN_IF_ERROR(cb.fillBuffer(flush, 0, 0, 0x5a5a5a5a));
  KB_RETURN_IF_ERROR(cb.barrier());
  KB_RETURN_IF_ERROR(cb.writeTimestamp(*timer, 0));
  KB_RETURN_IF_ERROR(prepared.record(cb));
  KB_RETURN_IF_ERROR(cb.writeTimestamp(*timer, 1));
  KB_RETURN_IF_ERROR(cb.submitAndWait());
  std::vector<double> gpuNs(samples);
  for (size_t i = 0; i < samples; ++i) {
    KB_RETURN_IF_ERROR(cb.submitAndWait());
    KB_ASSIGN_OR_RETURN(gpuNs[i], timer->elapsedNs(0, 1));
  }
  std::nth_element(gpuNs.begin(), gpuNs.begin() + samples / 2, gpuNs.end());
  return gpuNs[samples / 2];
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

  // The flush buffer both use is allocated once, as the engine's is.
  auto flush = device.allocateBuffer(settings.l2.flushBytes(),
                                     hal::MemoryType::DeviceLocal);
  if (!flush.ok())
    return fail("cannot allocate the flush buffer: " +
                flush.status().message());

  // Alternate the two so drift hits both; best of 3 rounds each. Both
  // count their set-up (timer, command buffer, one warm-up submission).
  double harnessBest = 1e30, rawBest = 1e30, harnessGpuNs = 0, rawGpuNs = 0;
  for (int round = 0; round < 3; ++round) {
    auto start = Clock::now();
    auto results =
        (*engine)->measureInterleaved({subject}, bench::TimingMode::Cold);
    if (!results.ok())
      return fail(results.status().message());
    harnessBest = std::min(
        harnessBest, secondsSince(start) / double((*results)[0].summary.count));
    harnessGpuNs = (*results)[0].summary.median;
    start = Clock::now();
    auto raw = rawLoop(device, **flush, **prepared, samples);
    if (!raw.ok())
      return fail(raw.status().message());
    rawBest = std::min(rawBest, secondsSince(start) / double(samples));
    rawGpuNs = *raw;
  }
  std::printf("device: %s\n", selected->reason.c_str());
  std::printf("benchmark: %s (%s)\n", b.name.c_str(), path.c_str());
  std::printf("per accepted cold sample (%zu samples, best of 3): harness "
              "%.3f ms, raw driver loop %.3f ms (anchor), ratio %.3fx "
              "(target <= 1.20x)\n",
              samples, harnessBest * 1e3, rawBest * 1e3, harnessBest / rawBest);
  std::printf("same work: median device time per sample %.1f us (harness), "
              "%.1f us (raw loop)\n",
              harnessGpuNs / 1e3, rawGpuNs / 1e3);

  kb::ProcessOptions run;
  run.argv = {kernelBench,    "bench",
              build.string(), "--quick",
              "--device",     deviceName,
              "-o",           (build / "harness-overhead-results").string()};
  auto start = Clock::now();
  auto result = kb::runProcess(run);
  double total = secondsSince(start);
  if (!result.ok())
    return fail(result.status().message());
  std::printf("kernel-bench bench --quick on %s: %.2f s wall (%s)\n",
              build.string().c_str(), total, result->describe().c_str());
  return 0;
}

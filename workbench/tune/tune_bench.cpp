//===- workbench/tune/tune_bench.cpp - How tune measures a batch ----------===//
#include "workbench/tune/tune_bench.h"

namespace kb::workbench {

BenchRequest tuneBenchRequest(const std::string &buildDir,
                              std::vector<std::string> kernels,
                              const std::string &device, size_t minSamples,
                              double watchdogS) {
  BenchRequest request;
  request.build = buildDir;
  request.select.kernels = std::move(kernels);
  request.settings.device = device;
  request.settings.cold = false;
  request.settings.quick = true;
  request.settings.seeds = 1;
  request.settings.minSamples = minSamples;
  // Tune times many configurations: a slow one gets what 1 s of hot samples
  // gives (bench --quick's own limit is longer, to reach 10 samples).
  request.settings.timeoutS = kTuneSampleTimeoutS;
  request.watchdogS = watchdogS;
  return request;
}

} // namespace kb::workbench

//===- workbench/tune_bench.cpp - One `bench` run for `tune` --------------===//
#include "workbench/tune_bench.h"

#include "workbench/bench_command.h"

namespace kb::workbench {

int runTuneBench(const TuneBenchRequest &request) {
  BenchCommandFlags flags;
  flags.build = request.build;
  flags.outDir = request.outDir;
  flags.filter = request.filter;
  flags.settings.device = request.device;
  flags.settings.cold = false;
  flags.settings.quick = true;
  flags.settings.seeds = 1;
  flags.settings.minSamples = request.minSamples;
  flags.watchdogS = request.watchdogS;
  return runBench(flags);
}

} // namespace kb::workbench

//===- reference_differential.cpp - many generated references, 3 ways ----===//
//
// The full-size run of the differential test (kb/Testing/Differential.h):
// tens of thousands of generated kernel bodies, each run on the CPU at 64-
// and 32-bit index, through the SPIR-V codegen on the Vulkan device and the
// CUDA codegen on a GPU where there is one. Prints how many ran and every
// disagreement with the seed that reproduces it.
//
//   reference_differential [--seeds N] [--first S]   run seeds S .. S+N-1
//   reference_differential --dump SEED               print that body's MLIR
//                                                    and its buffers
//   reference_differential --models [--seeds N] [--first S]
//                                  the same for seeded front-end models
//                                  (kb/Testing/ModelGenerator.h): every
//                                  dispatch the front end forms from each
//   reference_differential --dump-model SEED         print that model
//
//===----------------------------------------------------------------------===//
#include "kb/Testing/Differential.h"
#include "kb/Testing/KernelGenerator.h"
#include "kb/Testing/ModelGenerator.h"

#include "common/kernel_abi.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace kb::differential;

namespace {

struct Tally {
  uint64_t ran = 0, disagreeing = 0, errors = 0;
  /// Runs |c| and prints what disagreed or failed.
  void run(Runner &runner, const Case &c) {
    kb::StatusOr<Outcome> outcome = runner.run(c);
    if (!outcome.ok()) {
      ++errors;
      std::printf("ERROR %s\n", outcome.status().message().c_str());
      return;
    }
    ++ran;
    disagreeing += outcome->agree() ? 0 : 1;
    for (const std::string &line : outcome->disagreements)
      std::printf("DISAGREE %s\n", line.c_str());
  }
  /// Runs every case of |cases|, or counts and prints why there are none.
  void runAll(Runner &runner, const kb::StatusOr<std::vector<Case>> &cases) {
    if (!cases.ok()) {
      ++errors;
      std::printf("ERROR %s\n", cases.status().message().c_str());
      return;
    }
    for (const Case &c : *cases)
      run(runner, c);
  }
};

/// Every dispatch the front end forms from model |seed|.
void runModel(Runner &runner, uint64_t seed, Tally &tally) {
  GeneratedModel model = generateModel(seed);
  std::string name =
      "model seed=" + std::to_string(seed) + " (" + model.opClass + ")";
  tally.runAll(runner, casesFromModel(name, model.mlir));
}

/// Every benchmark of the program in |path| (a program.mlir, or the one a
/// build synthesized for a standalone kernel).
void runProgram(Runner &runner, const std::string &path, Tally &tally) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  tally.runAll(runner, file ? casesFromProgram(path, text.str())
                            : kb::StatusOr<std::vector<Case>>(
                                  kb::notFound(path + ": cannot be read")));
}

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--models] [--seeds N] [--first S] | --dump SEED | "
               "--dump-model SEED | --program FILE...\n",
               argv0);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t first = 0, seeds = 20000;
  bool models = false;
  std::vector<std::string> programs;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--models") {
      models = true;
      continue;
    }
    if (flag == "--program" && i + 1 < argc) {
      programs.push_back(argv[++i]);
      continue;
    }
    if (i + 1 >= argc)
      return usage(argv[0]);
    uint64_t value = std::strtoull(argv[++i], nullptr, 10);
    if (flag == "--seeds")
      seeds = value;
    else if (flag == "--first")
      first = value;
    else if (flag == "--dump") {
      GeneratedKernel kernel = generateKernel(value);
      std::printf("%s\n// %s\n", kernel.mlir.c_str(),
                  describeKernel(kernel).c_str());
      return 0;
    } else if (flag == "--dump-model") {
      GeneratedModel model = generateModel(value);
      std::printf("// %s\n%s", model.opClass.c_str(), model.mlir.c_str());
      return 0;
    } else {
      return usage(argv[0]);
    }
  }
  std::unique_ptr<Runner> runner = Runner::create();
  std::printf("devices: %s\n", runner->describeDevices().c_str());
  auto start = std::chrono::steady_clock::now();
  Tally tally;
  for (const std::string &program : programs)
    runProgram(*runner, program, tally);
  for (uint64_t seed = first; programs.empty() && seed < first + seeds;
       ++seed) {
    if (models)
      runModel(*runner, seed, tally);
    else
      tally.run(*runner, generatedCase(seed));
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!programs.empty())
    std::printf("%llu program benchmarks ran in %.1f s: %llu disagree, %llu "
                "errors\n",
                (unsigned long long)tally.ran, seconds,
                (unsigned long long)tally.disagreeing,
                (unsigned long long)tally.errors);
  else
    std::printf("%llu %s ran (seeds %llu..%llu) in %.1f s: %llu disagree, "
                "%llu errors\n",
                (unsigned long long)tally.ran,
                models ? "front-end dispatches" : "bodies",
                (unsigned long long)first,
                (unsigned long long)(first + seeds - 1), seconds,
                (unsigned long long)tally.disagreeing,
                (unsigned long long)tally.errors);
  return tally.disagreeing || tally.errors ? 1 : 0;
}

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
//
//===----------------------------------------------------------------------===//
#include "kb/Testing/Differential.h"
#include "kb/Testing/KernelGenerator.h"

#include "common/kernel_abi.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace kb::differential;

int main(int argc, char **argv) {
  uint64_t first = 0, seeds = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--seeds"))
      seeds = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--first"))
      first = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--dump")) {
      GeneratedKernel kernel =
          generateKernel(std::strtoull(argv[i + 1], nullptr, 10));
      std::printf("%s\n// %s\n", kernel.mlir.c_str(),
                  describeKernel(kernel).c_str());
      return 0;
    } else {
      std::fprintf(stderr, "usage: %s [--seeds N] [--first S] | --dump SEED\n",
                   argv[0]);
      return 2;
    }
  }
  std::unique_ptr<Runner> runner = Runner::create();
  std::printf("devices: %s\n", runner->describeDevices().c_str());
  auto start = std::chrono::steady_clock::now();
  uint64_t ran = 0, disagreeing = 0, errors = 0;
  for (uint64_t seed = first; seed < first + seeds; ++seed) {
    kb::StatusOr<Outcome> outcome = runner->run(generatedCase(seed));
    if (!outcome.ok()) {
      ++errors;
      std::printf("ERROR %s\n", outcome.status().message().c_str());
      continue;
    }
    ++ran;
    disagreeing += outcome->agree() ? 0 : 1;
    for (const std::string &line : outcome->disagreements)
      std::printf("DISAGREE %s\n", line.c_str());
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%llu bodies ran (seeds %llu..%llu) in %.1f s: %llu disagree, "
              "%llu errors\n",
              (unsigned long long)ran, (unsigned long long)first,
              (unsigned long long)(first + seeds - 1), seconds,
              (unsigned long long)disagreeing, (unsigned long long)errors);
  return disagreeing || errors ? 1 : 0;
}

//===- runtime/bench/declared.h - What a kernel declares about itself -----===//
//
// Figures a kernel.toml declares for its benchmark (kernels/README.md):
// `[roofline]` FLOPs and bytes moved per dispatch (GFLOP/s, and GB/s that
// override the default sum of the bindings), `[tolerance]` for the
// correctness check (for every output and per output), and the special
// values (NaN, infinities) it propagates. Evaluated when the
// kernel.toml is read, recorded per job in build.json (`jobs[].declared`),
// and read back by each bench worker for the variant it runs.
//
// A runtime type because the benchmark protocol (benchmark.h) applies it:
// the project reads it from kernel.toml, the build records it, the bench
// worker hands it to the protocol.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_DECLARED_H_
#define KB_RUNTIME_BENCH_DECLARED_H_

#include "runtime/module/tolerance.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::bench {

/// `[tolerance.outputs.NAME]`: the tolerance of one written binding.
struct OutputTolerance {
  std::string name;     // the [abi] binding's name
  uint32_t binding = 0; // its index in [abi] bindings
  module::ToleranceOverride tolerance;
};

struct KernelDeclared {
  /// Floating-point operations and bytes read + written per dispatch.
  std::optional<double> flops;
  std::optional<double> bytesMoved;
  /// `[tolerance]`: for every output, below the per-output ones.
  module::ToleranceOverride tolerance;
  std::vector<OutputTolerance> outputTolerances;
  /// `[bench] special_values`: correctness inputs with NaN / infinities
  /// among the floats, which the kernel propagates as its reference does.
  bool nanInputs = false;
  bool infInputs = false;

  bool empty() const {
    return !flops && !bytesMoved && tolerance.empty() &&
           outputTolerances.empty() && !nanInputs && !infInputs;
  }
};

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_DECLARED_H_

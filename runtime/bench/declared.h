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
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::bench {

/// `[tolerance.outputs.NAME]`: the tolerance of one written binding.
struct OutputTolerance {
  std::string name;     // the [abi] binding's name
  uint32_t binding = 0; // its index in [abi] bindings
  module::ToleranceOverride tolerance;
};

/// `[abi] bindings = [{ ..., shape = ["M", "N"] }]`: the grid a binding's
/// elements form (row-major, the last dimension fastest), on which a wrong
/// output's mismatch map shows it (module/mismatch_map.h).
struct OutputShape {
  std::string name;     // the [abi] binding's name
  uint32_t binding = 0; // its index in [abi] bindings
  std::vector<uint64_t> dims;
};

/// A binding's contents fixed by a NumPy .npy file: `[bench] init = { x =
/// { file = "x.npy" } }` (an input the kernel reads) or `reference = {
/// outputs = { y = "y.npy" } }` (what it must write). Checked against the
/// binding's element type and count when the kernel.toml is read; the build
/// copies the file to |stored| in its output directory and build.json
/// records it with its sha256, which `run` and `bench` check before use.
struct FixedArray {
  std::string name;     // the [abi] binding's name
  uint32_t binding = 0; // its index in [abi] bindings
  std::string source;   // the file as the kernel.toml names it, for reports
  /// Where the file is: in the project when read from a kernel.toml, under
  /// the build directory when read back from build.json.
  std::filesystem::path file;
  /// The copy's path relative to the build directory (`standalone/KERNEL/
  /// data/{init,expected}/BINDING.npy`, as build.json records it).
  std::string stored;
  std::string sha256; // of the whole file
};

/// A C or C++ function run on the host as a standalone kernel's reference
/// (`[bench] reference = "ref.cpp"`): the build compiles it into a shared
/// object (toolchains/host_reference.h) at |stored| in its output directory
/// and build.json records it with its sha256, which `run` and `bench` check
/// before they load it (host_reference.h here).
struct HostReferenceDecl {
  std::string source;   // the file as the kernel.toml names it, for reports
  std::string function; // the function the shared object calls
  /// The shared object: under the build directory once read back from
  /// build.json; empty before the build made it.
  std::filesystem::path file;
  /// Its path relative to the build directory
  /// (`standalone/KERNEL/reference/KERNEL.so`).
  std::string stored;
  std::string sha256; // of the shared object; set by the build
};

/// A point of a standalone kernel's `[bench] sweep`: the build makes one
/// benchmark per point (a copy of the kernel, loaded at these values), and
/// the reports draw the copies of one kernel against the swept size.
struct SweepPoint {
  /// The kernel.toml's kernel, whose copies the points are.
  std::string kernel;
  /// Each swept constant's value here, in the order of the [abi] constants.
  std::vector<std::pair<std::string, int64_t>> values;

  bool empty() const { return values.empty(); }
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
  /// Fixed inputs and expected outputs (a standalone kernel's [bench]).
  /// With fixed inputs the check runs once from them (no seeds, zeros,
  /// large magnitudes or special values: those change inputs that are
  /// fixed); with expected outputs the candidate is compared with them
  /// instead of a reference run.
  std::vector<FixedArray> fixedInputs;
  std::vector<FixedArray> expectedOutputs;
  /// The kernel's reference is a host function (compared on every input
  /// set, as a reference kernel would be).
  std::optional<HostReferenceDecl> hostReference;
  std::vector<OutputShape> outputShapes;
  /// `[roofline]` expressions over the dispatch's own constants (`flops =
  /// "2*M*N*K"` in a kernel that substitutes a program's dispatch, whose
  /// sizes the program sets, not the kernel.toml): the bench worker
  /// evaluates them for each dispatch and sets |flops| / |bytesMoved|.
  std::string flopsExpression;
  std::string bytesMovedExpression;
  /// The other names those expressions may use, with their build-time
  /// values (the source's integer `defines`).
  std::map<std::string, double> expressionNames;
  /// The sweep point this copy of a swept kernel measures; empty otherwise.
  SweepPoint sweep;

  bool empty() const {
    return !flops && !bytesMoved && tolerance.empty() &&
           outputTolerances.empty() && !nanInputs && !infInputs &&
           fixedInputs.empty() && expectedOutputs.empty() && !hostReference &&
           outputShapes.empty() && flopsExpression.empty() &&
           bytesMovedExpression.empty() && sweep.empty();
  }
};

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_DECLARED_H_

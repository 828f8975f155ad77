//===- kb/Testing/KernelGenerator.h - Seeded random kernel bodies --------===//
//
// The differential test runs one kernel body three ways (SPIR-V on lavapipe,
// PTX on a GPU where present, LLVM on the CPU) and compares the outputs. This
// generator writes those bodies: a `kb.executable @gen_<seed>` with one export
// whose body uses only ops the codegen accepts (compiler/lib/Codegen/
// KernelBody.cpp) and is well-defined for ANY input bits:
//
//  * every in-range invocation writes exactly its own element `i` of every
//    output (possibly several times, the last write wins); none reads an
//    output, so the result does not depend on execution order;
//  * no division or remainder by a value that may be 0 (or -1 when signed),
//    shift amounts masked below the width, fptosi/fptoui only on values
//    clamped into range, float magnitudes bounded by clamps (no inf/NaN);
//  * control flow (scf.if/select conditions, loop bounds, fptosi) depends
//    only on integers and on floats that every backend computes bit for bit
//    (loads, constants, exact conversions, min/max/neg/abs of those), so all
//    backends take the same paths; the rest of the float arithmetic may
//    round differently (fused multiply-add, reassociation with constants,
//    Vulkan's conversion rounding) and its worst case is bounded statically.
//
// Determinism: the same seed gives the same kernel with every standard
// library (std::mt19937_64 is specified bit for bit; no std distributions).
//
// Reproducing a failure the differential test printed as `seed=N`:
//   reference_differential --first N --seeds 1   (bench/reference_differential)
// reruns it on every device and prints the disagreement;
//   reference_differential --dump N > gen.mlir
// writes the body out (with its bindings, constants and grid) to compile
// with `kb-opt gen.mlir --kb-materialize-variants=targets=vulkan:1.2
// --kb-codegen` and reduce by hand.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTING_KERNELGENERATOR_H_
#define KB_TESTING_KERNELGENERATOR_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kb::differential {

struct GeneratedKernel {
  /// "gen_<seed>": the executable and its one export.
  std::string name;
  /// One `kb.executable @gen_<seed>` with one `kb.export`; the body is in
  /// `builtin.module { func.func @gen_<seed>() ... }`.
  std::string mlir;

  /// Per binding, in binding order. Inputs are readonly, outputs writeonly.
  struct Binding {
    /// Element type as spelled in kernel.toml ("f32", "u8", ...).
    std::string type;
    uint64_t elements;
    /// The kernel writes it (and never reads it).
    bool output;
    /// Float outputs only: the absolute bound on how far two backends may
    /// differ at any element (0: they agree exactly, up to the sign of zero).
    /// Tighter than floatTolerance; a harness may use either rule.
    double tolerance = 0;
  };
  std::vector<Binding> bindings;

  /// Per constant, in order: type as spelled in kernel.toml ("u32", "f32",
  /// ...) and the value's bits (the low 4 or 8 bytes, little-endian as the
  /// type's own representation; a negative i32 has its upper 32 bits 0).
  struct Constant {
    std::string type;
    uint64_t bits;
  };
  std::vector<Constant> constants;

  /// Covers every element, with extra invocations past the end that the
  /// body's guard must skip (a grid-stride kernel may get fewer and loop).
  std::array<uint32_t, 3> workgroupCount;
  /// Also in the export.
  std::array<uint32_t, 3> workgroupSize;

  /// Integer outputs compare exactly. Float outputs compare numerically
  /// (-0 == +0: min/max may pick either zero) with
  ///   |a - b| <= floatTolerance * (1 + max(|a|, |b|)),
  /// the largest Binding::tolerance, so 0 means exact agreement.
  double floatTolerance = 0;

  /// False when bf16 appears (in a binding or in the arithmetic): SPIR-V for
  /// Vulkan has no bf16, so run such a kernel on CUDA and the CPU only.
  /// i64/u64/f64 stay Vulkan-compatible (lavapipe has Int64 and Float64).
  bool vulkanCompatible = true;

  /// What the body exercises, for coverage reports.
  struct Features {
    // Loops: an scf.for whose constant bounds give 0 trips, or exactly 1;
    // a for/while that runs 0 times, or once, for some inputs.
    bool staticZeroTripLoop = false;
    bool staticOneTripLoop = false;
    bool mayRunZeroTimes = false;
    bool mayRunOnce = false;
    // Trip counts from input data, or from the invocation index.
    bool dataDependentTrips = false;
    bool invocationDependentTrips = false;
    bool nestedLoop = false;
    bool whileLoop = false;
    bool ifWithResults = false;
    bool ifWithoutResults = false;
    bool loopWithoutResults = false;
    // The invocation index from x and y; elements by a grid-stride scf.for.
    bool twoDimensional = false;
    bool gridStride = false;
    // arith.divf or math.sqrt (the only ops whose precision Vulkan relaxes).
    bool inexactMath = false;
    // The most iter_args of one loop.
    unsigned maxIterArgs = 0;
    // MLIR types the body computes in ("i8", "f16", "index", ...).
    std::vector<std::string> arithmeticTypes;
  };
  Features features;
};

/// The kernel body for |seed|; deterministic (see the top of this file).
GeneratedKernel generateKernel(uint64_t seed);

/// One line per binding and constant, then the dispatch and tolerance: what a
/// failing case should print next to its seed.
std::string describeKernel(const GeneratedKernel &kernel);

} // namespace kb::differential

#endif // KB_TESTING_KERNELGENERATOR_H_

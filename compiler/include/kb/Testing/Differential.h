//===- kb/Testing/Differential.h - one reference, three executions -------===//
//
// Test-only. A codegen bug in a generated reference calls a correct kernel
// INCORRECT, so every reference body is executed independently three ways
// and the outputs must agree: lowered for the host and run through MLIR's
// ExecutionEngine (kb/Codegen/CpuExecution.h; at 64-bit index as the CUDA
// codegen and 32-bit as the SPIR-V codegen), the SPIR-V codegen on a Vulkan
// device (lavapipe in CI), and the CUDA codegen's PTX on a CUDA device when
// there is one. The 64-bit CPU run is the baseline the others are compared
// with: integers exactly, floats within the case's tolerance.
//
// The interface has no MLIR types, so bench/ can drive it too.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTING_DIFFERENTIAL_H_
#define KB_TESTING_DIFFERENTIAL_H_

#include "common/status.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kb::differential {

struct CaseBuffer {
  std::string type; // element type as kernel.toml spells it: "f32", "u8"
  std::vector<uint8_t> contents; // inputs as filled, outputs poisoned
  bool output = false;           // compared between the executions
};

struct Case {
  std::string name;           // names the case in messages: a file, "seed=42"
  std::string mlir;           // a module holding the kb.executable
  std::string executableName; // empty: the first kb.executable
  std::string exportName;
  std::vector<CaseBuffer> buffers; // in binding order
  std::vector<uint64_t> constants; // each constant's bits, in order
  std::array<uint32_t, 3> workgroupCount = {1, 1, 1};
  /// abs + rel tolerance of float outputs (integers are exact).
  double floatTolerance = 0;
};

/// Fills every input buffer of |c| from |seed| (integers over their whole
/// range, floats uniform in [-2, 2)) and poisons every output (0xA5 bytes).
void fillBuffers(Case &c, uint64_t seed);

/// One case per benchmark of a program (what `kb-generate-benchmarks`
/// describes: each dispatch's buffers with their inputs drawn as the
/// benchmark would, its constants and workgroup count). Dispatches that
/// alias one buffer to several bindings are left out.
StatusOr<std::vector<Case>> casesFromProgram(const std::string &name,
                                             const std::string &mlir);

/// The same for a model (tensor functions of TOSA and linalg ops, what
/// `kernel-bench import` and a model project hand the front end): lowered
/// and split into dispatches first (kb-lower-model, kb-form-dispatches),
/// then one case per benchmark of the program that makes.
StatusOr<std::vector<Case>> casesFromModel(const std::string &name,
                                           const std::string &mlir);

/// The case of generated body |seed| (kb/Testing/KernelGenerator.h), its
/// inputs filled from the seed; named "seed=N".
Case generatedCase(uint64_t seed);

struct Outcome {
  /// The executions that ran, e.g. "cpu index 64", "vulkan llvmpipe ...".
  std::vector<std::string> executions;
  /// Why an execution did not run ("cuda: no device"), one line each.
  std::vector<std::string> skipped;
  /// One line per output that differs from the baseline, with the first
  /// differing elements.
  std::vector<std::string> disagreements;
  bool agree() const { return disagreements.empty(); }
};

class Runner {
public:
  /// Opens a Vulkan device and a CUDA device where there are (neither is
  /// required: executions without a device are reported as skipped).
  static std::unique_ptr<Runner> create();
  ~Runner();

  /// Runs |c| everywhere it can. An error when the case itself is broken:
  /// the MLIR does not parse, a codegen or the CPU lowering fails.
  StatusOr<Outcome> run(const Case &c);

  /// "vulkan: llvmpipe (...); cuda: no device (...)".
  std::string describeDevices() const;

private:
  Runner();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace kb::differential

#endif // KB_TESTING_DIFFERENTIAL_H_

//===- runtime/bench/fixed_data.h - Fixed inputs and expected outputs -----===//
//
// A kernel's .npy files (declared.h, bench::FixedArray) loaded for one
// dispatch of a module function: the fixed inputs become the contents of
// the buffers the dispatch binds (module::FixedContents), the expected
// outputs the arrays its outputs are compared with. Each file must still
// have the sha256 build.json recorded (a copy that changed after the build
// is refused, as a bundle member would be) and be a .npy array of the
// buffer's element type and count. Used by `bench` (benchmark.h) and `run`
// alike, so both check the same thing.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_FIXED_DATA_H_
#define KB_RUNTIME_BENCH_FIXED_DATA_H_

#include "common/status.h"
#include "runtime/bench/declared.h"
#include "runtime/module/executor.h"

#include <string>
#include <vector>

namespace kb::bench {

struct FixedData {
  /// By buffer index of the function.
  module::FixedContents inputs;
  /// One per expected output, in the function's output order: buffer,
  /// name, element type and the expected bytes.
  std::vector<module::OutputData> expected;
  /// What the check is, for reports: "checked against y.npy (fixed inputs
  /// x.npy); seeded, all-zero, large-magnitude and special-value checks not
  /// applicable". Empty when the kernel fixes nothing.
  std::string description;

  bool empty() const { return inputs.empty() && expected.empty(); }
};

/// Loads what |declared| fixes for |dispatch|, an op of |function| that
/// dispatches the kernel (binding i of the kernel is the dispatch's
/// binding i). InvalidArgument (naming the file) for a file that changed
/// since the build or does not fit its buffer; NotFound for a missing one.
StatusOr<FixedData> loadFixedData(const KernelDeclared &declared,
                                  const module::Function &function,
                                  const module::Op &dispatch);

/// The description of FixedData for |declared| (also without files).
std::string describeFixed(const KernelDeclared &declared);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_FIXED_DATA_H_

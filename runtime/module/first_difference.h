//===- runtime/module/first_difference.h - The first wrong dispatch -------===//
//
// When a program's outputs differ between the run with substitutions and the
// run with generated kernels only, the final output names only where the
// difference ended up, not where it started: a wrong first layer shows up in
// the last layer's result. This replays the function one op at a time with
// generated kernels only and, before each dispatch that has a substituted
// (candidate) kernel, runs that kernel once on a copy of the very buffers the
// generated one is about to read, then compares the buffers the dispatch
// writes. The first dispatch whose kernels disagree on the same inputs is the
// one to look at; later differences may only be its consequences.
//
// Each element is compared with the per-type default tolerance of its
// buffer's element type (compare.h): a kernel's declared [tolerance] speaks of
// the whole function's outputs, not of one intermediate buffer.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_FIRST_DIFFERENCE_H_
#define KB_RUNTIME_MODULE_FIRST_DIFFERENCE_H_

#include "runtime/module/compare.h"
#include "runtime/module/executor.h"

#include <optional>

namespace kb::module {

/// A dispatch whose substituted kernel wrote something other than the
/// generated kernel from the same inputs.
struct DispatchDifference {
  size_t op = 0;           // index into Function::ops
  uint32_t executable = 0; // index into Module::executables
  uint32_t exportIndex = 0;
  uint32_t binding = 0; // the first written binding that differs
  uint32_t buffer = 0;  // the function's buffer bound there
  ElementType elementType = ElementType::F32;
  Comparison comparison;
};

struct DispatchReplay {
  /// Dispatches that had a substituted kernel and were compared.
  size_t compared = 0;
  std::optional<DispatchDifference> first;
};

/// Replays |function| as described above from its drawn inputs and the
/// |fixed| ones; reports at most |maxReported| mismatching elements.
StatusOr<DispatchReplay> findFirstDifferingDispatch(hal::Device &device,
                                                    const Module &module,
                                                    const Function &function,
                                                    const FixedContents &fixed,
                                                    size_t maxReported = 8);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_FIRST_DIFFERENCE_H_

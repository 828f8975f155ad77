//===- workbench/bench/cuda_printf.h - printf in `run` on CUDA ------------===//
//
// A CUDA kernel's printf reaches the host's stdout when the host
// synchronizes. `run` on a CUDA device whose kernels call printf (their PTX
// calls vprintf) submits each dispatch on its own (module::RunHooks) with
// stdout pointed at a private file (KernelOutput), and reads what each
// dispatch printed right after it: every line reaches the user with the run
// and the dispatch that printed it, bounded, as shader printf does under
// `run --sanitize` on Vulkan.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_CUDA_PRINTF_H_
#define KB_WORKBENCH_BENCH_CUDA_PRINTF_H_

#include "runtime/module/executor.h"
#include "runtime/module/module.h"
#include "workbench/bench/sanitizer.h"

#include <string>
#include <vector>

namespace kb::workbench {

/// Whether any PTX of |module| calls vprintf (what printf compiles to).
bool callsCudaPrintf(const module::Module &module);

class CudaPrintf {
public:
  /// Adds to |hooks| (chained after what they do): stdout captured once the
  /// executables are loaded, and after each dispatch what it printed, named
  /// as describeRunDispatch names it.
  void addTo(module::RunHooks &hooks, const std::string &run,
             const module::Module &module, const module::Function &function,
             bool substituted);
  /// After the run (whether it failed or not): stdout back, what is left
  /// attributed to |run|.
  void stop(const std::string &run);
  /// The first |maxShown| lines and the count of the rest.
  void print(size_t maxShown) const { printPrintedLines(printed_, maxShown); }

private:
  std::vector<PrintedLine> printed_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_CUDA_PRINTF_H_

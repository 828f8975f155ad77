//===- workbench/inspect/inspect_benchmarks.h - A build's benchmarks ------===//
//
// `inspect` reads the variants from the benchmark modules `kernel-bench
// build` wrote (BUILD/bench/*.kbm, BUILD/standalone/<kernel>/bench/*.kbm,
// the list `bench` runs): each holds the benchmarked executable with every
// variant — the substituted candidate, tuned candidates and the generated
// reference — so nothing is compiled again and no second copy is kept.
// Modules are verified and parsed by the runtime's loader.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_BENCHMARKS_H_
#define KB_WORKBENCH_INSPECT_INSPECT_BENCHMARKS_H_

#include "common/status.h"
#include "runtime/module/module.h"

#include <memory>
#include <string>
#include <vector>

namespace kb::workbench {

/// One benchmark and the executable export it dispatches.
struct LoadedBenchmark {
  std::string name;
  std::string modulePath; // as found under the build directory
  std::shared_ptr<const module::Module> module;
  uint32_t executable = 0;
  uint32_t exportIndex = 0;

  const module::Executable &dispatched() const {
    return module->executables[executable];
  }
};

/// The benchmarks of |buildDir|, or the one named |benchmark| when it is not
/// empty. NotFound naming the directory when it does not exist or holds no
/// benchmark module, and naming the benchmark (the nearest name, and the
/// names there are) when none has that name; the loader's error, which
/// names the file, for a module that does not verify.
StatusOr<std::vector<LoadedBenchmark>>
loadBenchmarks(const std::string &buildDir, const std::string &benchmark);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_BENCHMARKS_H_

//===- workbench/tune/tune_measure.h - Build and measure configurations ---===//
//
// How `kernel-bench tune` measures configurations: each batch is one call
// of the build engine (build_engine.h) on a project made in memory (the
// kernel once per configuration, renamed `<kernel>-t<N>`, with the
// configuration's defines and specialization constants, built in parallel
// through the build cache, ABI-checked, every standalone program compiled)
// and then one call of the bench engine (bench_engine.h) on those kernels'
// benchmarks (checked against the reference before timing; an INCORRECT
// one is not timed; a fault is an ERROR row). On a CPU device build and
// bench take turns; on a GPU (`pipeline`) the next batch builds on another
// thread, into the other of two build directories, while this one is
// measured. Results come from the engines' reports, matched to their
// configurations by kernel name, and go into the tune cache as they come.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_MEASURE_H_
#define KB_WORKBENCH_TUNE_TUNE_MEASURE_H_

#include "common/target.h"
#include "workbench/project/project.h"
#include "workbench/tune/tune_cache.h"
#include "workbench/tune/tune_progress.h"
#include "workbench/tune/tune_search.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kb::workbench {

/// |base| as one configuration builds it: |values| applied to every source
/// and the launch shape evaluated with them (a kernel that substitutes is
/// measured standalone with its [bench], whose constants are in scope). An
/// error for a launch shape no device could launch (a workgroup past the
/// limits, an expression that is not a positive integer): such a
/// configuration is not a candidate, like one a constraint rejects.
StatusOr<Kernel> withTuneValues(const Kernel &base, const TuneValues &values);

struct TuneMeasureOptions {
  Kernel kernel;      // as loaded, with its [tune]
  Target target;      // what every configuration is built for
  std::string device; // `--device` for bench ("vulkan:0")
  std::filesystem::path
      workDir;          // OUT: build/ (or build-0/, build-1/), tune.log
  std::string cacheDir; // the build cache ("" = default)
  unsigned jobs = 0;
  double timeoutS = 120; // per tool invocation
  bool verbose = false;  // build and bench output on the terminal
  double watchdogS = 0;  // bench's --watchdog (0: its default)
  /// Build the next batch while this one is measured (a GPU: the CPU
  /// compiles while the device measures); off on a CPU device, where both
  /// would share the cores.
  bool pipeline = false;
  /// Told what the builds and benches are doing; null: nobody.
  TuneProgressSink *progress = nullptr;
};

class TuneMeasurer {
public:
  TuneMeasurer(TuneMeasureOptions options, TuneCache &cache);

  /// Measures |configs| at |level|: cached ones are taken from the cache,
  /// the rest built and benchmarked. Unavailable when the device is gone
  /// (exit 77); Cancelled-like errors when interrupted.
  StatusOr<std::vector<TuneMeasurement>>
  measure(const std::vector<TuneValues> &configs, int level);

  /// Configurations measured (not from the cache) so far.
  size_t measuredCount() const { return measured_; }
  /// The exit code of an interrupted bench/build, or 0.
  int interruptedExit() const { return interruptedExit_.load(); }

private:
  /// The kernel copy of |values| at problem size |size|.
  std::string kernelName(const TuneValues &values, size_t size);
  /// The copies one batch builds: name, configuration, problem size.
  struct Copy {
    std::string name;
    TuneValues values;
    size_t size;
  };
  std::vector<Copy> copiesOf(const std::vector<TuneValues> &configs);
  StatusOr<Kernel> copyKernel(const Kernel &base, const Project &project,
                              const Copy &copy) const;
  /// The launch shape of |values| (the tuned target's source's ABI): an
  /// error for one that no device could launch (a workgroup past the
  /// limits, an expression that is not a positive integer).
  StatusOr<KernelAbi> launchOf(const TuneValues &values) const;
  /// Before any build: each configuration's launch shape and kernel names
  /// (so builds on another thread only read them); those that cannot be
  /// launched go to |failed|, the rest are returned.
  std::vector<TuneValues>
  prepare(const std::vector<TuneValues> &configs,
          std::map<std::string, TuneMeasurement> &failed);
  /// The project one batch builds: a copy of the kernel per entry of
  /// |copies|, made in memory.
  StatusOr<Project> batchProject(const std::vector<Copy> &copies) const;
  /// One `build` of |configs| into |buildDir|; their compile errors go to
  /// |failed|. Safe on another thread than bench's (after prepare).
  Status build(const std::vector<TuneValues> &configs,
               std::map<std::string, TuneMeasurement> &failed,
               const std::filesystem::path &buildDir);
  /// One `bench` of |configs| built in |buildDir|.
  Status bench(const std::vector<TuneValues> &configs, int level,
               std::map<std::string, TuneMeasurement> &out,
               const std::filesystem::path &buildDir);
  /// prepare, then build and bench, in turn or pipelined in batches.
  Status buildAndBench(const std::vector<TuneValues> &configs, int level,
                       std::map<std::string, TuneMeasurement> &out);
  Status pipelined(const std::vector<TuneValues> &configs, size_t batch,
                   int level, std::map<std::string, TuneMeasurement> &out);

  TuneMeasureOptions options_;
  TuneCache &cache_;
  std::map<std::string, size_t> ids_; // configuration key -> its number
  /// Configuration key -> its launch shape (launchOf), for the occupancy.
  std::map<std::string, KernelAbi> launches_;
  /// Every combination of the [bench] axes (one empty size without any).
  std::vector<ProblemSize> sizes_;
  std::vector<std::string> sizeLabels_;
  size_t measured_ = 0;
  std::atomic<int> interruptedExit_{0};
  /// OUT/tune.log: what the builds and benches said (their progress, the
  /// failed jobs' blocks), unless --verbose shows it on the terminal.
  Status openLog();
  std::filesystem::path logPath() const {
    return options_.workDir / "tune.log";
  }
  struct CloseFile {
    void operator()(std::FILE *f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, CloseFile> log_;
  /// The origin of the log's timeline lines.
  std::chrono::steady_clock::time_point started_ =
      std::chrono::steady_clock::now();
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_MEASURE_H_

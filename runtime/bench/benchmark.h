//===- runtime/bench/benchmark.h - The benchmark protocol -----------------===//
//
// One benchmark, start to end, on one device: load the candidate's
// variants (and the reference's, and a baseline build's), check the
// candidate against the reference before timing (correctness.h), time every
// subject interleaved in each requested mode (measure.h), check the
// candidate again after timing, and describe every variant with its
// timings. A kernel that is incorrect, before or after timing, keeps no
// times. The bench worker process runs this; its caller decides what
// happens around it (device choice, NVML, the report).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_BENCHMARK_H_
#define KB_RUNTIME_BENCH_BENCHMARK_H_

#include "common/status.h"
#include "runtime/bench/correctness.h"
#include "runtime/bench/declared.h"
#include "runtime/bench/measure.h"
#include "runtime/bench/results.h"
#include "runtime/module/module.h"

#include <functional>
#include <string>
#include <vector>

namespace kb::bench {

/// The variant name of another build's kernel timed beside the candidate.
inline constexpr const char *kBaselineVariant = "baseline";

/// A function of a module: a dispatch benchmark's one-dispatch function, or
/// the program's entry function (timed end to end).
struct BenchmarkWork {
  const module::Module *module = nullptr;
  const module::Function *function = nullptr;
  /// The dispatch a benchmark times; null for the whole program.
  const module::Op *dispatch = nullptr;
};

struct BenchmarkOptions {
  CorrectnessSettings correctness;
  /// The correctness check alone, nothing timed (`bench --sanitize`, whose
  /// instrumented shaders must never be timed).
  bool checkOnly = false;
  /// Guard bands after the candidate's and the reference's buffers
  /// (PreparedFunction::create), checked after each run of the correctness
  /// check and told to correctness.afterRun; 0: none.
  uint64_t guardBytes = 0;
  /// `bench --profile`: after the correctness check, each variant runs once
  /// inside the labels |profileRange| / its name (profiled_run.h), nothing
  /// timed. Empty: timed as usual.
  std::string profileRange;
  /// `bench --counters`: after timing and the re-check, each variant's
  /// hardware counters (counted_run.h). A failure to count keeps the
  /// timings and says why in the variants' countersNote.
  bool counters = false;
  std::vector<TimingMode> modes = {TimingMode::Cold};
  /// Told each stage as it starts ("correctness check"): what a watchdog
  /// reports when the benchmark hangs there. May be empty.
  std::function<void(const std::string &stage)> stage;
  /// Sampling progress of the subjects |names| in |mode|; none when empty.
  std::function<ProgressFn(std::vector<std::string> names, TimingMode mode)>
      progress;
  /// What the candidate's kernel declares, found by its object's sha256 and
  /// the executable it runs as; null when nothing. Why nothing applies
  /// though something could goes to |warnings|. May be empty.
  std::function<const KernelDeclared *(const std::string &objectSha256,
                                       const std::string &executable,
                                       std::vector<std::string> &warnings)>
      declared;
};

struct BenchmarkResult {
  BenchStatus status = BenchStatus::Ok;
  std::string reason; // why not ok
  /// Candidate (or the generated kernel when there is none) first, then
  /// the baseline, then the reference; each with its correctness and, when
  /// the candidate is correct, its timings.
  std::vector<Variant> variants;
  /// For the report: a module tuned for another device, an ambiguous
  /// declaration.
  std::vector<std::string> warnings;
};

/// Runs the protocol for |work| (and |baseline|, timed in lockstep with the
/// candidate when |engine|'s settings say so) into |out|. An error status
/// for a failure of the device or the module, not of the kernel: an
/// incorrect kernel is a result (status Incorrect). |engine| may be null
/// when nothing is timed (options.checkOnly, options.profileRange): its
/// flush buffer is then never allocated.
Status runBenchmark(hal::Device &device, Engine *engine,
                    const BenchmarkWork &work, const BenchmarkWork *baseline,
                    const BenchmarkOptions &options, BenchmarkResult &out);

/// The correctness result as a report states it: the verdict, the seeds,
/// the first mismatches (values rendered in their type) and a note naming
/// the inputs used.
Correctness describeCorrectness(const CorrectnessResult &result);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_BENCHMARK_H_

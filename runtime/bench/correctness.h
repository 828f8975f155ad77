//===- runtime/bench/correctness.h - Correctness before and after timing --===//
//
// A benchmark's candidate is compared with its reference before it is
// timed, from several seeded inputs (the module's own seeds, then the same
// InitSpecs with seeds offset by 1, 2, ...) plus all-zero inputs, large
// magnitudes, and (where the kernel declares it) NaN and infinities; outputs
// only ever written are poisoned with NaN bits before every run, so a
// kernel that leaves elements unwritten cannot pass on stale data; the
// buffers the function only reads are checksummed after the candidate runs
// (a kernel that writes its inputs is wrong even when its outputs match).
// The comparison is runtime/module/compare.h with the module's per-output
// tolerances, overridden by the kernel's declared ones (tolerance.h). After
// timing, the candidate runs once more from the first inputs and is compared
// again (a kernel must not go wrong under repetition).
//
// A kernel with fixed inputs (fixed_data.h) is checked once, from them: the
// other input sets would change data that is fixed. With expected outputs
// the candidate is compared with those arrays instead of a reference run;
// with a host reference (host_reference.h), with what that function
// computes on the CPU from the same inputs.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_CORRECTNESS_H_
#define KB_RUNTIME_BENCH_CORRECTNESS_H_

#include "runtime/bench/fixed_data.h"
#include "runtime/bench/host_reference.h"
#include "runtime/bench/results.h"
#include "runtime/module/compare.h"
#include "runtime/module/executor.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kb::bench {

/// NaN in every 32-bit lane (and in both halves for 16-bit floats).
constexpr uint32_t kPoisonPattern = 0x7fc07fc0;

struct CorrectnessSettings {
  uint32_t seeds = 3;     // input sets from seeds (>= 1)
  bool zeroInputs = true; // one more run with every input zero
  /// One more with the float inputs scaled up (module/inputs.h); its abs
  /// tolerance grows with the outputs' magnitude.
  bool largeInputs = true;
  /// Runs with NaN / infinities among the float inputs: only for a kernel
  /// that declares it propagates them (`[bench] special_values`); NaN must
  /// come out where the reference's NaN are.
  bool nanInputs = false;
  bool infInputs = false;
  size_t maxMismatches = 8;
  /// The kernel's declared tolerances (kernel.toml [tolerance]), layered
  /// over the module's per-output ones: |kernelTolerance| for every output,
  /// then |outputTolerances| by the output's buffer index.
  module::ToleranceOverride kernelTolerance;
  std::map<uint32_t, module::ToleranceOverride> outputTolerances;
  /// The declared shapes of outputs, by buffer index, for the mismatch map
  /// of a wrong output (module/mismatch_map.h); absent: one row.
  std::map<uint32_t, std::vector<uint64_t>> outputShapes;
  /// The kernel's fixed inputs and expected outputs; null: none.
  std::shared_ptr<const FixedData> fixed;
  /// The kernel's C/C++ reference, run on the host from the inputs the
  /// candidate starts from; null: none. Used when there is no reference
  /// variant.
  std::shared_ptr<const HostReference> hostReference;
  /// Told after each run of a variant on the device: which ran (its name in
  /// the report: "candidate", "generated", "reference"), from which inputs
  /// ("seed +0"), and what it wrote past its buffers' ends (with guard
  /// bands: PreparedFunction::create). A checking layer (`bench
  /// --sanitize`) attributes what it saw to it. May be empty.
  std::function<void(const std::string &variant, const std::string &inputs,
                     const module::GuardCheck &guards)>
      afterRun;
  /// The candidate's name in the report (runBenchmark's: "candidate", or
  /// "generated" where no handwritten kernel exists), for afterRun.
  std::string candidateName = "candidate";
};

struct OutputMismatch {
  std::string inputs; // "seed +0", "zeros", "large", "nan", "after timing"
  std::string output;
  ElementType elementType = ElementType::F32;
  module::Tolerance tolerance;
  uint64_t mismatchCount = 0;
  std::vector<module::Mismatch> first;
  module::MismatchMap map;
  std::string mapNote; // why the declared shape went unused
};

struct CorrectnessResult {
  Verdict verdict = Verdict::NotChecked;
  /// Why Incorrect, or what NoReference means; one line.
  std::string reason;
  std::vector<uint64_t> seedOffsets; // the seeded input sets run
  bool zeroInputs = false;
  /// The special-value sets run: "large", "nan", "inf".
  std::vector<std::string> specialInputs;
  /// With fixed data: what was checked (FixedData::description).
  std::string fixedInputs;
  /// With a host reference: HostReference::describe().
  std::string hostReference;
  std::vector<OutputMismatch> mismatches; // first failing case only
  std::vector<std::string> inputsWritten; // read-only buffers that changed
  /// The reference's outputs for seed offset 0 (kept for the after-timing
  /// recheck; empty without a reference).
  std::vector<module::OutputData> referenceOutputs;
};

/// Runs |prepared| once: records its ops, submits, waits.
Status runOnce(hal::Device &device, const module::PreparedFunction &prepared);

/// Candidate against |reference| (null: no reference; the candidate still
/// runs for every input set and its inputs are checksummed).
StatusOr<CorrectnessResult>
checkBeforeTiming(hal::Device &device, module::PreparedFunction &candidate,
                  module::PreparedFunction *reference,
                  const CorrectnessSettings &settings);

/// Candidate from seed offset 0 again, against |before|'s reference
/// outputs; Incorrect with the mismatches when they differ now.
StatusOr<CorrectnessResult>
checkAfterTiming(hal::Device &device, module::PreparedFunction &candidate,
                 const CorrectnessResult &before,
                 const CorrectnessSettings &settings);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_CORRECTNESS_H_

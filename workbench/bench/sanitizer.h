//===- workbench/bench/sanitizer.h - Checking-layer findings, attributed --===//
//
// `run --sanitize` runs the program under the Khronos validation layer with
// GPU-assisted validation (a shader that reads or writes outside a bound
// buffer range) and synchronization validation. The layer reports through a
// callback, by itself naming no benchmark or dispatch; the run submits each
// op on its own and drains the layer's log after each dispatch
// (module::RunHooks), so every finding here names the run, the op, the
// executable and export, and the variant that ran — the handwritten kernel
// or the compiler's.
//
// Each buffer also gets a guard band of canary bytes after its declared
// elements, inside the range of every binding that writes it and ends there
// (llvmpipe drops writes outside a bound range, so a band outside it would
// see nothing): a kernel that writes a little past its elements changes it,
// and the check after each dispatch (each run, under `bench --sanitize`)
// makes that a finding with the buffer and the first element written. The
// band needs no tool: it works the same on any driver.
//
// Errors are findings (the run fails); the layer's warnings are listed too,
// but do not fail the run: a layer version that warns about something of its
// own must not turn every run red.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_SANITIZER_H_
#define KB_WORKBENCH_BENCH_SANITIZER_H_

#include "runtime/hal/validation_log.h"
#include "runtime/module/executor.h"
#include "workbench/report/bench_results.h"

#include <memory>
#include <string>
#include <vector>

namespace kb::workbench {

/// The guard band after each buffer under --sanitize
/// (module::PreparedFunction::create): 1024 floats catch a tail loop that
/// runs a few elements, or a few workgroups, too far; accesses farther out
/// are the checking layer's.
constexpr uint64_t kGuardBytes = 4096;

/// One debugPrintfEXT line of a shader, from the printf pass.
struct PrintedLine {
  std::string where;      // as SanitizerFinding::where
  std::string invocation; // "(37, 0, 0)", empty when the layer did not say
  std::string text;
};

struct SanitizerFinding {
  std::string where; // "run with substitutions, op 2 (`saxpy` export 0, ...)"
  bool error = false;
  std::string message; // the layer's, shortened (briefValidationMessage)
};

class Sanitizer {
public:
  /// |checkedBy| ends the summary line: what looked.
  explicit Sanitizer(std::string checkedBy =
                         "Khronos validation layer: GPU-assisted "
                         "out-of-bounds checks and synchronization "
                         "validation; a guard band after every buffer")
      : log_(std::make_shared<hal::ValidationLog>()),
        checkedBy_(std::move(checkedBy)) {}

  /// The log to give the driver (hal::DriverOptions::validationLog).
  std::shared_ptr<hal::ValidationLog> log() const { return log_; }

  /// Hooks for one run of |function| (|run| names it: "run with
  /// substitutions"; |substituted|: whether it prefers the handwritten
  /// kernels) that attribute the layer's messages to each dispatch.
  module::RunHooks hooks(const std::string &run, const module::Module &module,
                         const module::Function &function, bool substituted);
  /// Messages not yet attributed (after a run failed, or at the end),
  /// attributed to |where|.
  void attribute(const std::string &where);
  /// A finding of another tool (compute-sanitizer), already attributed.
  void add(SanitizerFinding finding) {
    findings_.push_back(std::move(finding));
  }

  /// The first |maxShown| printed lines and the count of the rest.
  void printPrinted(size_t maxShown) const;
  size_t errorCount() const;
  /// The findings section (at most |maxShown|, and the count of the rest)
  /// and its summary line; returns whether the run is clean of errors.
  bool print(size_t maxShown) const;

private:
  std::shared_ptr<hal::ValidationLog> log_;
  std::vector<SanitizerFinding> findings_;
  std::vector<PrintedLine> printed_;
  std::string checkedBy_;
};

/// `bench --sanitize` for one benchmark: the layer's messages, drained after
/// each run of a variant in the correctness check
/// (bench::CorrectnessSettings::afterRun), become findings naming the
/// variant and the inputs it ran from.
class BenchFindings {
public:
  BenchFindings() : log_(std::make_shared<hal::ValidationLog>()) {}
  std::shared_ptr<hal::ValidationLog> log() const { return log_; }

  /// The messages so far, and what the guard bands saw (|guards|: writes
  /// past the buffers' ends are errors, no guard bands a warning),
  /// attributed to |variant| run from |inputs|.
  void afterRun(const std::string &variant, const std::string &inputs,
                const module::GuardCheck &guards = {});
  /// A finding of another tool (compute-sanitizer's, read by the parent).
  void add(report::SanitizerFinding finding) {
    findings_.push_back(std::move(finding));
  }
  /// Moves every finding into |b| after those it has (what is still in the
  /// log after the checks is attributed to "after the checks"); an error
  /// makes its status Sanitizer, naming the first, and keeps what the row
  /// said before (an INCORRECT or ERROR reason) after it.
  void applyTo(report::Benchmark &b);

private:
  std::shared_ptr<hal::ValidationLog> log_;
  std::vector<report::SanitizerFinding> findings_;
};

/// Prints |printed| as `run` shows shader and kernel printf: "printf: WHERE,
/// invocation (37, 0, 0): TEXT", the first |maxShown| and the count of the
/// rest.
void printPrintedLines(const std::vector<PrintedLine> &printed,
                       size_t maxShown);

/// "run with substitutions, op 2 (`saxpy` export 0, the handwritten
/// kernel)": how `run` names a dispatch of |function|.
std::string describeRunDispatch(const std::string &run,
                                const module::Module &module,
                                const module::Function &function,
                                bool substituted, size_t op);

/// Whether a module's SPIR-V calls debugPrintfEXT (imports
/// NonSemantic.DebugPrintf): only then does --sanitize run the printf pass.
bool usesDebugPrintf(const module::Module &module);

/// A verbose debug-printf message of the layer as a PrintedLine's
/// invocation and text.
PrintedLine parseDebugPrintf(const std::string &message);

/// The layer's message without what does not help a kernel author: the
/// object handles and message id before the text, and the spec's quotation
/// after it. "Validation Error: [ VUID-vkCmdDispatch-None-02706 ] Descriptor
/// index 0 access out of bounds. ..." Control characters are removed.
std::string briefValidationMessage(const std::string &message);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_SANITIZER_H_

//===- workbench/bench/compute_sanitizer.h - CUDA's checking tool ---------===//
//
// `--sanitize` on a CUDA device runs the worker under NVIDIA's
// compute-sanitizer (from the full CUDA toolkit), once per tool: memcheck
// (accesses outside an allocation, misaligned accesses, API errors), racecheck
// (shared-memory hazards inside a block, which no Vulkan tool sees), initcheck
// (reads of device memory never written) and synccheck (barriers that not
// every thread of a block or warp reaches). Each pass writes its report to a
// log file of its own, never to the worker's stdout (which carries the
// worker's results); the log's records become findings naming the kernel,
// and from it the variant — the handwritten kernel or the generated one —
// the source line where the kernel has line information, and the thread.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_COMPUTE_SANITIZER_H_
#define KB_WORKBENCH_BENCH_COMPUTE_SANITIZER_H_

#include "common/status.h"
#include "runtime/module/module.h"
#include "workbench/bench/sanitizer.h"

#include <array>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::workbench {

enum class CudaCheck { Memcheck, Racecheck, Initcheck, Synccheck };
inline constexpr std::array<CudaCheck, 4> kCudaChecks = {
    CudaCheck::Memcheck, CudaCheck::Racecheck, CudaCheck::Initcheck,
    CudaCheck::Synccheck};

/// How much longer a worker may take under a tool than its watchdog allows
/// a plain run: the tools slow kernels down ten- to a hundredfold.
constexpr double kSanitizerSlowdown = 10;

/// "memcheck", ... as `--tool` names it.
const char *toolName(CudaCheck check);

/// compute-sanitizer where CUDA tools are found (common/tool_search.h);
/// Unavailable, saying it comes with the full CUDA toolkit, when missing.
StatusOr<std::filesystem::path> findComputeSanitizer();

/// The argv running |command| under |tool|'s |check|, its report in
/// |logFile| (not on the command's stdout or stderr) and every record kept
/// (no print limit); the tool's own exit status stays the command's.
std::vector<std::string>
computeSanitizerArgv(const std::filesystem::path &tool, CudaCheck check,
                     const std::filesystem::path &logFile,
                     const std::vector<std::string> &command);

/// One record of the tool's report.
struct CudaFinding {
  bool error = true; // else a warning (racecheck's, which fail nothing)
  /// The kernel as the tool names it, without parameters or offset
  /// ("saxpy", "matmul<32>"); empty when the record names none (an API
  /// error).
  std::string kernel;
  /// "saxpy.cu:12" where the kernel was built with line information.
  std::string line;
  /// "thread (255,0,0) in block (3,0,0)"; empty when not said.
  std::string thread;
  /// The record's first line and its detail lines ("Address 0x... is out of
  /// bounds"), joined with "; "; no host backtrace.
  std::string message;
};

struct CudaSanitizerLog {
  std::vector<CudaFinding> findings;
  /// The tool's own count ("ERROR SUMMARY: 3 errors"), -1 when the log has
  /// none (the tool did not finish).
  long errorSummary = -1;
};

/// The records of a compute-sanitizer log (`========= ` lines; anything
/// else is ignored).
CudaSanitizerLog parseComputeSanitizerLog(std::string_view text);

/// The module's kernels a record names: their executable, export and
/// variant. A handwritten kernel and the generated one often share their
/// name (the export's symbol), so there may be several.
struct CudaKernelOwner {
  std::string executable;
  size_t exportIndex = 0;
  module::VariantRole role = module::VariantRole::Reference;
};
std::vector<CudaKernelOwner> findCudaKernels(const module::Module &module,
                                             const std::string &kernel);

/// The variant name bench gives the kernels named |kernel|: "candidate",
/// "reference" ("generated" where the module has no handwritten CUDA
/// kernel), "candidate or reference" when both share the name, "-" when
/// none matches.
std::string cudaVariantName(const module::Module &module,
                            const std::string &kernel);

/// Which of |module|'s kernels the tool named: "`saxpy` export 0, the
/// handwritten kernel" (or "the reference kernel", or "the handwritten or
/// the reference kernel" when both have that name), matched by the PTX entry
/// name (demangled where it is mangled); the tool's name when no entry
/// matches.
std::string attributeCudaKernel(const module::Module &module,
                                const std::string &kernel);

/// The findings of |check|'s pass from its log file, each naming the tool,
/// the kernel (attributeCudaKernel), its line and thread. A log that is
/// missing or has no summary (the tool did not finish), or whose summary
/// counts more errors than it has records, is a finding too: nothing the
/// tool saw is dropped silently.
std::vector<SanitizerFinding> cudaFindings(CudaCheck check,
                                           const std::filesystem::path &log,
                                           const module::Module &module);

/// |check|'s findings as `bench --sanitize` rows list them: the variant
/// that ran the kernel ("candidate", "reference"; "-" when none is named),
/// "every input set" (a pass runs the whole check), and the tool, line and
/// thread before the message.
std::vector<report::SanitizerFinding>
cudaBenchFindings(CudaCheck check, const std::filesystem::path &log,
                  const module::Module &module);

/// `bench --sanitize` on a CUDA device, for the benchmark in |modulePath|:
/// |runPass| runs its worker under the wrapper it is given, into the report
/// it is given, and returns the worker's exit code; the first pass (memcheck)
/// runs into |run| and makes the row, the others into scratch reports, and
/// every pass's findings join the row. A missing tool is the row SKIPPED
/// (Unavailable, with where it comes from); no CUDA device ends it after the
/// first pass. Returns the first pass's exit code.
using SanitizerPass = std::function<int(const std::vector<std::string> &wrapper,
                                        report::BenchReport &into)>;
StatusOr<int> sanitizeBenchmarkOnCuda(const std::string &modulePath,
                                      report::BenchReport &run,
                                      const SanitizerPass &runPass);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_COMPUTE_SANITIZER_H_

//===- toolchains/kernel_builder.h - Build one kernel for one target ------===//
//
// The contract between toolchains/ and workbench/: a KernelSpec (what one
// kernel.toml says) plus a Target go in; a BuildJobResult (outputs published
// under the output directory, diagnostics, resource usage, cache hit or miss,
// the command lines that ran) comes out.
//
// One call is one job of the build graph: compile (nvcc -ptx / glslc), then
// the dependent validation steps in order (ptxas -v -> .cubin; spirv-val,
// optional spirv-opt + spirv-val again), then the ABI check of the job's
// entry. The tool steps are shared by jobs that would run them identically.
// Outputs are written under temporary names and renamed into place only when
// every step succeeded, so a failed job never leaves a half-written file
// behind.
//
// KernelBuilder::build is thread-safe: workbench/ runs one call per
// (kernel, target) on its own worker threads.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_KERNEL_BUILDER_H_
#define KB_TOOLCHAINS_KERNEL_BUILDER_H_

#include "common/resource_usage.h"
#include "common/kernel_abi.h"
#include "common/specialization.h"
#include "common/status.h"
#include "toolchains/diagnostics.h"
#include "common/target.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::toolchains {

class BuildCache;
class CompileMemo;
class Toolchains;

enum class Language { Cuda, Glsl };
const char *toString(Language language);

/// One kernel source as declared by a kernel.toml. Paths are absolute.
struct KernelSpec {
  std::string name;
  std::filesystem::path source;
  Language language = Language::Cuda;
  /// CUDA: the extern "C" (or uniquely resolvable) entry name. GLSL: "main".
  std::string entry;
  std::vector<std::pair<std::string, std::string>> defines; // NAME, VALUE
  /// CUDA only: a function template instance the build instantiates itself,
  /// its arguments integers ("MatrixMulCUDA<32>"). nvcc then compiles a
  /// generated file that includes the source and takes the instance's
  /// address, which makes nvcc emit its `.entry`; |entry| and |abi.entry|
  /// name the instance too (resolvePtxEntry finds it by its demangled
  /// name). Empty: the source's own entries are built.
  std::string templateInstance;
  /// The names of |defines| that are |templateInstance|'s arguments: they
  /// reach the kernel as those arguments only, not as -D, since a macro of
  /// the name would replace a template parameter so named (cuda-samples'
  /// `template <int BLOCK_SIZE>` tuned as BLOCK_SIZE).
  std::vector<std::string> templateArgumentNames;
  std::vector<std::filesystem::path> includeDirs;
  /// Extra flags per tool: keys "nvcc", "ptxas", "glslc", "spirv-val",
  /// "spirv-opt".
  std::map<std::string, std::vector<std::string>> extraFlags;
  /// ptxas spill warnings become errors (`--warn-on-spills -Werror`).
  bool spillsAreErrors = false;
  /// Run spirv-opt -O (with --preserve-bindings) and validate again.
  bool optimizeSpirv = false;
  /// The declared ABI the outputs are checked against.
  KernelAbi abi;
  /// False for `kernel-bench import`, which has no ABI yet and reads it
  /// from the outputs: compile and validate only.
  bool checkAbi = true;
  /// kernel.toml's [specialization] (GLSL only): resolved against the
  /// SPIR-V by the ABI check, which then sees the specialized workgroup size.
  std::vector<SpecializationSetting> specialization;
  /// The kernel.toml this came from (for messages).
  std::filesystem::path manifest;
  /// The device model this spec's values were tuned for (a tuned.toml
  /// entry's `device`): its object goes into a variant that runs on that
  /// model only. Empty: any device.
  std::string tunedFor;
};

/// ptxas resource report for one entry.
using kb::ResourceUsage; // common/resource_usage.h

/// One external tool invocation of a job.
struct ToolInvocation {
  std::string tool;              // "nvcc", "ptxas", "glslc", ...
  std::vector<std::string> argv; // Exactly what ran (argv[0] absolute).
  double seconds = 0;
  int exitCode = 0; // -1 when killed by a signal.
  int signal = 0;   // Signal number when killed.
  bool timedOut = false;
  /// The same command as a user can run it from anywhere: the tools run on
  /// staged copies in a private directory (`kernel.cu`, `-Isrc`), so here
  /// the source and include directories are the user's, outputs go to the
  /// kernel's output directory and the depfile flags are left out. Filled
  /// for every job, cached or not; empty when not known.
  std::vector<std::string> userArgv;
};

/// A file published into the output directory.
struct OutputFile {
  std::string kind; // "ptx", "cubin", "spv"
  std::filesystem::path path;
  std::string sha256;
  uint64_t bytes = 0;
};

struct BuildJobResult {
  std::string kernel;
  Target target;
  bool cacheHit = false;
  bool cacheHitRemote = false; // the hit came from the remote tier
  double seconds = 0;
  std::vector<ToolInvocation> commands;
  /// tool name -> first line(s) of `--version` (and the host compiler nvcc
  /// calls, under "host-cxx").
  std::map<std::string, std::string> toolVersions;
  std::vector<OutputFile> outputs;
  std::optional<ResourceUsage> resources;
  std::vector<Diagnostic> diagnostics;
  /// Captured stderr/stdout of the step that failed, printed as one block.
  std::string failureLog;
  /// Ok, or the error that failed the job (Unavailable: a tool is missing).
  Status status;
  /// The kernel whose job ran the tools this job's outputs came from: jobs
  /// with the same source, target and flags (several kernels of one file)
  /// share one compile. Empty when this job ran them (or hit the cache).
  std::string sharedCompileWith;
};

struct BuildOptions {
  std::chrono::milliseconds timeout{120000};
  /// Each tool's address-space limit in bytes (ProcessOptions); 0 = none.
  uint64_t memoryLimitBytes = 0;
  bool verbose = false;
  /// Removes an earlier build's output of a job that failed, so nothing
  /// stale can be mistaken for its result. The workbench removes only files
  /// it can prove an earlier build wrote (workbench/support/output_manifest.h);
  /// unset: removed unconditionally.
  std::function<void(const std::filesystem::path &)> removeStaleOutput;
};

/// Builds one (kernel, target). Thread-safe; |toolchains| and |cache| (may be
/// null: no caching) must outlive the builder. Jobs of one builder whose
/// tool steps are identical (kernels of one source, target and flags) run
/// the tools once: the first runs them, the others wait for its outputs and
/// check and publish their own entry.
class KernelBuilder {
public:
  KernelBuilder(const Toolchains &toolchains, BuildCache *cache,
                BuildOptions options);

  /// Called with a short description ("nvcc sm_90 kernels/saxpy/saxpy.cu")
  /// each time a step of a job starts; used for the progress line.
  using StepCallback = std::function<void(const std::string &)>;

  /// Builds |spec| for |target| into
  /// |outDir|/kernels/<kernel>/<target-stem>.{ptx,cubin,spv}.
  BuildJobResult build(const KernelSpec &spec, const Target &target,
                       const std::filesystem::path &outDir,
                       const StepCallback &onStep = {}) const;

private:
  const Toolchains &toolchains_;
  BuildCache *cache_;
  BuildOptions options_;
  std::shared_ptr<CompileMemo> compiles_;
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_KERNEL_BUILDER_H_

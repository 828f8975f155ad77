//===- workbench/project/project.h - The project model --------------------===//
//
// What a project directory holds once read: its workbench.toml
// (workbench_toml.h) and every kernel.toml it names (kernel_toml.h). The
// result is what `kernel-bench build` plans jobs from (job_plan.h): one
// toolchains::KernelSpec per (kernel, source) with absolute paths, the
// targets of each kernel, and the project settings the program step needs
// (program path, which executable a kernel substitutes).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_PROJECT_H_
#define KB_WORKBENCH_PROJECT_PROJECT_H_

#include "common/status.h"
#include "toolchains/kernel_builder.h"
#include "common/target.h"
#include "runtime/bench/declared.h"
#include "workbench/project/tune_space.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// The `[bench]` table of a standalone kernel (one that substitutes
/// nothing): the one dispatch the workbench synthesizes a program for
/// (kb::driver::writeStandaloneProgram) so it gets a benchmark too.
/// `[bench] init` of one binding: how the benchmark draws its inputs.
struct BufferInit {
  /// "" (the default: a seeded uniform draw by element type), "uniform"
  /// [low, high), "normal" (mean, stddev) or "range" (element i = start +
  /// i * step; `constant = V` is a range with step 0).
  std::string distribution;
  double low = 0, high = 1, mean = 0, stddev = 1, start = 0, step = 0;
};

/// A problem size of a kernel whose `[bench] constants` sweep: integer
/// constant name -> the value chosen from its list (decimal text).
using ProblemSize = std::map<std::string, std::string>;

/// A kernel's declared `[bench]` (its problem for standalone benchmarks and
/// tuning); `bench`'s measurement flags are bench_settings.h's
/// BenchSettings.
struct DeclaredBench {
  /// The integer constants given as lists (only with [tune]): each name
  /// with its values, in file order. `tune` measures every combination;
  /// everything else uses the first value of each.
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  /// `[bench] sweep`: the integer constants whose values the build sweeps,
  /// each with its values, in [abi] order. `build` makes one benchmark per
  /// combination (problem_sizes.h); `tune` measures each, as it does
  /// |axes|. The kernel as loaded without a ProblemSize uses the first.
  std::vector<std::pair<std::string, std::vector<std::string>>> sweep;
  /// 1 to 3 entries, each >= 1. (The workload per workgroup is the
  /// kernel's: [abi], KernelAbi::workloadPerWorkgroup.)
  std::vector<int64_t> workload;
  /// One per [abi] constant, in order: its value as a decimal literal.
  std::vector<std::string> constantValues;
  /// One per [abi] binding, in order: its element count.
  std::vector<uint64_t> elementCounts;
  /// One per [abi] binding, in order: how its inputs are drawn.
  std::vector<BufferInit> init;
  /// Absolute .mlir/.mlirbc holding a kb.executable whose export has the
  /// kernel's entry name and layout: the generated reference. Empty: none.
  std::filesystem::path reference;
  /// Or a handwritten twin: absolute sources (one per language the kernel
  /// has) built like the kernel's own, with the same [abi], defines and
  /// [specialization] (Kernel::referenceSpecs), and run as its reference.
  std::vector<std::filesystem::path> referenceSources;
  /// Or a C/C++ source whose function runs on the host as the reference
  /// (absolute; KernelDeclared::hostReference says what the build records).
  std::filesystem::path hostReference;
  /// The twin's CUDA entry, or the host reference's function, when it is
  /// named differently; empty: the kernel's entry (twin) or its name (host
  /// function).
  std::string referenceEntry;
  /// The export name: the kernel's `entry` (default: its name).
  std::string exportName;
};

/// One number of a kernel's launch shape (kernel_toml_launch.h): a literal,
/// or an expression evaluated per source once its tuned values are known.
struct LaunchValue {
  int64_t value = 0;
  std::string expression; // empty: |value|
  std::string key;        // `workgroup_size[0]`, for messages
  std::string where;      // `kernel.toml:LINE:COL`
};

/// `[abi] workgroup_size`, `workload_per_workgroup` and
/// `dynamic_shared_memory` as written.
struct DeclaredLaunch {
  std::vector<LaunchValue> workgroupSize;        // 3 entries
  std::vector<LaunchValue> workloadPerWorkgroup; // none: the workgroup size
  std::optional<LaunchValue> sharedMemory;       // none: 0
};

/// One kernel directory (one kernel.toml).
struct Kernel {
  std::string name;
  /// Absolute path of the kernel.toml.
  std::filesystem::path manifest;
  /// One spec per source, in the order of `sources`. At most one CUDA and
  /// one GLSL source (each builds a different target family).
  std::vector<toolchains::KernelSpec> specs;
  /// The kernel's targets: its own `targets` when declared, else the
  /// project's. Only those a source covers produce jobs.
  std::vector<Target> targets;
  /// True when `targets` came from the kernel.toml (not the project).
  bool declaresTargets = false;
  /// Name of the program executable this kernel replaces; empty for a
  /// standalone kernel.
  std::string substitutes;
  /// `[kernel] entry` as written; empty when the kernel.toml has none (a
  /// CUDA entry is then the kernel's name, or the export's on substitution).
  std::string entry;
  /// `[bench]`: only a kernel that substitutes nothing has one.
  std::optional<DeclaredBench> bench;
  /// `[tune]`: what `kernel-bench tune` may vary; empty without one.
  TuneSpace tune;
  /// The `[bench]` of a kernel that `substitutes` an executable and has
  /// `[tune]`: `tune` benchmarks it standalone with it; `build` does not.
  std::optional<DeclaredBench> tuneBench;
  /// `[roofline]` and `[tolerance]`, evaluated (runtime/bench/declared.h).
  bench::KernelDeclared declared;
  /// The launch shape as declared; each spec's ABI holds it evaluated with
  /// that spec's values.
  DeclaredLaunch launch;
  /// One spec per tuned.toml entry with a `device`: a copy of the spec of
  /// its backend with that entry's values (KernelSpec::tunedFor, and a
  /// name of its own, `<kernel>@<model>`, for its outputs). Each builds for
  /// the targets of its family beside that spec, and the module carries
  /// every one, the runtime choosing the one for the device it runs on.
  std::vector<toolchains::KernelSpec> tunedSpecs;
  /// The handwritten twin reference of a standalone kernel (`[bench]
  /// reference = "naive.comp"`): a copy of the spec of each language with
  /// the twin's source and entry, named `<kernel>@reference` for its
  /// outputs. Its objects become the reference variants of the kernel's
  /// synthesized program.
  std::vector<toolchains::KernelSpec> referenceSpecs;
  /// Whether |spec| is one of referenceSpecs (not a candidate).
  bool isReferenceSpec(const toolchains::KernelSpec *spec) const;

  /// The spec that builds |target| (CUDA source for cuda:*, GLSL for
  /// vulkan:*), or null when the kernel has no source for that family.
  const toolchains::KernelSpec *specFor(const Target &target) const;
};

/// The `[build]` table of workbench.toml; command-line flags override it.
struct BuildSettings {
  unsigned jobs = 0; // 0 = all cores.
  std::optional<double> timeoutSeconds;
  /// `tool_memory`: each tool's address-space limit in bytes (0: none).
  std::optional<uint64_t> toolMemoryBytes;
  std::filesystem::path cacheDir; // Empty = the default location.
  /// The shared cache's URL (docs/remote-cache.md); checked, never with
  /// credentials in it. Empty = none.
  std::string remoteCache;
};

/// A kernel.toml that did not load. The project builds without it and the
/// build fails naming it: one bad manifest must not stop the other kernels
/// from building, nor hide their own errors.
struct BrokenKernel {
  std::filesystem::path manifest;
  std::string error;
  StatusCode code = StatusCode::InvalidArgument; // NotFound: a missing file
};

struct Project {
  std::string name;
  /// Absolute project directory and workbench.toml.
  std::filesystem::path directory;
  std::filesystem::path manifest;
  /// Absolute path of the program whose executables kernels substitute.
  std::optional<std::filesystem::path> program;
  std::vector<Target> targets;
  /// Absolute; `output_dir` relative to the project directory (default
  /// "kb-out").
  std::filesystem::path outputDir;
  BuildSettings build;
  /// `[toolchains]` overrides: tool name (toolchains::Toolchains::knownTools)
  /// -> absolute executable path.
  std::map<std::string, std::filesystem::path> toolOverrides;
  /// Sorted by name; names are unique.
  std::vector<Kernel> kernels;
  /// The kernel.toml files that did not load, in the order found.
  std::vector<BrokenKernel> brokenKernels;
  /// The directories whose listings decided which kernel.toml files are
  /// the project's (the `kernels` globs' levels, or every directory the
  /// default search walked): a file added or removed in one changes the
  /// project, which a stat of them notices.
  std::vector<std::filesystem::path> listedDirectories;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_PROJECT_H_

//===- workbench/project.h - workbench.toml + kernel.toml model -----------===//
//
// Loads a project directory: its workbench.toml and every kernel.toml it
// names (format: kernels/README.md). The result is what `kernel-bench build`
// plans jobs from: one toolchains::KernelSpec per (kernel, source) with
// absolute paths, the targets of each kernel, and the project settings the
// compiler integration needs later (program path, which executable a kernel
// substitutes).
//
// Every error is an InvalidArgument (NotFound for a missing file) whose
// message starts with `file:line:col:` and names the key, what was expected
// and what was found; an unknown key suggests the nearest valid one.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_H_
#define KB_WORKBENCH_PROJECT_H_

#include "common/status.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/target.h"

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
struct BenchSettings {
  /// 1 to 3 entries, each >= 1.
  std::vector<int64_t> workload;
  /// Empty: the workgroup size.
  std::vector<int64_t> workloadPerWorkgroup;
  /// One per [abi] constant, in order: its value as a decimal literal.
  std::vector<std::string> constantValues;
  /// One per [abi] binding, in order: its element count.
  std::vector<uint64_t> elementCounts;
  /// Absolute .mlir/.mlirbc holding a kb.executable whose export has the
  /// kernel's entry name and layout: the generated reference. Empty: none.
  std::filesystem::path reference;
  /// The export name: the kernel's `entry` (default: its name).
  std::string exportName;
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
  std::vector<toolchains::Target> targets;
  /// True when `targets` came from the kernel.toml (not the project).
  bool declaresTargets = false;
  /// Name of the program executable this kernel replaces; empty for a
  /// standalone kernel.
  std::string substitutes;
  /// `[bench]`: only a kernel that substitutes nothing has one.
  std::optional<BenchSettings> bench;

  /// The spec that builds |target| (CUDA source for cuda:*, GLSL for
  /// vulkan:*), or null when the kernel has no source for that family.
  const toolchains::KernelSpec *specFor(const toolchains::Target &target) const;
};

/// The `[build]` table of workbench.toml; command-line flags override it.
struct BuildSettings {
  unsigned jobs = 0; // 0 = all cores.
  std::optional<double> timeoutSeconds;
  std::filesystem::path cacheDir; // Empty = the default location.
};

struct Project {
  std::string name;
  /// Absolute project directory and workbench.toml.
  std::filesystem::path directory;
  std::filesystem::path manifest;
  /// Absolute path of the program whose executables kernels substitute.
  std::optional<std::filesystem::path> program;
  std::vector<toolchains::Target> targets;
  /// Absolute; `output_dir` relative to the project directory (default
  /// "kb-out").
  std::filesystem::path outputDir;
  BuildSettings build;
  /// `[toolchains]` overrides: tool name (toolchains::Toolchains::knownTools)
  /// -> absolute executable path.
  std::map<std::string, std::filesystem::path> toolOverrides;
  /// Sorted by name; names are unique.
  std::vector<Kernel> kernels;
};

/// Loads |directory|/workbench.toml and the kernels it names.
StatusOr<Project> loadProject(const std::filesystem::path &directory);

/// Loads one kernel.toml. |defaultTargets| are used when the kernel declares
/// none. Exposed for tests and for tools that build a single kernel.
StatusOr<Kernel>
loadKernel(const std::filesystem::path &manifest,
           const std::vector<toolchains::Target> &defaultTargets);

/// One unit of `kernel-bench build`: one kernel source for one target.
struct PlannedJob {
  const Kernel *kernel = nullptr;
  const toolchains::KernelSpec *spec = nullptr;
  toolchains::Target target;
};

/// Plans the jobs of a build. Without |requested| every kernel builds for
/// its targets. With |requested| (the `--target` flags), a kernel that
/// declares targets builds those of them that are requested, and the other
/// kernels build every requested target; a requested target no kernel can
/// build, or a kernel left with no target at all, is an error.
StatusOr<std::vector<PlannedJob>>
planJobs(const Project &project,
         const std::vector<toolchains::Target> &requested);

/// The tool names `[kernel.flags]` accepts.
const std::vector<std::string> &knownToolNames();

/// |path| relative to the current directory when it lies below it, else as
/// given; used for every path shown to the user.
std::string displayPath(const std::filesystem::path &path);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_H_

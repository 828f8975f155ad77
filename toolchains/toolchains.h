//===- toolchains/toolchains.h - Find nvcc, ptxas, glslc, spirv-* --------===//
//
// Tools are found at run time, never at build time, so one kernel-bench
// binary works on hosts with different toolkits. Search order per tool:
//
//   1. an explicit override (workbench.toml `[toolchains] nvcc = "/path"`),
//      which must exist: it is never silently replaced by another copy;
//   2. CUDA tools (nvcc, ptxas) only: $CUDA_PATH/bin, then /usr/local/cuda/bin;
//   3. PATH.
//
// A tool's identity is its absolute path plus its `--version` text, probed
// once per Toolchains object and path (and remembered on disk when
// ToolchainsConfig::probeCacheDirectory is set). Identities feed the build
// cache key and build.json.
//
// Tools: "nvcc", "ptxas", "glslc", "spirv-val", "spirv-opt" and "host-cxx"
// (the host compiler nvcc runs for preprocessing: `gcc` from PATH unless
// overridden; an override is passed to nvcc as -ccbin).
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_TOOLCHAINS_H_
#define KB_TOOLCHAINS_TOOLCHAINS_H_

#include "common/status.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::toolchains {

struct ToolIdentity {
  std::string name;           // "nvcc"
  std::filesystem::path path; // absolute
  /// Full `--version` output (stdout then stderr), trailing space trimmed.
  std::string version;
  /// One line for reports: "Cuda compilation tools, release 13.0, V13.0.88".
  std::string versionSummary;
  /// True when the path came from ToolchainsConfig::overrides.
  bool overridden = false;
};

struct ToolchainsConfig {
  /// Tool name -> executable path. Relative paths are taken relative to the
  /// current directory (the config layer makes them absolute first).
  std::map<std::string, std::filesystem::path> overrides;
  /// Search environment; nullopt = this process's $CUDA_PATH / $PATH.
  std::optional<std::string> cudaPath;
  std::optional<std::string> searchPath;
  /// Where `--version` probes are remembered across runs (the build cache
  /// directory is a good choice), keyed by the executable's path, size,
  /// mtime, ctime and inode, so a no-op build spawns no tool at all. Empty:
  /// probe once per process.
  std::filesystem::path probeCacheDirectory;
  /// How long `tool --version` may take before the tool is reported as
  /// hanging (its process group is killed).
  std::chrono::milliseconds probeTimeout{30000};
};

class Toolchains {
public:
  explicit Toolchains(ToolchainsConfig config = {});

  /// Finds |tool| and probes its version. Unavailable names the tool, where
  /// it looked and how to get it; InvalidArgument for an unknown tool name.
  /// Thread-safe.
  StatusOr<ToolIdentity> find(std::string_view tool) const;

  /// The CUDA toolkit nvcc belongs to (the parent of its bin/), whose headers
  /// are covered by nvcc's identity rather than hashed one by one.
  StatusOr<std::filesystem::path> cudaRoot() const;

  /// "nvcc", "ptxas", "glslc", "spirv-val", "spirv-opt", "host-cxx".
  static const std::vector<std::string> &knownTools();

  const ToolchainsConfig &config() const { return config_; }

  /// Every executable find() probed so far (the tools this process's
  /// results depend on), sorted.
  std::vector<std::filesystem::path> probedTools() const;

  /// `--version` results by path (shared by copies of this object).
  struct ProbeCache {
    std::mutex mutex;
    std::map<std::string, StatusOr<std::string>> byPath;
  };

private:
  ToolchainsConfig config_;
  std::shared_ptr<ProbeCache> probes_;
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_TOOLCHAINS_H_

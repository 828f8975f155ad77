//===- toolchains/toolchains.cpp - Find nvcc, ptxas, glslc, spirv-* ------===//

#include "toolchains/toolchains.h"

#include "common/file_util.h"
#include "common/process.h"
#include "common/sha256.h"
#include "common/tool_search.h"
#include "toolchains/file_hash_memo.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

/// The executable name to look for.
std::string executableName(std::string_view tool) {
  return tool == "host-cxx" ? "gcc" : std::string(tool);
}

std::string installHint(std::string_view tool) {
  std::string how;
  if (isCudaTool(tool))
    how = "Install the CUDA Toolkit (13.0 or newer; "
          "https://developer.nvidia.com/cuda-downloads) and set CUDA_PATH to "
          "its root";
  else if (tool == "glslc")
    how = "Install the Debian package `glslc` (apt-get install glslc)";
  else if (tool == "spirv-val" || tool == "spirv-opt")
    how = "Install the Debian package `spirv-tools` (apt-get install "
          "spirv-tools)";
  else
    how = "Install the Debian package `gcc` (apt-get install gcc)";
  return how + ", or set [toolchains] " + std::string(tool) + " = \"/path/to/" +
         executableName(tool) + "\" in workbench.toml";
}

std::string trimRight(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  return text;
}

std::string summarize(std::string_view tool, const std::string &version) {
  std::istringstream lines(version);
  std::string line, first;
  std::vector<std::string> all;
  while (std::getline(lines, line)) {
    line = trimRight(line);
    if (line.empty())
      continue;
    if (first.empty())
      first = line;
    all.push_back(line);
    // nvcc/ptxas: "Cuda compilation tools, release 13.0, V13.0.88".
    if (isCudaTool(tool) && line.rfind("Cuda compilation tools", 0) == 0)
      return line;
  }
  // glslc: "shaderc 2023.2-1, spirv-tools ..., glslang 11.13.0-1".
  if (tool == "glslc" && all.size() >= 3)
    return all[0] + ", " + all[1] + ", " + all[2];
  return first;
}

// A record is the header, the sha256 of the version text on its own line,
// then the text: a flipped byte anywhere makes it a miss, never a version
// string with garbage in it (which would reach build.json).
std::string seconds(std::chrono::milliseconds duration) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", duration.count() / 1000.0);
  return buffer;
}

constexpr const char kProbeHeader[] = "kernel-bench tool probe v2\n";

std::string encodeProbe(const std::string &version) {
  return kProbeHeader + sha256Hex(version) + "\n" + version;
}

std::optional<std::string> decodeProbe(const std::string &record) {
  size_t header = std::strlen(kProbeHeader);
  if (record.rfind(kProbeHeader, 0) != 0 || record.size() < header + 65 ||
      record[header + 64] != '\n')
    return std::nullopt;
  std::string version = record.substr(header + 65);
  if (sha256Hex(version) != record.substr(header, 64))
    return std::nullopt;
  return version;
}

/// The on-disk probe record for |path|: named after everything that changes
/// when the executable is replaced or rebuilt. Empty when |dir| is empty or
/// the file cannot be stat'ed.
fs::path probeRecordPath(const fs::path &dir, const fs::path &path) {
  std::optional<FileStamp> st;
  if (dir.empty() || !(st = stampFile(path.string())))
    return {};
  std::string identity =
      path.string() + "\n" + std::to_string(st->size) + "\n" +
      std::to_string(st->mtimeNs) + "\n" + std::to_string(st->ctimeNs) + "\n" +
      std::to_string(st->inode) + "\n" + std::to_string(st->device);
  return dir / "v1" / "tool-probes" / sha256Hex(identity);
}

/// `path --version`, once per process and path, and across processes when
/// |probeDir| is set.
StatusOr<std::string> probeVersion(std::string_view tool, const fs::path &path,
                                   const fs::path &probeDir,
                                   std::chrono::milliseconds timeout,
                                   Toolchains::ProbeCache &cache) {
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.byPath.find(path.string());
    if (it != cache.byPath.end())
      return it->second;
  }
  fs::path record = probeRecordPath(probeDir, path);
  if (!record.empty()) {
    auto text = readFile(record);
    if (std::optional<std::string> version =
            text.ok() ? decodeProbe(*text) : std::nullopt) {
      std::lock_guard<std::mutex> lock(cache.mutex);
      return cache.byPath.emplace(path.string(), *version).first->second;
    }
  }
  ProcessOptions options;
  options.argv = {path.string(), "--version"};
  options.timeout = timeout;
  options.env = {{"LC_ALL", "C"}};
  StatusOr<std::string> version = [&]() -> StatusOr<std::string> {
    KB_ASSIGN_OR_RETURN(ProcessResult result, runProcess(options));
    if (result.timedOut)
      return unavailable(
          std::string(tool) + " `" + path.string() +
          "` did not answer `--version` within " + seconds(timeout) +
          " s and was killed; kernel-bench asks every tool its version "
          "before using it. Check that `" +
          path.string() + " --version` finishes, or point [toolchains] " +
          std::string(tool) + " at a working " + std::string(tool) + ".");
    if (!result.succeeded())
      return unavailable(
          "`" + path.string() + " --version` failed (" + result.describe() +
          "): " + trimRight(result.stderrText) + ". Is `" + path.string() +
          "` really " + std::string(tool) + "? " + installHint(tool));
    return trimRight(result.stdoutText + result.stderrText);
  }();
  // Only successful probes are remembered; a failed write costs a spawn
  // next time, nothing else.
  if (version.ok() && !record.empty())
    writeFileAtomic(record, encodeProbe(*version)).ignoreError();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.byPath.emplace(path.string(), version).first->second;
}

} // namespace

Toolchains::Toolchains(ToolchainsConfig config)
    : config_(std::move(config)), probes_(std::make_shared<ProbeCache>()) {}

const std::vector<std::string> &Toolchains::knownTools() {
  static const std::vector<std::string> tools = {
      "nvcc", "ptxas", "glslc", "spirv-val", "spirv-opt", "host-cxx"};
  return tools;
}

StatusOr<ToolIdentity> Toolchains::find(std::string_view tool) const {
  const auto &known = knownTools();
  if (std::find(known.begin(), known.end(), tool) == known.end()) {
    std::string list;
    for (const std::string &name : known)
      list += (list.empty() ? "" : ", ") + name;
    return invalidArgument("unknown tool `" + std::string(tool) +
                           "`; expected one of " + list);
  }
  ToolIdentity identity;
  identity.name = std::string(tool);

  auto override = config_.overrides.find(std::string(tool));
  if (override != config_.overrides.end()) {
    fs::path path = fs::absolute(override->second).lexically_normal();
    if (!isExecutableFile(path))
      return unavailable(
          std::string(tool) + " not found: the override [toolchains] " +
          std::string(tool) + " = \"" + override->second.string() + "\" " +
          (fs::exists(path) ? "is not an executable file" : "does not exist") +
          ". Fix the path, or remove the override to search CUDA_PATH and "
          "PATH.");
    identity.path = path;
    identity.overridden = true;
  } else {
    KB_ASSIGN_OR_RETURN(identity.path,
                        searchTool(executableName(tool),
                                   {config_.cudaPath, config_.searchPath},
                                   installHint(tool)));
  }
  KB_ASSIGN_OR_RETURN(identity.version,
                      probeVersion(tool, identity.path,
                                   config_.probeCacheDirectory,
                                   config_.probeTimeout, *probes_));
  identity.versionSummary = summarize(tool, identity.version);
  return identity;
}

std::vector<fs::path> Toolchains::probedTools() const {
  std::lock_guard<std::mutex> lock(probes_->mutex);
  std::vector<fs::path> paths;
  for (const auto &[path, version] : probes_->byPath)
    if (version.ok())
      paths.emplace_back(path);
  return paths;
}

StatusOr<fs::path> Toolchains::cudaRoot() const {
  KB_ASSIGN_OR_RETURN(ToolIdentity nvcc, find("nvcc"));
  return nvcc.path.parent_path().parent_path();
}

} // namespace kb::toolchains

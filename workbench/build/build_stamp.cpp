//===- workbench/build/build_stamp.cpp - A no-op build that only stats ----===//
//
// The stamp is text, one path per line, so that checking it costs little
// more than the stat() calls themselves:
//
//   kernel-bench build stamp 1
//   key <sha256>
//   figures <kernels> <targets> <jobs> <cached> <skipped> <program>
//           <program cached> <substitutions> <tuned variants> <benchmarks>
//   <kind> <size> <mtime ns> <ctime ns> <inode> <device> <path>   (each path)
//   end <number of paths>
//
// kind is `f` (file), `d` (directory), `o` (anything else) or `-` (absent:
// a tuned.toml or a header candidate that does not exist; its appearance is
// a change). A truncated stamp has no `end` line; any other damage makes a
// path or the key differ, which only costs a full build.
//
//===----------------------------------------------------------------------===//
#include "workbench/build/build_stamp.h"

#include "workbench/build/build_session.h"
#include "workbench/build/compiler_library.h"

#include "common/file_util.h"
#include "common/paths.h"
#include "common/tool_search.h"
#include "toolchains/build_cache.h"
#include "toolchains/file_hash_memo.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

constexpr const char kHeader[] = "kernel-bench build stamp 1\n";

/// What stat() says of a path of any kind (following a final symlink, as
/// the readers of these paths do: a retargeted link is a change).
struct PathState {
  /// `f` file, `d` directory, `o` other, `-` absent.
  char kind = '-';
  toolchains::FileStamp stamp;

  bool operator==(const PathState &o) const {
    return kind == o.kind && stamp == o.stamp;
  }
};

PathState statPath(const char *path) {
  PathState state;
  struct stat st;
  if (::stat(path, &st) != 0)
    return state;
  state.kind = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : 'o';
  toolchains::FileStamp &s = state.stamp;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctimeNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.inode = static_cast<uint64_t>(st.st_ino);
  s.device = static_cast<uint64_t>(st.st_dev);
  return state;
}

/// Reads one space-terminated integer field at |at| (from_chars: a stamp
/// of a few hundred lines is read on every no-op, and sscanf tripled it).
template <typename T>
bool readField(std::string_view line, size_t &at, T &out) {
  const char *end = line.data() + line.size();
  auto [next, ec] = std::from_chars(line.data() + at, end, out);
  if (ec != std::errc() || next == end || *next != ' ')
    return false;
  at = static_cast<size_t>(next - line.data()) + 1;
  return true;
}

/// Reads `<kind> <size> <mtime> <ctime> <inode> <device> <path>`.
bool parseEntry(std::string_view line, PathState &state, std::string &path) {
  if (line.size() < 3 || line[1] != ' ')
    return false;
  state.kind = line[0];
  toolchains::FileStamp &s = state.stamp;
  size_t at = 2;
  if (!readField(line, at, s.size) || !readField(line, at, s.mtimeNs) ||
      !readField(line, at, s.ctimeNs) || !readField(line, at, s.inode) ||
      !readField(line, at, s.device) || at >= line.size())
    return false;
  path.assign(line.substr(at));
  return true;
}

std::string renderEntry(const std::string &path, const PathState &state) {
  const toolchains::FileStamp &s = state.stamp;
  char fields[128];
  std::snprintf(fields, sizeof fields,
                "%c %" PRIu64 " %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64
                " ",
                state.kind, s.size, s.mtimeNs, s.ctimeNs, s.inode, s.device);
  return fields + path + "\n";
}

std::string renderFigures(const BuildSummaryFigures &f) {
  char line[256];
  std::snprintf(line, sizeof line,
                "figures %zu %zu %zu %zu %zu %d %d %zu %zu %zu\n", f.kernels,
                f.targets, f.jobs, f.cached, f.skippedTargets,
                static_cast<int>(f.program), f.programCached ? 1 : 0,
                f.substitutions, f.tunedVariants, f.benchmarks);
  return line;
}

bool parseFigures(const std::string &line, BuildSummaryFigures &f) {
  int program = 0, cached = 0;
  if (std::sscanf(line.c_str(), "figures %zu %zu %zu %zu %zu %d %d %zu %zu %zu",
                  &f.kernels, &f.targets, &f.jobs, &f.cached, &f.skippedTargets,
                  &program, &cached, &f.substitutions, &f.tunedVariants,
                  &f.benchmarks) != 10 ||
      program < 0 || program > 2)
    return false;
  f.program = static_cast<BuildSummaryFigures::Program>(program);
  f.programCached = cached != 0;
  return true;
}

/// The variables that decide where tools, the cache and the compiler
/// library are found (a change finds other ones).
constexpr const char *kKeyVariables[] = {
    "PATH", "CUDA_PATH",       "KB_CACHE_DIR",      "XDG_CACHE_HOME",
    "HOME", "KB_REMOTE_CACHE", kCompilerLibraryEnv,
};

bool isUnder(const std::string &path, const std::string &dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

/// Every path the build's results depend on (see the header).
std::set<std::string> inputsOf(const BuildSession &session) {
  std::set<std::string> inputs;
  const Project &project = *session.project;
  inputs.insert(project.manifest.string());
  for (const fs::path &dir : project.listedDirectories)
    inputs.insert(dir.string());
  for (const Kernel &kernel : project.kernels) {
    inputs.insert(kernel.manifest.string());
    inputs.insert(kernel.manifest.parent_path().string());
    inputs.insert((kernel.manifest.parent_path() / "tuned.toml").string());
  }
  for (const std::string &path : session.cache->hashedPaths())
    inputs.insert(path);
  for (const fs::path &tool : session.tools->probedTools())
    inputs.insert(tool.string());
  // Where the tools were searched for: a tool installed earlier in the
  // search order would be found instead (nvcc's list holds every place).
  for (const fs::path &dir :
       toolSearchDirectories("nvcc", {session.tools->config().cudaPath,
                                      session.tools->config().searchPath}))
    inputs.insert(absoluteNormal(dir).string());
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  inputs.insert(ec ? std::string("/proc/self/exe") : self.string());
  // The outputs are listed as outputs (the program step hashes some).
  const std::string out = session.outputDir.string();
  for (auto it = inputs.begin(); it != inputs.end();)
    it = isUnder(*it, out) || *it == out ? inputs.erase(it) : std::next(it);
  return inputs;
}

/// Whether the build's record and the terminal say all there is: every job
/// succeeded without a warning, nothing skipped or interrupted.
Status qualifies(const BuildReport &report, bool warned) {
  // The remote tier prints its own warnings (toolchains/remote_cache.h).
  if (warned || (report.options.remoteCache &&
                 !report.options.remoteCache->warnings.empty()))
    return failedPrecondition("no stamp: the build printed a warning, which "
                              "the next one must print again");
  if (report.interruptedBy || !report.error.empty() ||
      !report.programError.empty() || !report.recordError.empty())
    return failedPrecondition("no stamp: the build failed");
  if (!report.skippedTargets.empty())
    return failedPrecondition("no stamp: a target was skipped");
  if (!report.project->brokenKernels.empty())
    return failedPrecondition("no stamp: a kernel.toml did not load");
  for (const JobRecord &job : report.jobs) {
    if (!job.result.status.ok())
      return failedPrecondition("no stamp: a job failed");
    for (const toolchains::Diagnostic &d : job.result.diagnostics)
      if (isWarningOrWorse(d.severity))
        return failedPrecondition("no stamp: " + job.result.kernel +
                                  " has warnings, which every build prints");
  }
  return okStatus();
}

} // namespace

bool stampable(const BuildRequest &request) {
  return !request.project && !request.noCache;
}

std::string buildStampKey(const BuildRequest &request) {
  toolchains::CacheKeyBuilder key;
  key.add(kHeader);
  key.add("project", absoluteNormal(request.projectDir).string());
  key.add("output", request.outputDir.empty()
                        ? std::string()
                        : absoluteNormal(request.outputDir).string());
  key.add("targets", std::to_string(request.targets.size()));
  for (const Target &target : request.targets)
    key.add(target.toString());
  key.add("cache-dir", request.cacheDir.empty()
                           ? std::string()
                           : absoluteNormal(request.cacheDir).string());
  key.add("remote-cache", request.remoteCache)
      .add(request.noRemoteCache ? "no-remote" : "remote");
  char timeout[32];
  std::snprintf(timeout, sizeof timeout, "%.17g", request.timeoutSeconds);
  key.add("timeout", timeout);
  key.add("tool-memory", request.toolMemoryBytes
                             ? std::to_string(*request.toolMemoryBytes)
                             : std::string("default"));
  key.add(request.strict ? "strict" : "lenient")
      .add(request.kernelsOnly ? "kernels-only" : "program");
  for (const char *name : kKeyVariables) {
    const char *value = std::getenv(name);
    key.add(name, value ? std::string("=") + value : std::string("unset"));
  }
  return key.finish();
}

/// Why |path| no longer is as |recorded|.
std::string changeOf(const std::string &path, const PathState &recorded,
                     const PathState &now) {
  const std::string shown = displayPath(path);
  if (now.kind == '-')
    return shown + " is gone";
  if (recorded.kind == '-')
    return shown + " appeared";
  if (now.kind != recorded.kind)
    return shown + " is another kind of file now";
  if (now.kind == 'd')
    return "the listing of " + shown + " changed (an entry added, removed " +
           "or renamed)";
  const toolchains::FileStamp &was = recorded.stamp, &is = now.stamp;
  return shown + " changed" +
         (is.size != was.size         ? " (size)"
          : is.mtimeNs != was.mtimeNs ? " (modification time)"
          : is.inode != was.inode     ? " (replaced)"
                                      : " (status change time)");
}

StatusOr<BuildSummaryFigures> checkBuildStamp(const fs::path &outputDir,
                                              const std::string &key) {
  const fs::path file = outputDir / kBuildStampName;
  StatusOr<std::string> text = kb::readFile(file);
  if (!text.ok())
    return notFound("no stamp in " + displayPath(outputDir) +
                    ": no build there has left one yet (one that failed, "
                    "warned or found an input modified just before it "
                    "started leaves none)");
  auto damaged = [&] { return dataLoss(displayPath(file) + " is damaged"); };
  if (text->compare(0, sizeof kHeader - 1, kHeader) != 0)
    return damaged();
  size_t at = sizeof kHeader - 1;
  auto nextLine = [&](std::string &line) {
    size_t end = text->find('\n', at);
    if (end == std::string::npos)
      return false;
    line.assign(*text, at, end - at);
    at = end + 1;
    return true;
  };
  std::string line;
  BuildSummaryFigures figures;
  if (!nextLine(line) || line.compare(0, 4, "key ") != 0)
    return damaged();
  if (line != "key " + key)
    return failedPrecondition(
        "the last build there had other options or another environment "
        "(--target, --strict, --timeout, --kernels-only, the cache "
        "directory, PATH, CUDA_PATH, ...)");
  if (!nextLine(line) || !parseFigures(line, figures))
    return damaged();
  size_t paths = 0;
  PathState recorded;
  std::string path;
  while (nextLine(line)) {
    if (line.compare(0, 4, "end ") == 0) {
      if (std::strtoull(line.c_str() + 4, nullptr, 10) != paths ||
          at != text->size())
        return damaged();
      // Nothing is rebuilt now, whatever the stamping build did.
      figures.cached = figures.jobs;
      figures.programCached = true;
      return figures;
    }
    if (!parseEntry(line, recorded, path))
      return damaged();
    if (PathState now = statPath(path.c_str()); !(now == recorded))
      return failedPrecondition(changeOf(path, recorded, now));
    ++paths;
  }
  return damaged(); // Truncated.
}

Status recordBuildStamp(const BuildSession &session, const BuildReport &report,
                        bool warned, const std::string &key,
                        std::chrono::system_clock::time_point started) {
  if (!session.cache)
    return failedPrecondition("no stamp without the cache");
  if (Status no = qualifies(report, warned); !no.ok())
    return no;
  // An input modified within a second before the start could be modified
  // again in the same timestamp tick, unseen: no stamp vouches for it.
  const int64_t settled =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          (started - std::chrono::seconds(1)).time_since_epoch())
          .count();
  std::string text = std::string(kHeader) + "key " + key + "\n" +
                     renderFigures(summaryFigures(report, computeTotals(report),
                                                  /*programFailed=*/false));
  size_t paths = 0;
  for (const std::string &path : inputsOf(session)) {
    PathState state = statPath(path.c_str());
    if (state.kind != '-' &&
        std::max(state.stamp.mtimeNs, state.stamp.ctimeNs) >= settled)
      return failedPrecondition(
          "no stamp: " + displayPath(path) +
          " was modified less than a second before the build started");
    if (path.find('\n') != std::string::npos)
      return failedPrecondition("no stamp: a path has a newline in its name");
    text += renderEntry(path, state);
    ++paths;
  }
  std::set<fs::path> outputs;
  for (const fs::path &output : session.outputs->savedFiles())
    outputs.insert(output);
  outputs.insert(report.buildJson);
  outputs.insert(session.outputDir / OutputManifest::kFileName);
  for (const fs::path &output : outputs) {
    if (output.string().find('\n') != std::string::npos)
      return failedPrecondition("no stamp: a path has a newline in its name");
    text += renderEntry(output.string(), statPath(output.c_str()));
    ++paths;
  }
  text += "end " + std::to_string(paths) + "\n";
  const fs::path file = session.outputDir / kBuildStampName;
  StatusOr<std::string> current = kb::readFile(file);
  if (current.ok() && *current == text)
    return okStatus();
  // A stamp that cannot be written costs the next build a full check.
  return kb::writeFileAtomic(file, text);
}

} // namespace kb::workbench

//===- workbench/build/build_request.h - What a build is asked to do ------===//
//
// The build engine's input (BuildRequest) and what it says while it runs
// (BuildObserver). `kernel-bench build` makes a request from its flags and
// shows the observer's calls on the terminal; `tune` makes one for a
// project it builds in memory and prints it to its log.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_REQUEST_H_
#define KB_WORKBENCH_BUILD_BUILD_REQUEST_H_

#include "workbench/build/build_report.h"
#include "workbench/project/project.h"

#include "common/target.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

struct BuildRequest {
  /// The directory holding workbench.toml; ignored when |project| is set.
  std::string projectDir = ".";
  /// A project made in memory (its kernels already loaded) instead of one
  /// read from |projectDir|.
  std::optional<Project> project;
  /// Empty: the project's output_dir.
  std::string outputDir;
  unsigned jobs = 0; // 0: [build] jobs, else every core
  /// Build only these targets (deduplicated); empty: every target.
  std::vector<Target> targets;
  bool noCache = false;
  std::string cacheDir;
  /// The shared cache's URL; empty: $KB_REMOTE_CACHE, else [build]
  /// remote_cache.
  std::string remoteCache;
  bool noRemoteCache = false;
  bool strict = false;
  /// Every command line, and the full diagnostics of successful jobs.
  bool verbose = false;
  double timeoutSeconds = 0; // per tool; 0: [build] timeout, else 120
  /// Each tool's address-space limit in bytes, 0 for none; unset: [build]
  /// tool_memory, else half the machine's memory.
  std::optional<uint64_t> toolMemoryBytes;
  bool kernelsOnly = false;
  /// Fail at once when another build holds the output directory.
  bool noWait = false;
  /// Say why the build was not decided from stat() alone, and why it left
  /// no stamp for the next one (build_stamp.h), as notes.
  bool explain = false;
};

/// What a build says while it runs. jobStarted, jobStep and jobFinished
/// come from the job threads, several at once: an implementation that
/// prints serializes them itself. Every method does nothing by default.
class BuildObserver {
public:
  virtual ~BuildObserver() = default;
  /// Before the first job: how many are planned.
  virtual void jobsPlanned(size_t count) { (void)count; }
  virtual void jobStarted() {}
  /// A step of some job began ("nvcc sm_90 kernels/saxpy/saxpy.cu").
  virtual void jobStep(const std::string &step) { (void)step; }
  /// A job ended; |stopped|: its tool was stopped by an interrupt.
  virtual void jobFinished(const JobRecord &job, bool stopped) {
    (void)job;
    (void)stopped;
  }
  /// Every job has ended.
  virtual void jobsFinished() {}
  /// Something the user should know; the build goes on.
  virtual void warning(const std::string &message) { (void)message; }
  /// A line that is not a warning (waiting for another build's lock).
  virtual void note(const std::string &message) { (void)message; }
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_REQUEST_H_

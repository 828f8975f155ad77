//===- common/process.h - The one external process runner -----------------===//
//
// Every external tool (nvcc, ptxas, glslc, spirv-val, spirv-opt, a host
// compiler's --version) runs through runProcess():
//
//  * argv only, never a shell: arguments reach the tool exactly as given.
//  * The child leads its own process group, so a timeout can kill the whole
//    tree. nvcc runs `sh -c cicc`; killing nvcc alone leaves cicc running,
//    so we always signal the group.
//  * A private TMPDIR per run (created before, removed after): nvcc's
//    tmpxft_<pid> names collide between concurrent jobs otherwise.
//  * stdout and stderr are drained together with poll(), so a tool that
//    fills one pipe while we wait on the other cannot deadlock.
//  * stdin is /dev/null; pipes are O_CLOEXEC so concurrent spawns from other
//    threads never inherit each other's pipe ends (which would delay EOF).
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_PROCESS_H_
#define KB_COMMON_PROCESS_H_

#include "common/status.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb {

struct ProcessOptions {
  /// argv[0] is an absolute path or a name looked up in the parent's PATH.
  std::vector<std::string> argv;
  /// Working directory of the child; empty = the parent's.
  std::filesystem::path workingDirectory;
  /// Variables set (or overridden) on top of the parent's environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// Kill the process group after this long; zero = no limit.
  std::chrono::milliseconds timeout{0};
  /// Time between SIGTERM and SIGKILL when the timeout fires.
  std::chrono::milliseconds killGrace{2000};
  /// Create a private temporary directory, point TMPDIR/TMP/TEMP at it, and
  /// remove it (with anything the tool left there) after the run.
  bool privateTmpDir = true;
  /// The child's address-space limit (RLIMIT_AS) in bytes, inherited by
  /// everything it starts; 0 = none. A tool past it fails to allocate (an
  /// error exit or an abort), which the caller cannot tell from other
  /// failures for sure: say the limit when such a tool fails.
  uint64_t memoryLimitBytes = 0;
  /// Called with each chunk read from the child's stdout / stderr as it
  /// arrives (a live relay, e.g. a worker's progress); the text is also
  /// collected into the result as usual.
  std::function<void(std::string_view)> onStdout, onStderr;
};

/// How a process ended. Exactly one of: exited (exitCode >= 0, signal 0),
/// killed by a signal (exitCode -1, signal > 0). timedOut additionally says
/// that we sent the signal because the timeout fired.
struct ProcessResult {
  int exitCode = -1;
  int signal = 0;
  bool timedOut = false;
  std::string stdoutText;
  std::string stderrText;
  double seconds = 0;

  bool succeeded() const { return exitCode == 0 && signal == 0 && !timedOut; }
  /// "exit code 1", "killed by signal 11 (Segmentation fault)",
  /// "timed out after 5.0 s (process group killed)".
  std::string describe() const;
};

/// Runs one process to completion. The returned Status is an error only when
/// the process could not be started: Unavailable when argv[0] does not exist
/// (ENOENT), InvalidArgument for an empty argv, Internal for other spawn
/// failures. A non-zero exit, a signal or a timeout is a successful run whose
/// ProcessResult says so.
StatusOr<ProcessResult> runProcess(const ProcessOptions &options);

/// Called by every runProcess(), from its thread, just before it starts the
/// child; nullptr (the default) for none. The build's tool reaper starts
/// itself there, so that a command that starts no tool starts no process.
using BeforeSpawnHook = void (*)();
void setBeforeSpawnHook(BeforeSpawnHook hook);

/// Sends |signal| to the process group of every runProcess() child still
/// running, in this process. Async-signal-safe: call it from the driver's
/// SIGINT/SIGTERM handler. Children lead their own process groups, so the
/// terminal's Ctrl-C does not reach them; without this, an interrupted build
/// would leave nvcc and cicc running. The interrupted runs return normally,
/// reporting the signal.
void signalAllProcessGroups(int signal);

/// Shell-style quoting of argv for logs and --verbose ("a 'b c'"). Never
/// executed: for people to copy and paste.
std::string formatCommandLine(const std::vector<std::string> &argv);

} // namespace kb

#endif // KB_COMMON_PROCESS_H_

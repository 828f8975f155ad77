//===- toolchains/tool_reaper.h - No tool outlives a killed build --------===//
//
// Every tool leads its own process group, and the build kills those groups
// on timeouts, SIGINT, SIGTERM and SIGHUP. Nothing in the build process can
// run after SIGKILL, and PR_SET_PDEATHSIG reaches only a direct child
// (posix_spawn has no hook for it, and nvcc's `sh`, cicc and cc1plus are
// grandchildren). So a build starts a small reaper: a forked child that
// blocks reading a pipe whose only write end the build holds (close-on-exec,
// so no tool inherits it). When the build dies, however it dies, the read
// returns end-of-file and the reaper SIGKILLs every process that carries the
// build's marker in its environment (KB_BUILD_ID=<id>, set before any tool
// starts and inherited by every descendant), then exits. A build that ends
// normally tells the reaper so, and it exits without killing anything.
//
// The reaper is forked just before the first tool starts (a hook in
// runProcess), not when the build starts: a no-op build starts no process.
// It runs only async-signal-safe system calls: it is forked from a process
// that has threads.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_TOOL_REAPER_H_
#define KB_TOOLCHAINS_TOOL_REAPER_H_

#include "common/status.h"

#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>

namespace kb::toolchains {

class ToolReaper {
public:
  /// The environment variable every tool of this build carries.
  static constexpr const char kMarkerVariable[] = "KB_BUILD_ID";

  /// What start() calls, from the spawning thread, when the reaper cannot
  /// be forked (the build goes on; its tools could outlive a SIGKILL).
  using FailureHandler = std::function<void(const std::string &why)>;

  /// Sets KB_BUILD_ID in this process's environment (call before any thread
  /// that reads the environment starts) and arranges for the reaper to be
  /// forked before the first runProcess() of this process; until then
  /// pid() is 0. Every ToolReaper alive shares the one reaper (and marker);
  /// the first one's |onFailure| is called.
  static StatusOr<std::unique_ptr<ToolReaper>>
  start(FailureHandler onFailure = {});
  /// The last one alive tells the reaper (when it was forked) that the
  /// build ended normally, and waits for it to exit.
  ~ToolReaper();
  ToolReaper(const ToolReaper &) = delete;
  ToolReaper &operator=(const ToolReaper &) = delete;

  /// The reaper's pid; 0 before the first tool started.
  pid_t pid() const;
  const std::string &marker() const { return marker_; }

private:
  explicit ToolReaper(std::string marker) : marker_(std::move(marker)) {}
  std::string marker_;
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_TOOL_REAPER_H_

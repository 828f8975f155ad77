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
// The reaper runs only async-signal-safe system calls: it is forked from a
// process that may have threads.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_TOOL_REAPER_H_
#define KB_TOOLCHAINS_TOOL_REAPER_H_

#include "common/status.h"

#include <memory>
#include <string>
#include <sys/types.h>

namespace kb::toolchains {

class ToolReaper {
public:
  /// The environment variable every tool of this build carries.
  static constexpr const char kMarkerVariable[] = "KB_BUILD_ID";

  /// Sets KB_BUILD_ID in this process's environment (call before any thread
  /// that reads the environment starts) and forks the reaper.
  static StatusOr<std::unique_ptr<ToolReaper>> start();

  /// Tells the reaper the build ended normally and waits for it to exit.
  ~ToolReaper();
  ToolReaper(const ToolReaper &) = delete;
  ToolReaper &operator=(const ToolReaper &) = delete;

  pid_t pid() const { return pid_; }
  const std::string &marker() const { return marker_; }

private:
  ToolReaper(pid_t pid, int writeFd, std::string marker)
      : pid_(pid), writeFd_(writeFd), marker_(std::move(marker)) {}
  pid_t pid_;
  int writeFd_;
  std::string marker_;
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_TOOL_REAPER_H_

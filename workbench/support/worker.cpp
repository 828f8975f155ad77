//===- workbench/support/worker.cpp - Device work in a child process ------===//
#include "workbench/support/worker.h"

#include "workbench/support/interrupt_forwarder.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <sys/prctl.h>
#include <unistd.h>

#include <limits.h>

namespace kb::workbench {

namespace {
constexpr const char *kParentVariable = "KB_WORKER_PARENT";
constexpr const char *kWrappedVariable = "KB_WORKER_WRAPPED";

/// Under a wrapper the parent-death signal is tied to the wrapper, not to
/// kernel-bench: a thread watches kernel-bench's pid and ends the worker
/// when it is gone (a kill -9 of kernel-bench must not leave a worker on
/// the GPU).
void watchParent(pid_t parent) {
  std::thread([parent] {
    while (::kill(parent, 0) == 0 || errno == EPERM)
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ::_exit(1);
  }).detach();
}

std::string selfExecutable() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0)
    return "/proc/self/exe";
  path[n] = '\0';
  return path;
}

/// Splits stderr into lines: protocol lines go to |onMessage|, the rest to
/// the diagnostics.
class LineSplitter {
public:
  LineSplitter(const WorkerOptions &options, WorkerRun &run)
      : options_(options), run_(run) {}
  void feed(std::string_view chunk) {
    pending_.append(chunk);
    size_t newline;
    while ((newline = pending_.find('\n')) != std::string::npos) {
      line(pending_.substr(0, newline));
      pending_.erase(0, newline + 1);
    }
  }
  void finish() {
    if (!pending_.empty())
      line(pending_);
    pending_.clear();
  }

private:
  void line(const std::string &text) {
    std::string prefix = kWorkerLinePrefix;
    if (text.compare(0, prefix.size(), prefix) == 0) {
      std::string message = text.substr(prefix.size());
      if (message.compare(0, 6, "stage ") == 0)
        run_.lastStage = message.substr(6);
      if (options_.onMessage)
        options_.onMessage(message);
      return;
    }
    run_.diagnostics += text + "\n";
    if (options_.onDiagnostic)
      options_.onDiagnostic(text);
  }

  const WorkerOptions &options_;
  WorkerRun &run_;
  std::string pending_;
};
} // namespace

std::string WorkerRun::death() const {
  char buffer[64];
  if (process.timedOut) {
    std::snprintf(buffer, sizeof(buffer), "%.1f", process.seconds);
    return std::string("did not finish within ") + buffer +
           " s (the watchdog killed it)";
  }
  if (process.signal != 0)
    return process.describe();
  return "";
}

StatusOr<WorkerRun> runWorker(const WorkerOptions &options) {
  WorkerRun run;
  LineSplitter splitter(options, run);
  kb::ProcessOptions process;
  process.argv = options.wrapper;
  process.argv.insert(process.argv.end(), {selfExecutable(), "__worker"});
  process.argv.insert(process.argv.end(), options.args.begin(),
                      options.args.end());
  // The worker checks that we are still there: as its parent, or under a
  // wrapper (whose own death signal, if any, is not ours) by watching us.
  process.env = {{kParentVariable, std::to_string(::getpid())},
                 {kWrappedVariable, options.wrapper.empty() ? "" : "1"}};
  process.privateTmpDir = false;
  process.killGrace = std::chrono::milliseconds(200);
  if (options.timeoutS > 0)
    process.timeout = std::chrono::milliseconds(
        static_cast<long long>(options.timeoutS * 1000));
  process.onStderr = [&](std::string_view chunk) { splitter.feed(chunk); };
  process.onStdout = options.onStdout;
  KB_ASSIGN_OR_RETURN(run.process, kb::runProcess(process));
  splitter.finish();
  InterruptForwarder::signalBehindChildDeath(run.process.signal,
                                             run.process.timedOut);
  return run;
}

void becomeWorker() {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between spawning us and the prctl above.
  const char *parent = std::getenv(kParentVariable);
  const char *wrapped = std::getenv(kWrappedVariable);
  if (parent && *parent && wrapped && *wrapped)
    watchParent(static_cast<pid_t>(std::strtol(parent, nullptr, 10)));
  else if (parent && *parent && std::to_string(::getppid()) != parent)
    ::_exit(1);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::setvbuf(stderr, nullptr, _IONBF, 0);
}

void announceStage(const std::string &text) { announce("stage " + text); }

void announce(const std::string &line) {
  std::string text = std::string(kWorkerLinePrefix) + line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

} // namespace kb::workbench

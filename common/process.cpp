//===- common/process.cpp - The one external process runner ---------------===//

#include "common/process.h"

#include "common/file_util.h"
#include "common/tool_search.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <system_error>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace kb {
namespace {

using Clock = std::chrono::steady_clock;

/// Owns a file descriptor; closes it on destruction.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd &operator=(Fd &&other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }
  int *out() { return &fd_; }

private:
  int fd_ = -1;
};

/// RAII for posix_spawn attribute objects.
struct SpawnAttrs {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnAttrs() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnAttrs() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

std::string errnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

/// The run's private TMPDIR, removed with whatever the tool left there.
StatusOr<TempDir> makePrivateTmpDir() {
  const char *base = std::getenv("TMPDIR");
  std::filesystem::path parent = base && *base ? base : "/tmp";
  StatusOr<TempDir> dir = TempDir::create(parent, "kb-job-");
  if (!dir.ok())
    return internalError(dir.status().message() +
                         ". Check that TMPDIR (or /tmp) is writable.");
  return dir;
}

/// Parent environment with |overrides| applied, as "K=V" strings.
std::vector<std::string> buildEnvironment(
    const std::vector<std::pair<std::string, std::string>> &overrides) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    std::string key(text.substr(0, eq));
    if (vars.emplace(key, eq == std::string_view::npos
                              ? std::string()
                              : std::string(text.substr(eq + 1)))
            .second)
      order.push_back(key);
  }
  for (const auto &[key, value] : overrides) {
    if (vars.count(key) == 0)
      order.push_back(key);
    vars[key] = value;
  }
  std::vector<std::string> result;
  result.reserve(order.size());
  for (const std::string &key : order)
    result.push_back(key + "=" + vars[key]);
  return result;
}

/// Process groups of running children, for signalAllProcessGroups(). Plain
/// atomics in a fixed array: the reader may be a signal handler, which can
/// take no lock. More concurrent children than slots are simply not
/// tracked (a build runs one per job; -j is far below this).
constexpr size_t kGroupSlots = 1024;
std::atomic<pid_t> gLiveGroups[kGroupSlots];

/// Registers |pgid| for the lifetime of the object.
class GroupRegistration {
public:
  explicit GroupRegistration(pid_t pgid) {
    for (size_t i = 0; i < kGroupSlots; ++i) {
      pid_t expected = 0;
      if (gLiveGroups[i].compare_exchange_strong(expected, pgid)) {
        slot_ = i;
        return;
      }
    }
  }
  GroupRegistration(const GroupRegistration &) = delete;
  GroupRegistration &operator=(const GroupRegistration &) = delete;
  ~GroupRegistration() {
    if (slot_ < kGroupSlots)
      gLiveGroups[slot_].store(0);
  }

private:
  size_t slot_ = kGroupSlots;
};

/// True once the group leader has exited; does not reap it, so its pid (and
/// with it the process group id) cannot be reused while we still signal
/// the group.
bool leaderExited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
    return true; // ECHILD: nothing left to wait for.
  return info.si_pid == pid;
}

/// SIGTERM to the group, wait up to |grace| for the leader, then SIGKILL to
/// the group so that descendants that ignore SIGTERM die too.
void terminateGroup(pid_t pid, std::chrono::milliseconds grace) {
  ::kill(-pid, SIGTERM);
  auto giveUp = Clock::now() + grace;
  while (!leaderExited(pid) && Clock::now() < giveUp)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(-pid, SIGKILL);
}

} // namespace

std::string ProcessResult::describe() const {
  char buffer[64];
  if (timedOut) {
    std::snprintf(buffer, sizeof(buffer), "%.1f", seconds);
    return std::string("timed out after ") + buffer +
           " s (process group killed)";
  }
  if (signal != 0) {
    const char *name = ::sigdescr_np(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : std::string());
  }
  return "exit code " + std::to_string(exitCode);
}

namespace {

/// A string vector as the NULL-terminated char* array exec wants; the
/// strings are owned here.
class CStringArray {
public:
  explicit CStringArray(std::vector<std::string> strings)
      : strings_(std::move(strings)) {
    for (std::string &s : strings_)
      pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  char *const *data() { return pointers_.data(); }

private:
  std::vector<std::string> strings_;
  std::vector<char *> pointers_;
};

/// A started tool: its pid (also its process group id) and the read ends
/// of its stdout and stderr.
struct Child {
  pid_t pid = 0;
  Fd outRead, errRead;
};

/// posix_spawnp with stdin from /dev/null, stdout/stderr to pipes, its own
/// process group, an empty signal mask and default dispositions (whatever
/// the driver ignores or blocks, e.g. SIGPIPE).
StatusOr<Child> spawnChild(const ProcessOptions &options, CStringArray &argv,
                           CStringArray &envp) {
  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0)
    return internalError("pipe2 failed: " + errnoText(errno));
  Child child;
  child.outRead = Fd(outPipe[0]);
  Fd outWrite(outPipe[1]);
  if (::pipe2(errPipe, O_CLOEXEC) != 0)
    return internalError("pipe2 failed: " + errnoText(errno));
  child.errRead = Fd(errPipe[0]);
  Fd errWrite(errPipe[1]);

  SpawnAttrs spawn;
  posix_spawn_file_actions_addopen(&spawn.actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&spawn.actions, outWrite.get(),
                                   STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&spawn.actions, errWrite.get(),
                                   STDERR_FILENO);
  if (!options.workingDirectory.empty())
    posix_spawn_file_actions_addchdir_np(&spawn.actions,
                                         options.workingDirectory.c_str());
  sigset_t emptyMask, defaults;
  sigemptyset(&emptyMask);
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setflags(&spawn.attr, POSIX_SPAWN_SETPGROUP |
                                            POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&spawn.attr, 0);
  posix_spawnattr_setsigmask(&spawn.attr, &emptyMask);
  posix_spawnattr_setsigdefault(&spawn.attr, &defaults);

  int spawnError = ::posix_spawnp(&child.pid, argv.data()[0], &spawn.actions,
                                  &spawn.attr, argv.data(), envp.data());
  if (spawnError != 0) {
    std::string what = "cannot run `" + options.argv[0] + "`";
    if (!options.workingDirectory.empty())
      what += " in `" + options.workingDirectory.string() + "`";
    what += ": " + errnoText(spawnError);
    if (spawnError == ENOENT)
      return unavailable(what);
    return internalError(what);
  }
  return child;
}

/// Reads the child's stdout and stderr into |result| (relaying them) until
/// both close, enforcing the deadline. Once the leader exits, whatever is
/// left in its group only keeps the pipes open and is killed; a descendant
/// that escaped the group (setsid) could hold them forever, so draining
/// after a kill is bounded. Returns whether the group was killed.
bool pumpOutput(const ProcessOptions &options, Child &child,
                Clock::time_point deadline, ProcessResult &result) {
  const bool haveDeadline = options.timeout.count() > 0;
  std::optional<Clock::time_point> drainLimit;
  bool groupKilled = false;
  char buffer[65536];
  while (child.outRead.get() >= 0 || child.errRead.get() >= 0) {
    pollfd fds[2];
    int count = 0;
    for (Fd *fd : {&child.outRead, &child.errRead})
      if (fd->get() >= 0)
        fds[count++] = pollfd{fd->get(), POLLIN, 0};
    // Wake up regularly to notice a leader that exited while a descendant
    // still holds the pipes, and the deadline.
    int waitMs = 50;
    auto now = Clock::now();
    if (haveDeadline && !groupKilled)
      waitMs = int(std::clamp<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
              .count(),
          0, 50));
    int ready = ::poll(fds, nfds_t(count), waitMs);
    if (ready < 0 && errno != EINTR)
      break;
    for (int i = 0; ready > 0 && i < count; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      bool isOut = fds[i].fd == child.outRead.get();
      ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        (isOut ? result.stdoutText : result.stderrText)
            .append(buffer, size_t(n));
        const auto &relay = isOut ? options.onStdout : options.onStderr;
        if (relay)
          relay(std::string_view(buffer, size_t(n)));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        (isOut ? child.outRead : child.errRead).reset();
      }
    }
    now = Clock::now();
    if (!groupKilled && haveDeadline && now >= deadline) {
      result.timedOut = true;
      terminateGroup(child.pid, options.killGrace);
      groupKilled = true;
      drainLimit = Clock::now() + std::chrono::seconds(1);
    } else if (!groupKilled && leaderExited(child.pid)) {
      // Data already in the pipes stays readable.
      ::kill(-child.pid, SIGKILL);
      groupKilled = true;
      drainLimit = Clock::now() + std::chrono::seconds(1);
    } else if (drainLimit && now >= *drainLimit) {
      break;
    }
  }
  return groupKilled;
}

/// Waits for the leader (the pipes are closed, but it may still run: it
/// closed its own stdout/stderr), still honouring the deadline, kills what
/// is left of its group and reaps it into |result|.
void reapChild(const ProcessOptions &options, pid_t pid, bool groupKilled,
               Clock::time_point deadline, ProcessResult &result) {
  const bool haveDeadline = options.timeout.count() > 0;
  while (!leaderExited(pid)) {
    if (!groupKilled && haveDeadline && Clock::now() >= deadline) {
      result.timedOut = true;
      terminateGroup(pid, options.killGrace);
      groupKilled = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!groupKilled)
    ::kill(-pid, SIGKILL); // Stragglers must not outlive their TMPDIR.
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exitCode = -1;
    result.signal = WTERMSIG(status);
  }
}

} // namespace

namespace {
std::atomic<BeforeSpawnHook> gBeforeSpawn{nullptr};
} // namespace

void setBeforeSpawnHook(BeforeSpawnHook hook) { gBeforeSpawn = hook; }

/// |options.argv|, or, under a memory limit, the same argv run by
/// util-linux's prlimit(1) (Essential in Debian), which sets the limit and
/// execs it: posix_spawn cannot set a limit, and one set from here once the
/// child runs would miss what a driver such as nvcc starts first. No shell:
/// the program and its arguments stay argv.
StatusOr<std::vector<std::string>> commandLine(const ProcessOptions &options) {
  if (options.memoryLimitBytes == 0)
    return options.argv;
  // prlimit would report a missing program as its own failure: keep it
  // Unavailable, as posix_spawnp does.
  const std::string &program = options.argv[0];
  const bool found = program.find('/') != std::string::npos
                         ? isExecutableFile(program)
                         : searchTool(program).ok();
  if (!found)
    return unavailable("cannot run `" + program + "`: " + errnoText(ENOENT));
  StatusOr<std::filesystem::path> prlimit =
      searchTool("prlimit", {},
                 "install util-linux, or run tools without a memory "
                 "limit ([build] tool_memory = \"0\")");
  if (!prlimit.ok())
    return prlimit.status();
  std::vector<std::string> argv = {
      prlimit->string(), "--as=" + std::to_string(options.memoryLimitBytes),
      "--"};
  argv.insert(argv.end(), options.argv.begin(), options.argv.end());
  return argv;
}

StatusOr<ProcessResult> runProcess(const ProcessOptions &options) {
  if (options.argv.empty() || options.argv[0].empty())
    return invalidArgument("runProcess: empty argv (no program to run)");
  if (!options.workingDirectory.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(options.workingDirectory, ec))
      return invalidArgument(
          "cannot run `" + options.argv[0] + "`: its working directory `" +
          options.workingDirectory.string() + "` is not a directory");
  }
  std::optional<TempDir> tmpDir;
  std::vector<std::pair<std::string, std::string>> env = options.env;
  if (options.privateTmpDir) {
    KB_ASSIGN_OR_RETURN(TempDir dir, makePrivateTmpDir());
    tmpDir.emplace(std::move(dir));
    for (const char *name : {"TMPDIR", "TMP", "TEMP"})
      env.emplace_back(name, tmpDir->path().string());
  }
  CStringArray envp(buildEnvironment(env));
  KB_ASSIGN_OR_RETURN(std::vector<std::string> command, commandLine(options));
  CStringArray argv(command);

  if (BeforeSpawnHook hook = gBeforeSpawn.load())
    hook();
  auto start = Clock::now();
  KB_ASSIGN_OR_RETURN(Child child, spawnChild(options, argv, envp));
  // Unregistered when this function returns, after the leader is reaped,
  // so a signalled group id always belongs to our child.
  GroupRegistration registration(child.pid);

  ProcessResult result;
  const auto deadline = start + options.timeout;
  bool groupKilled = pumpOutput(options, child, deadline, result);
  reapChild(options, child.pid, groupKilled, deadline, result);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

void signalAllProcessGroups(int signal) {
  for (size_t i = 0; i < kGroupSlots; ++i) {
    pid_t pgid = gLiveGroups[i].load();
    if (pgid > 0)
      ::kill(-pgid, signal);
  }
}

std::string formatCommandLine(const std::vector<std::string> &argv) {
  std::string out;
  for (const std::string &arg : argv) {
    if (!out.empty())
      out += ' ';
    bool plain =
        !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) ||
                 std::strchr("_-+=/.,:@%", c);
        });
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

} // namespace kb

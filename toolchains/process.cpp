//===- toolchains/process.cpp - The one external process runner ----------===//

#include "toolchains/process.h"

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

namespace kb::toolchains {
namespace {

using Clock = std::chrono::steady_clock;

/// Owns a file descriptor; closes it on destruction.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
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

/// Removes a directory tree on destruction (the private TMPDIR).
class ScopedDirectory {
public:
  ScopedDirectory() = default;
  ScopedDirectory(const ScopedDirectory &) = delete;
  ScopedDirectory &operator=(const ScopedDirectory &) = delete;
  ~ScopedDirectory() {
    if (!path_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  void set(std::filesystem::path path) { path_ = std::move(path); }
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
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

StatusOr<std::filesystem::path> makePrivateTmpDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base && *base ? base : "/tmp") + "/kb-job-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data()))
    return internalError("cannot create a private temporary directory `" +
                         pattern + "`: " + errnoText(errno) +
                         ". Check that TMPDIR (or /tmp) is writable.");
  return std::filesystem::path(buffer.data());
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
  ScopedDirectory tmpDir;
  std::vector<std::pair<std::string, std::string>> env = options.env;
  if (options.privateTmpDir) {
    KB_ASSIGN_OR_RETURN(std::filesystem::path dir, makePrivateTmpDir());
    tmpDir.set(dir);
    for (const char *name : {"TMPDIR", "TMP", "TEMP"})
      env.emplace_back(name, dir.string());
  }
  std::vector<std::string> envStrings = buildEnvironment(env);
  std::vector<char *> envp;
  for (std::string &entry : envStrings)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> argvCopy = options.argv;
  std::vector<char *> argv;
  for (std::string &arg : argvCopy)
    argv.push_back(arg.data());
  argv.push_back(nullptr);

  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0)
    return internalError("pipe2 failed: " + errnoText(errno));
  Fd outRead(outPipe[0]), outWrite(outPipe[1]);
  if (::pipe2(errPipe, O_CLOEXEC) != 0)
    return internalError("pipe2 failed: " + errnoText(errno));
  Fd errRead(errPipe[0]), errWrite(errPipe[1]);

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
  // Own process group; default dispositions and an empty mask, whatever the
  // driver ignores or blocks (e.g. SIGPIPE).
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

  auto start = Clock::now();
  pid_t pid = 0;
  int spawnError = ::posix_spawnp(&pid, argv[0], &spawn.actions, &spawn.attr,
                                  argv.data(), envp.data());
  if (spawnError != 0) {
    std::string what = "cannot run `" + options.argv[0] + "`";
    if (!options.workingDirectory.empty())
      what += " in `" + options.workingDirectory.string() + "`";
    what += ": " + errnoText(spawnError);
    if (spawnError == ENOENT)
      return unavailable(what);
    return internalError(what);
  }
  outWrite.reset();
  errWrite.reset();
  // Unregistered when this function returns, after the leader is reaped,
  // so a signalled group id always belongs to our child.
  GroupRegistration registration(pid);

  ProcessResult result;
  bool haveDeadline = options.timeout.count() > 0;
  auto deadline = start + options.timeout;
  // After we killed the group, EOF should follow at once; a descendant that
  // escaped the group (setsid) could hold the pipe forever, so bound it.
  std::optional<Clock::time_point> drainLimit;
  bool groupKilled = false;

  char buffer[65536];
  while (outRead.get() >= 0 || errRead.get() >= 0) {
    pollfd fds[2];
    int count = 0;
    for (Fd *fd : {&outRead, &errRead})
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
      bool isOut = fds[i].fd == outRead.get();
      ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        (isOut ? result.stdoutText : result.stderrText)
            .append(buffer, size_t(n));
        const auto &relay = isOut ? options.onStdout : options.onStderr;
        if (relay)
          relay(std::string_view(buffer, size_t(n)));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        (isOut ? outRead : errRead).reset();
      }
    }
    now = Clock::now();
    if (!groupKilled && haveDeadline && now >= deadline) {
      result.timedOut = true;
      terminateGroup(pid, options.killGrace);
      groupKilled = true;
      drainLimit = Clock::now() + std::chrono::seconds(1);
    } else if (!groupKilled && leaderExited(pid)) {
      // The tool is done; whatever is left in its group only keeps the
      // pipes open. Data already in the pipes stays readable.
      ::kill(-pid, SIGKILL);
      groupKilled = true;
      drainLimit = Clock::now() + std::chrono::seconds(1);
    } else if (drainLimit && now >= *drainLimit) {
      break;
    }
  }

  // Pipes are closed; the leader may still be running (it closed its own
  // stdout/stderr). Keep honouring the deadline while waiting for it.
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
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exitCode = -1;
    result.signal = WTERMSIG(status);
  }
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

} // namespace kb::toolchains

//===- toolchains/tool_reaper.cpp - No tool outlives a killed build ------===//

#include "toolchains/tool_reaper.h"

#include "common/process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

namespace kb::toolchains {
namespace {

constexpr char kNormalExit = 'q';

// The reaper's buffers: static, because after fork() in a threaded process
// the child may not allocate.
char gNeedle[128];
size_t gNeedleSize = 0;
char gEnviron[1 << 17];
char gDirents[1 << 14];

bool isDigits(const char *s) {
  if (!*s)
    return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

long parsePid(const char *s) {
  long value = 0;
  for (; *s; ++s)
    value = value * 10 + (*s - '0');
  return value;
}

/// Whether /proc/<pid>/environ holds the marker "KB_BUILD_ID=<id>" as a
/// whole entry. Processes of other users are unreadable: not ours.
bool carriesMarker(const char *pidText) {
  char path[64] = "/proc/";
  size_t at = std::strlen(path);
  for (const char *s = pidText; *s && at + 10 < sizeof(path); ++s)
    path[at++] = *s;
  std::memcpy(path + at, "/environ", 9);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  size_t size = 0;
  while (size < sizeof(gEnviron)) {
    ssize_t n = ::read(fd, gEnviron + size, sizeof(gEnviron) - size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    size += size_t(n);
  }
  ::close(fd);
  // Entries are NUL-terminated; the needle is "\0KB_BUILD_ID=<id>\0" minus
  // the leading NUL for the first entry.
  for (size_t start = 0; start < size;) {
    size_t end = start;
    while (end < size && gEnviron[end] != '\0')
      ++end;
    if (end - start == gNeedleSize &&
        std::memcmp(gEnviron + start, gNeedle, gNeedleSize) == 0)
      return true;
    start = end + 1;
  }
  return false;
}

/// One pass over /proc: SIGKILL every marked process. Returns how many.
int killMarked() {
  int fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  int killed = 0;
  pid_t self = ::getpid();
  for (;;) {
    long n = ::syscall(SYS_getdents64, fd, gDirents, sizeof(gDirents));
    if (n <= 0)
      break;
    for (long offset = 0; offset < n;) {
      auto *entry = reinterpret_cast<struct dirent64 *>(gDirents + offset);
      offset += entry->d_reclen;
      if (!isDigits(entry->d_name))
        continue;
      pid_t pid = pid_t(parsePid(entry->d_name));
      if (pid == self || !carriesMarker(entry->d_name))
        continue;
      // A tool leads its own group (process.h): killing the group also
      // gets children forked after this pass read /proc.
      if (::getpgid(pid) == pid)
        ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ++killed;
    }
  }
  ::close(fd);
  return killed;
}

[[noreturn]] void reaperMain(int readFd) {
  // Not the terminal's: Ctrl-C or a hangup reaches the build, which stops
  // its tools itself; the reaper must survive to cover a later SIGKILL.
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGHUP, SIGTERM, SIGQUIT, SIGPIPE, SIGTSTP})
    ::sigaction(sig, &ignore, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);
  // Keep only the pipe: an inherited descriptor (a terminal pipe, a lock)
  // must not outlive the build because of us.
  if (readFd != 3) {
    ::dup2(readFd, 3);
    ::close(readFd);
  }
  ::syscall(SYS_close_range, 4u, ~0u, 0u);
  char byte = 0;
  ssize_t n;
  do {
    n = ::read(3, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && byte == kNormalExit)
    ::_exit(0);
  // The build died. Repeat until a pass finds nobody: a tool may fork while
  // we kill its siblings.
  for (int pass = 0; pass < 50; ++pass) {
    if (killMarked() == 0 && pass > 0)
      break;
    struct timespec pause = {0, 20 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  ::_exit(0);
}

} // namespace

namespace {
// The one reaper of this process, shared by every ToolReaper alive (tune
// builds its next batch while bench workers run): armed by the first,
// forked before the first tool, stopped by the last.
struct Armed {
  int handles = 0;
  pid_t pid = 0;
  int writeFd = -1;
  bool failed = false;
  std::string marker;
  ToolReaper::FailureHandler onFailure;
};
std::mutex gArmedMutex;
Armed gArmed;

/// Forks the reaper; |gArmedMutex| held.
Status forkReaper() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return internalError(
        "tool reaper: pipe2: " +
        std::error_code(errno, std::generic_category()).message());
  pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return internalError(
        "cannot start the tool reaper: fork: " +
        std::error_code(error, std::generic_category()).message());
  }
  if (pid == 0) {
    ::close(fds[1]);
    reaperMain(fds[0]);
  }
  ::close(fds[0]);
  gArmed.pid = pid;
  gArmed.writeFd = fds[1];
  return okStatus();
}

/// The runProcess() hook: forks the reaper unless it runs (or failed).
void beforeSpawn() {
  std::lock_guard<std::mutex> lock(gArmedMutex);
  if (gArmed.handles == 0 || gArmed.pid > 0 || gArmed.failed)
    return;
  if (Status forked = forkReaper(); !forked.ok()) {
    gArmed.failed = true;
    if (gArmed.onFailure)
      gArmed.onFailure(forked.message());
  }
}

/// Sets the marker in our environment; |gArmedMutex| held.
Status arm(ToolReaper::FailureHandler onFailure) {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  std::string marker =
      std::to_string(::getpid()) + "-" +
      std::to_string(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
  std::string needle = std::string(ToolReaper::kMarkerVariable) + "=" + marker;
  if (needle.size() >= sizeof(gNeedle))
    return internalError("tool reaper: marker too long");
  std::memcpy(gNeedle, needle.data(), needle.size());
  gNeedleSize = needle.size();
  if (::setenv(ToolReaper::kMarkerVariable, marker.c_str(), 1) != 0)
    return internalError("cannot set " +
                         std::string(ToolReaper::kMarkerVariable));
  gArmed = Armed{};
  gArmed.marker = std::move(marker);
  gArmed.onFailure = std::move(onFailure);
  setBeforeSpawnHook(&beforeSpawn);
  return okStatus();
}

} // namespace

StatusOr<std::unique_ptr<ToolReaper>>
ToolReaper::start(FailureHandler onFailure) {
  std::lock_guard<std::mutex> lock(gArmedMutex);
  if (gArmed.handles == 0)
    KB_RETURN_IF_ERROR(arm(std::move(onFailure)));
  ++gArmed.handles;
  return std::unique_ptr<ToolReaper>(new ToolReaper(gArmed.marker));
}

pid_t ToolReaper::pid() const {
  std::lock_guard<std::mutex> lock(gArmedMutex);
  return gArmed.pid;
}

ToolReaper::~ToolReaper() {
  std::lock_guard<std::mutex> lock(gArmedMutex);
  if (--gArmed.handles > 0)
    return;
  setBeforeSpawnHook(nullptr);
  if (gArmed.pid <= 0)
    return;
  char byte = kNormalExit;
  while (::write(gArmed.writeFd, &byte, 1) < 0 && errno == EINTR) {
  }
  ::close(gArmed.writeFd);
  int status;
  while (::waitpid(gArmed.pid, &status, 0) < 0 && errno == EINTR) {
  }
  gArmed = Armed{};
}

} // namespace kb::toolchains

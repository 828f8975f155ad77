//===- workbench/support/output_lock.cpp - One build per output directory -===//

#include "workbench/support/output_lock.h"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <system_error>
#include <unistd.h>

namespace kb::workbench {
namespace {

std::string errnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

/// The pid the holder wrote, or "unknown" (it may be writing it right now).
std::string holderOf(int fd) {
  char buffer[32] = {};
  ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  std::string text(buffer, n > 0 ? size_t(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return "another kernel-bench (pid unknown)";
  return "kernel-bench (pid " + text + ")";
}

} // namespace

StatusOr<OutputLock>
OutputLock::acquire(const std::filesystem::path &outDir, bool wait,
                    const std::function<void(const std::string &)> &onWait) {
  std::filesystem::path path = outDir / kFileName;
  // Close-on-exec: a tool holding our descriptor would keep the directory
  // locked after we die.
  int fd =
      ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return failedPrecondition("cannot open the output directory's lock `" +
                              path.string() + "`: " + errnoText(errno) +
                              ". Check that the output directory is "
                              "writable, or choose another with -o.");
  OutputLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK)
      return failedPrecondition("cannot lock `" + path.string() +
                                "`: " + errnoText(errno));
    std::string holder = holderOf(fd);
    if (!wait)
      return unavailable("the output directory " + outDir.string() +
                         " is in use by " + holder +
                         " (--no-wait given); wait for it to finish or "
                         "build into another directory with -o");
    if (onWait)
      onWait("waiting for " + holder + ", which is building into " +
             outDir.string() + " (pass --no-wait to fail instead)");
    int rc;
    while ((rc = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0)
      return failedPrecondition("cannot lock `" + path.string() +
                                "`: " + errnoText(errno));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size()))
    return failedPrecondition("cannot write the output directory's lock `" +
                              path.string() + "`: " + errnoText(errno));
  return lock;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0)
    ::close(fd_);
}

} // namespace kb::workbench

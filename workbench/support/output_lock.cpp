//===- workbench/support/output_lock.cpp - One build per output directory -===//

#include "workbench/support/output_lock.h"

#include "common/file_util.h"

#include <cerrno>
#include <cstdio>
#include <sstream>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <system_error>
#include <unistd.h>

namespace kb::workbench {
namespace {

std::string errnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

/// The pid holding |fd|'s flock, as /proc/locks lists it ("N: FLOCK
/// ADVISORY WRITE PID MAJ:MIN:INODE ..."); "" when it is not listed (a
/// filesystem whose lock records name another device). Read, never written:
/// a no-op build leaves every file in the output directory as it was.
std::string listedHolder(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return "";
  char id[64];
  std::snprintf(id, sizeof(id), "%02x:%02x:%lu", major(st.st_dev),
                minor(st.st_dev), static_cast<unsigned long>(st.st_ino));
  StatusOr<std::string> locks = kb::readFile("/proc/locks");
  if (!locks.ok())
    return "";
  std::istringstream lines(*locks);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string index, kind, mode, access, pid, file;
    // Waiters are listed as "N: -> FLOCK ...": they hold nothing.
    if (fields >> index >> kind >> mode >> access >> pid >> file &&
        kind == "FLOCK" && file == id &&
        pid.find_first_not_of("0123456789") == std::string::npos)
      return pid;
  }
  return "";
}

/// Who holds the lock: from /proc/locks, else the pid a holder wrote into
/// the file (what kernel-bench did before it stopped writing it).
std::string holderOf(int fd) {
  std::string pid = listedHolder(fd);
  if (pid.empty()) {
    char buffer[32] = {};
    ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
    pid.assign(buffer, n > 0 ? size_t(n) : 0);
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' '))
      pid.pop_back();
  }
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos)
    return "another kernel-bench (pid unknown)";
  return "kernel-bench (pid " + pid + ")";
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
  return lock;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0)
    ::close(fd_);
}

} // namespace kb::workbench

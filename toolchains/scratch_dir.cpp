//===- toolchains/scratch_dir.cpp - A job's private working directory ----===//

#include "toolchains/scratch_dir.h"

#include "toolchains/shell_safety.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

constexpr const char kPrefix[] = "kb-work-";
constexpr const char kOwnerFile[] = ".owner";

std::string errnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

} // namespace

fs::path ScratchDir::scratchBase() {
  const char *env = std::getenv("TMPDIR");
  if (env && *env == '/' &&
      checkShellSafe("TMPDIR", env, ShellExposure::Bare).ok())
    return fs::path(env);
  return fs::path("/tmp");
}

StatusOr<ScratchDir> ScratchDir::create() {
  std::string pattern = (scratchBase() / (std::string(kPrefix) + "XXXXXX"));
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    return internalError("cannot create a private working directory `" +
                         pattern + "`: " + errnoText(errno) +
                         ". Check that TMPDIR (or /tmp) is writable.");
  fs::path dir(name.data());
  int fd = ::open((dir / kOwnerFile).c_str(),
                  O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    if (fd >= 0)
      ::close(fd);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return internalError("cannot lock the private working directory `" +
                         dir.string() + "`: " + errnoText(error));
  }
  // removeAbandoned() in another build may have taken the lock between our
  // open and flock and removed the directory: then ours is a dead inode.
  struct stat locked, current;
  if (::fstat(fd, &locked) != 0 ||
      ::stat((dir / kOwnerFile).c_str(), &current) != 0 ||
      locked.st_ino != current.st_ino) {
    ::close(fd);
    return create();
  }
  return ScratchDir(dir, fd);
}

ScratchDir::ScratchDir(ScratchDir &&other) noexcept
    : path_(std::move(other.path_)), lockFd_(other.lockFd_) {
  other.path_.clear();
  other.lockFd_ = -1;
}

ScratchDir::~ScratchDir() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  // Unlocked only after removal: a concurrent removeAbandoned() never sees
  // an unlocked directory that is still in use.
  if (lockFd_ >= 0)
    ::close(lockFd_);
}

int ScratchDir::removeAbandoned() {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(scratchBase(), ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    // Only our own: /tmp is shared, and another user's directory is theirs
    // to clean up, whatever its lock says (root included).
    struct stat dirStat;
    if (name.rfind(kPrefix, 0) != 0 ||
        ::lstat(it->path().c_str(), &dirStat) != 0 ||
        !S_ISDIR(dirStat.st_mode) || dirStat.st_uid != ::geteuid())
      continue;
    // A directory without an owner file is one being created right now (or
    // not ours): leave it.
    int fd = ::open((it->path() / kOwnerFile).c_str(),
                    O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
      continue;
    struct stat ownerStat;
    if (::fstat(fd, &ownerStat) == 0 && ownerStat.st_uid == ::geteuid() &&
        ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code removeError;
      fs::remove_all(it->path(), removeError);
      removed += removeError ? 0 : 1;
    }
    ::close(fd);
  }
  return removed;
}

} // namespace kb::toolchains

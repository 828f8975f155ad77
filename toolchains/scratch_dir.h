//===- toolchains/scratch_dir.h - A job's private working directory ------===//
//
// Tools run in a directory kernel-bench creates under the system temporary
// directory with a name it chooses (`kb-work-XXXXXX`): nothing of the user's
// paths appears in a tool's working directory, its TMPDIR or its argv, so
// nvcc's internal shell never sees them.
//
// The owner holds an flock on `<dir>/.owner` for the directory's lifetime. A
// build killed with SIGKILL cannot remove its directory; the next build finds
// it unlocked and removes it (removeAbandoned), while a directory whose owner
// is alive stays locked and untouched.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_SCRATCH_DIR_H_
#define KB_TOOLCHAINS_SCRATCH_DIR_H_

#include "common/status.h"

#include <filesystem>
#include <string_view>

namespace kb::toolchains {

class ScratchDir {
public:
  /// `<base>/kb-work-XXXXXX`, locked; base = scratchBase().
  static StatusOr<ScratchDir> create();
  /// $TMPDIR when it is absolute and made only of characters no shell
  /// interprets, else /tmp.
  static std::filesystem::path scratchBase();
  /// Removes every `kb-work-*` directory under scratchBase() that belongs
  /// to this user (the directory and its owner file) and whose owner
  /// process is gone (its lock can be taken). Returns how many were removed.
  static int removeAbandoned();

  ScratchDir(ScratchDir &&other) noexcept;
  ScratchDir &operator=(ScratchDir &&other) = delete;
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  ~ScratchDir();

  const std::filesystem::path &path() const { return path_; }

private:
  ScratchDir(std::filesystem::path path, int lockFd)
      : path_(std::move(path)), lockFd_(lockFd) {}
  std::filesystem::path path_;
  int lockFd_ = -1;
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_SCRATCH_DIR_H_

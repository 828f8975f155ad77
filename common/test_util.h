//===- common/test_util.h - Helpers for tests that run the real tools ----===//
//
// Test-only (header-only, not part of kb_common): locate nvcc/ptxas/glslc/
// spirv-val by the product's search rule (common/tool_search.h), run shell
// command lines with output captured (std::system: brief to write in a test;
// the product's runner, common/process.h, never uses a shell), temporary
// directories (common/file_util.h's TempDir) and fixtures.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_TEST_UTIL_H_
#define KB_COMMON_TEST_UTIL_H_

#include "common/file_util.h"
#include "common/tool_search.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <cerrno>
#include <cstring>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kb::testing {

inline std::string sourcePath(const std::string &relative) {
  return std::string(KB_SOURCE_DIR) + "/" + relative;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Alive = exists and is not a zombie (a killed grandchild is re-parented
/// and may linger as a zombie until its new parent reaps it).
inline bool processAlive(pid_t pid) {
  std::string text = readFile("/proc/" + std::to_string(pid) + "/stat");
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() &&
         text[close + 2] != 'Z';
}

/// |tool| found as the product finds it (common/tool_search.h).
inline std::optional<std::string> findTool(const std::string &tool) {
  StatusOr<std::filesystem::path> found = searchTool(tool);
  if (!found.ok())
    return std::nullopt;
  return found->string();
}

/// Single-quotes |arg| for /bin/sh.
inline std::string shellQuote(const std::string &arg) {
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CommandResult {
  int exitCode = -1;
  std::string output; // stdout and stderr together
};

/// Runs |command| (already quoted) with stdout+stderr captured in |logPath|.
inline CommandResult runCommand(const std::string &command,
                                const std::string &logPath) {
  CommandResult result;
  int rc =
      std::system((command + " >" + shellQuote(logPath) + " 2>&1").c_str());
  result.exitCode = (rc != -1 && WIFEXITED(rc)) ? WEXITSTATUS(rc) : -1;
  result.output = readFile(logPath);
  return result;
}

/// A fresh directory under the system's temporary directory ($TMPDIR, else
/// /tmp), removed with its contents on destruction: kb::TempDir, the one
/// temporary-directory class, made for a test (which aborts if it cannot).
inline kb::TempDir makeTempDir() {
  auto dir =
      kb::TempDir::create(std::filesystem::temp_directory_path(), "kb-test-");
  if (!dir.ok()) {
    std::fprintf(stderr, "%s\n", dir.status().message().c_str());
    std::abort();
  }
  return std::move(*dir);
}

/// Sets (or, with nullptr, unsets) an environment variable for one scope
/// and restores it afterwards. Tests only: setenv is not thread-safe.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

/// A tmpfs of a few bytes mounted on a fresh directory and unmounted (then
/// removed) on destruction: a disk that fills up, for the ENOSPC paths.
/// Mounting needs root (CAP_SYS_ADMIN); mount() says why it cannot, and
/// tests skip with that reason.
class SmallDisk {
public:
  /// Mounted on |dir|/disk, |bytes| large (tmpfs rounds up to pages).
  /// An empty |why| when mounted.
  SmallDisk(const std::filesystem::path &dir, uint64_t bytes, std::string &why)
      : path_(dir / "disk") {
    std::error_code ec;
    std::filesystem::create_directories(path_, ec);
    std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
    if (::geteuid() != 0)
      why = "mounting a small tmpfs needs root; running as uid " +
            std::to_string(::geteuid());
    else if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) != 0)
      why = std::string("mount -t tmpfs failed: ") + std::strerror(errno);
    else
      mounted_ = true;
  }
  ~SmallDisk() {
    if (mounted_)
      ::umount2(path_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk &) = delete;
  SmallDisk &operator=(const SmallDisk &) = delete;

  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
  bool mounted_ = false;
};

} // namespace kb::testing

#endif // KB_COMMON_TEST_UTIL_H_

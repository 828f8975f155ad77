//===- common/test_util.h - Helpers for tests that run the real tools ----===//
//
// Test-only (header-only, not part of kb_common): locate nvcc/ptxas/glslc/
// spirv-val the way a user's shell would, run them through /bin/sh with output
// captured, and read fixtures. The product's process runner lives in
// toolchains/; these tests sit below that layer, so they use std::system.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_TEST_UTIL_H_
#define KB_COMMON_TEST_UTIL_H_

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
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

inline bool isExecutable(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

/// Finds |tool| on PATH, then in $CUDA_PATH/bin and /usr/local/cuda/bin.
inline std::optional<std::string> findTool(const std::string &tool) {
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
  if (const char *cuda = std::getenv("CUDA_PATH"))
    dirs += std::string(":") + cuda + "/bin";
  dirs += ":/usr/local/cuda/bin";
  std::stringstream ss(dirs);
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty() && isExecutable(dir + "/" + tool))
      return dir + "/" + tool;
  return std::nullopt;
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

/// A fresh directory under $TMPDIR (or /tmp), removed on destruction.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/kb-test-XXXXXX";
    if (::mkdtemp(pattern.data()))
      path_ = pattern;
  }
  ~TempDir() {
    if (!path_.empty())
      (void)std::system(("rm -rf " + shellQuote(path_)).c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

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

} // namespace kb::testing

#endif // KB_COMMON_TEST_UTIL_H_

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

#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

} // namespace kb::testing

#endif // KB_COMMON_TEST_UTIL_H_

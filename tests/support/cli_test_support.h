//===- tests/support/cli_test_support.h - running kernel-bench in tests ---===//
//
// What the end-to-end suites (tests/cli, tests/e2e) share: run the built
// kernel-bench binary and capture what a user sees, scratch directories,
// file and build.json helpers, and the skip macros for missing tools and
// devices.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTS_SUPPORT_CLI_TEST_SUPPORT_H
#define KB_TESTS_SUPPORT_CLI_TEST_SUPPORT_H

#include "common/file_util.h"
#include "runtime/testing/device_environment.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::test {

/// `kernel-bench run` exits with this when the device is unavailable.
constexpr int kExitUnavailable = 77;

/// One kernel-bench invocation as a user sees it.
struct CliRun {
  int exitCode = -1;
  std::string output; // stdout + stderr
  double seconds = 0;
};

using EnvVars = std::vector<std::pair<std::string, std::string>>;

/// The variables a CI runner may set that change what kernel-bench does by
/// themselves: the shard of `bench` (workbench/bench/shard.h: Kubernetes,
/// Slurm, KB_SHARD_*) and the summary file `compare` writes to
/// (GITHUB_STEP_SUMMARY). A test that ran on such a runner would otherwise
/// silently bench one shard, or write into the runner's summary.
const std::vector<std::string> &ciVariables();

/// |set| on top of every ciVariables() name set to "" (which kernel-bench
/// reads as unset), one entry per name: the environment overrides for a
/// kernel-bench process that sees only what the test gives it.
EnvVars withoutCiEnv(EnvVars set = {});

/// Runs the built kernel-bench from the source directory (so messages show
/// repo-relative paths) with |args|, |env| and NO_COLOR=1, and the CI
/// variables cleared unless |env| sets them (withoutCiEnv). Failing to start
/// it, or it dying of a signal, is a test failure (exitCode stays -1 when it
/// did not start).
CliRun runKernelBench(const std::vector<std::string> &args, EnvVars env = {},
                      std::chrono::seconds timeout = std::chrono::seconds(600));

/// Headless Chromium on |page| through tests/cli/report/check_html_render.py
/// (its files under |work|, then |args|: `--dom-contains TEXT`, `--width
/// W`): exit 0 ok, 1 a check failed (the output says which), 77 no chromium
/// (the caller skips).
CliRun checkHtmlRender(const std::filesystem::path &page,
                       const std::filesystem::path &work,
                       const std::vector<std::string> &args = {});

/// kernel-bench with |args| on a pseudo-terminal (TERM=xterm, 120 columns;
/// tests/cli/terminal/pty_run.py) until its output matches |until| or
/// |timeoutS| pass; then it gets SIGINT (and SIGKILL 10 s later).
struct TerminalRun {
  bool matched = false;
  double matchedAfterS = 0;    // from the start, when matched
  std::optional<int> exitCode; // none when it was stopped
  std::string output;          // as the terminal got it, escapes kept
};
TerminalRun runKernelBenchOnTerminal(const std::vector<std::string> &args,
                                     const std::string &until,
                                     double timeoutS = 120);

/// The built kernel-bench binary (absolute), for tests that start it
/// themselves (in the background, to signal it).
std::string kernelBenchBinary();

/// The same with another kernel-bench binary (e.g. a copy without the
/// compiler library next to it).
CliRun
runKernelBenchAt(const std::filesystem::path &binary,
                 const std::vector<std::string> &args, EnvVars env = {},
                 std::chrono::seconds timeout = std::chrono::seconds(600));

/// For a command that needs a Vulkan device and exited |exitCode|: when it
/// is kExitUnavailable (77), skips the calling test if the environment lists
/// no Vulkan device (kb::testing::vulkanDeviceListed) and fails it
/// otherwise, since kernel-bench also exits 77 for "no variant for vulkan:0"
/// or a subgroup size the device cannot give. Any other code: nothing. Call
/// through SKIP_WITHOUT_VULKAN, which returns from the test after a skip.
void checkUnavailableRun(int exitCode, const std::string &output);

/// Whether the toolchain finder locates |tool| (nvcc, glslc, ...).
bool haveTool(const std::string &tool);

/// The whole of |file|, byte for byte ("" when it cannot be read).
std::string readFile(const std::filesystem::path &file);
/// A file under /proc/PID/, read with plain read(2): empty when the
/// process ended before or while it was read (the read then fails with
/// ESRCH, which an ifstream turns into an exception).
std::string readProcFile(const std::filesystem::path &file);

/// The /proc directory of every live process (zombies, already dead and
/// waiting to be reaped, are left out): for tests that prove nothing we
/// started outlives a command.
std::vector<std::filesystem::path> liveProcesses();

/// |file| parsed as JSON; a null json (and a test failure) when missing.
nlohmann::json readJsonFile(const std::filesystem::path &file);

/// Rewrites |file| with the first |from| replaced by |to|; a test failure
/// when |from| is not there.
void replaceInFile(const std::filesystem::path &file, const std::string &from,
                   const std::string &to);

/// A fixture for tests that drive kernel-bench: a scratch directory removed
/// after the test, with `out` and `cache` directories inside it.
class KernelBenchTest : public ::testing::Test {
protected:
  explicit KernelBenchTest(std::string prefix, std::chrono::seconds timeout =
                                                   std::chrono::seconds(600))
      : prefix_(std::move(prefix)), timeout_(timeout) {}

  void SetUp() override;
  void TearDown() override;

  /// Runs kernel-bench with |args| (see runKernelBench).
  CliRun run(std::vector<std::string> args, EnvVars env = {});
  /// `kernel-bench build PROJECT -o OUT --cache-dir CACHE EXTRA...`.
  CliRun buildProject(const std::filesystem::path &project,
                      std::vector<std::string> extra = {}, EnvVars env = {});
  /// OUT/build.json.
  nlohmann::json buildJson();

  std::optional<kb::TempDir> tmpDir_; // removed with everything in it
  std::filesystem::path tmp_, out_, cache_;

private:
  std::string prefix_;
  std::chrono::seconds timeout_;
};

} // namespace kb::test

#define REQUIRE_TOOL(tool)                                                     \
  do {                                                                         \
    if (!::kb::test::haveTool(tool))                                           \
      GTEST_SKIP() << tool << " is not installed; this test needs it";         \
  } while (false)

/// After a kernel-bench run that needs a Vulkan device: exit 77 skips the
/// test only when the environment lists no Vulkan device
/// (checkUnavailableRun); with a device listed, 77 is a failure.
#define SKIP_WITHOUT_VULKAN(r)                                                 \
  do {                                                                         \
    ::kb::test::checkUnavailableRun((r).exitCode, (r).output);                 \
    if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure())    \
      return;                                                                  \
  } while (false)

#endif // KB_TESTS_SUPPORT_CLI_TEST_SUPPORT_H

//===- common/process_test.cpp --------------------------------------------===//

#include "common/process.h"
#include "common/test_util.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace kb {
namespace {

ProcessResult
run(std::vector<std::string> argv,
    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  ProcessOptions options;
  options.argv = std::move(argv);
  options.timeout = timeout;
  options.killGrace = std::chrono::milliseconds(300);
  auto result = runProcess(options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? *result : ProcessResult();
}

/// Alive = exists and is not a zombie (a killed grandchild is re-parented
/// and may linger as a zombie until its new parent reaps it).
bool processAlive(pid_t pid) {
  if (::kill(pid, 0) != 0)
    return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() &&
         text[close + 2] != 'Z';
}

TEST(ProcessTest, ExitCodesAndOutput) {
  ProcessResult ok = run({"/bin/sh", "-c", "echo out; echo err >&2"});
  EXPECT_TRUE(ok.succeeded());
  EXPECT_EQ(ok.exitCode, 0);
  EXPECT_EQ(ok.stdoutText, "out\n");
  EXPECT_EQ(ok.stderrText, "err\n");

  ProcessResult failed = run({"/bin/sh", "-c", "exit 3"});
  EXPECT_FALSE(failed.succeeded());
  EXPECT_EQ(failed.exitCode, 3);
  EXPECT_EQ(failed.signal, 0);
  EXPECT_EQ(failed.describe(), "exit code 3");
}

TEST(ProcessTest, ArgumentsAreNotInterpretedByAShell) {
  ProcessResult result = run({"/bin/echo", "a b", "$HOME", "*", ";", "'q'"});
  EXPECT_EQ(result.stdoutText, "a b $HOME * ; 'q'\n");
}

// Both pipes well beyond the 64 KiB pipe buffer, interleaved: a runner that
// reads one pipe to EOF before the other deadlocks here.
TEST(ProcessTest, LargeOutputOnBothPipes) {
  ProcessResult result = run(
      {"/bin/sh", "-c",
       "i=0; while [ $i -lt 3000 ]; do "
       "echo 0123456789012345678901234567890123456789012345678901234567890123;"
       "echo abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl "
       ">&2;"
       "i=$((i+1)); done"});
  EXPECT_TRUE(result.succeeded()) << result.describe();
  EXPECT_EQ(result.stdoutText.size(), 3000u * 65);
  EXPECT_EQ(result.stderrText.size(), 3000u * 65);
  EXPECT_FALSE(result.timedOut);
}

TEST(ProcessTest, SignalIsReportedDistinctlyFromExitCode) {
  ProcessResult result = run({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.exitCode, -1);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_FALSE(result.timedOut);
  EXPECT_NE(result.describe().find("signal 11"), std::string::npos)
      << result.describe();
}

// The nvcc case: the tool starts a child (cicc) and hangs. The timeout must
// kill the child too, not only the process we started.
TEST(ProcessTest, TimeoutKillsTheWholeProcessGroup) {
  kb::TempDir scratch = kb::testing::makeTempDir();
  auto pidFile = scratch.path() / "sleep.pid";
  auto start = std::chrono::steady_clock::now();
  // Both ignore SIGTERM (inherited SIG_IGN), so only the SIGKILL after the
  // grace period ends them.
  ProcessResult result = run(
      {"/bin/sh", "-c",
       "trap '' TERM; sleep 300 & echo $! > " + pidFile.string() + "; wait"},
      std::chrono::milliseconds(500));
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_TRUE(result.timedOut);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.signal, SIGKILL) << result.describe(); // it ignored TERM
  EXPECT_LT(elapsed, 10.0);
  std::ifstream in(pidFile);
  pid_t child = 0;
  in >> child;
  ASSERT_GT(child, 0) << "the script did not record its child's pid";
  // Re-parented zombies are reaped asynchronously; allow a moment.
  for (int i = 0; i < 100 && processAlive(child); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(processAlive(child)) << "grandchild " << child << " survived";
  std::filesystem::remove(pidFile);
}

// A tool that exits but leaves a background child holding the pipes must not
// make us wait for that child.
TEST(ProcessTest, LeftoverChildDoesNotBlockCompletion) {
  auto start = std::chrono::steady_clock::now();
  ProcessResult result = run({"/bin/sh", "-c", "sleep 300 & echo done"});
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_TRUE(result.succeeded()) << result.describe();
  EXPECT_EQ(result.stdoutText, "done\n");
  // Waiting for the child would take its 300 s; the bound is wide for load.
  EXPECT_LT(elapsed, 60.0);
}

TEST(ProcessTest, AMemoryLimitHoldsForTheToolAndWhatItStarts) {
  // A child of the tool allocates 1 GiB: under a 256 MiB limit it cannot,
  // without one it can. The arguments still reach it untouched.
  ProcessOptions options;
  const std::string allocate =
      "python3 -c 'import sys; bytearray(1 << 30); print(sys.argv[1])' "
      "\"$0\"";
  options.argv = {"/bin/sh", "-c", allocate, "a b $HOME *"};
  options.memoryLimitBytes = 256u << 20;
  StatusOr<ProcessResult> limited = runProcess(options);
  ASSERT_TRUE(limited.ok()) << limited.status().message();
  EXPECT_FALSE(limited->succeeded());
  EXPECT_NE(limited->stderrText.find("MemoryError"), std::string::npos)
      << limited->stderrText;
  options.memoryLimitBytes = 0;
  StatusOr<ProcessResult> free = runProcess(options);
  ASSERT_TRUE(free.ok());
  EXPECT_TRUE(free->succeeded()) << free->stderrText;
  EXPECT_EQ(free->stdoutText, "a b $HOME *\n");
  options.memoryLimitBytes = 256u << 20;
  options.argv = {"/bin/sh", "-c", "echo \"$0\"", "a b $HOME *"};
  EXPECT_EQ(runProcess(options)->stdoutText, "a b $HOME *\n");
  // A missing program is still Unavailable, by path or by name.
  for (const char *missing : {"/nonexistent/kb-no-such-tool", "kb-no-such"}) {
    options.argv = {missing};
    StatusOr<ProcessResult> result = runProcess(options);
    ASSERT_FALSE(result.ok()) << missing;
    EXPECT_EQ(result.status().code(), StatusCode::Unavailable) << missing;
  }
}

TEST(ProcessTest, MissingExecutableIsUnavailable) {
  ProcessOptions options;
  options.argv = {"/nonexistent/kb-no-such-tool", "--version"};
  auto result = runProcess(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::Unavailable);
  EXPECT_NE(result.status().message().find("/nonexistent/kb-no-such-tool"),
            std::string::npos);

  options.argv.clear();
  EXPECT_EQ(runProcess(options).status().code(), StatusCode::InvalidArgument);

  // A missing working directory is not a missing tool.
  options.argv = {"/bin/true"};
  options.workingDirectory = "/nonexistent/kb-dir";
  auto badDir = runProcess(options);
  EXPECT_EQ(badDir.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(badDir.status().message().find("/nonexistent/kb-dir"),
            std::string::npos);
}

TEST(ProcessTest, PrivateTmpDirWorkingDirectoryAndEnvironment) {
  ProcessOptions options;
  options.argv = {"/bin/sh", "-c",
                  "echo \"$TMPDIR\"; pwd; echo \"$KB_TEST_VAR\"; "
                  "touch \"$TMPDIR/leftover\""};
  options.workingDirectory = "/";
  options.env = {{"KB_TEST_VAR", "hello world"}};
  auto result = runProcess(options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  std::istringstream lines(result->stdoutText);
  std::string tmp, cwd, var;
  std::getline(lines, tmp);
  std::getline(lines, cwd);
  std::getline(lines, var);
  EXPECT_NE(tmp.find("kb-job-"), std::string::npos) << tmp;
  EXPECT_EQ(cwd, "/");
  EXPECT_EQ(var, "hello world");
  // Removed with whatever the tool left in it.
  EXPECT_FALSE(std::filesystem::exists(tmp)) << tmp;

  options.argv = {"/bin/sh", "-c", "echo \"$TMPDIR\""};
  auto second = runProcess(options);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->stdoutText, result->stdoutText.substr(0, tmp.size() + 1))
      << "every run gets its own TMPDIR";
}

// What the driver's Ctrl-C handler does: every running child's group gets
// the signal, and the interrupted run reports it.
TEST(ProcessTest, SignalAllProcessGroupsInterruptsRunningChildren) {
  ProcessResult result;
  std::thread runner([&] {
    result =
        run({"/bin/sh", "-c", "sleep 300 & wait"}, std::chrono::seconds(60));
  });
  auto start = std::chrono::steady_clock::now();
  // Keep signalling until the run returns: the child may not have been
  // spawned yet when we first try.
  std::atomic<bool> done{false};
  std::thread signaller([&] {
    while (!done) {
      signalAllProcessGroups(SIGTERM);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  runner.join();
  done = true;
  signaller.join();
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(elapsed, 10.0);
  EXPECT_FALSE(result.timedOut);
  EXPECT_EQ(result.signal, SIGTERM) << result.describe();
}

TEST(ProcessTest, FormatCommandLineQuotes) {
  EXPECT_EQ(formatCommandLine({"nvcc", "-DX=1", "a b.cu", "it's"}),
            "nvcc -DX=1 'a b.cu' 'it'\\''s'");
}

} // namespace
} // namespace kb

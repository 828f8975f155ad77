//===- workbench/build/build_interrupt_test.cpp - Ctrl-C on `kernel-bench -===//
//
// Tools lead their own process groups, so the terminal's SIGINT reaches only
// kernel-bench; it must forward it (kb::signalAllProcessGroups),
// publish nothing half-done, record the interruption in build.json and exit
// 128 + signal.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "toolchains/toolchains.h"
#include "workbench/support/output_manifest.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

/// True while |pid| exists and is not a zombie.
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0)
    return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string id, comm, state;
  stat >> id >> comm >> state;
  return state != "Z";
}

class BuildInterruptTest : public ::testing::TestWithParam<int> {};

TEST_P(BuildInterruptTest, SignalStopsTheToolsAndIsRecorded) {
  // The fixture's nvcc override hangs; ptxas and the host compiler must be
  // found for the build to start its job at all.
  kb::toolchains::Toolchains tools;
  for (const char *tool : {"ptxas", "host-cxx"})
    if (!tools.find(tool).ok())
      GTEST_SKIP() << tool << " is not installed; this test needs it";

  auto dir =
      kb::TempDir::create(fs::temp_directory_path(), "kb_interrupt_test_");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  fs::path tmp = dir->path();
  fs::path out = tmp / "out", pidFile = tmp / "hang.pid";
  // An earlier successful build's output of the interrupted job must not
  // survive as if it were this build's. (It is recorded as that build's in
  // the output manifest: a build deletes only files a build wrote.)
  fs::create_directories(out / "kernels" / "scale");
  std::ofstream(out / "kernels" / "scale" / "sm_90.ptx") << "stale";
  {
    kb::workbench::OutputManifest earlier(out);
    earlier.wrote(out / "kernels" / "scale" / "sm_90.ptx");
    ASSERT_TRUE(earlier.save().ok());
  }

  std::string pidEnv = "KB_TEST_HANG_PIDFILE=" + pidFile.string();
  std::vector<std::string> args = {KB_BINARY_DIR "/workbench/kernel-bench",
                                   "build",
                                   KB_SOURCE_DIR
                                   "/tests/cli/fixtures/hanging_tool",
                                   "-o",
                                   out.string(),
                                   "--cache-dir",
                                   (tmp / "cache").string(),
                                   "--timeout",
                                   "600"};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char *> envp;
  for (char **e = environ; *e; ++e)
    envp.push_back(*e);
  envp.push_back(pidEnv.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(
      ::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()),
      0);

  // Wait until the hanging tool runs (its child wrote the pid file).
  pid_t toolChild = 0;
  auto giveUp = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < giveUp) {
    std::ifstream in(pidFile);
    if (in >> toolChild && toolChild > 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(toolChild, 0) << "the hanging tool never started";
  ASSERT_TRUE(alive(toolChild));

  const int signal = GetParam();
  auto sent = Clock::now();
  ASSERT_EQ(::kill(pid, signal), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
  ASSERT_TRUE(WIFEXITED(status)) << "kernel-bench died of the signal instead "
                                    "of handling it";
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
  EXPECT_LT(seconds, 10) << "the signal did not stop the build promptly";

  // The tool's own child is gone with its process group.
  auto reaped = Clock::now() + std::chrono::seconds(5);
  while (alive(toolChild) && Clock::now() < reaped)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive(toolChild)) << "pid " << toolChild << " survived";

  // Nothing published, no staging directory left, the stale output removed.
  std::vector<std::string> left;
  std::error_code ec;
  for (auto &e : fs::recursive_directory_iterator(out / "kernels", ec))
    left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << left.front();

  std::ifstream in(out / "build.json");
  ASSERT_TRUE(in.good()) << "no build.json";
  json report = json::parse(in);
  EXPECT_NE(report["error"].get<std::string>().find("interrupted by"),
            std::string::npos)
      << report["error"];
  ASSERT_EQ(report["jobs"].size(), 1u);
  EXPECT_EQ(report["jobs"][0]["status"], "failed");
  EXPECT_EQ(report["jobs"][0]["error"]["code"], "aborted");
  EXPECT_TRUE(report["jobs"][0]["outputs"].empty());
  fs::remove_all(tmp, ec);
}

INSTANTIATE_TEST_SUITE_P(Signals, BuildInterruptTest,
                         ::testing::Values(SIGINT, SIGTERM),
                         [](const auto &info) {
                           return info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

} // namespace

//===- toolchains/tool_reaper_test.cpp ------------------------------------===//
//
// A SIGKILL of the build must not leave its tools running. A
// forked "build" starts the reaper and a tool with a child of its own (as
// nvcc runs sh and cicc); the test SIGKILLs the build and expects both tool
// processes gone.
//
//===----------------------------------------------------------------------===//

#include "common/test_util.h"
#include "common/file_util.h"
#include "common/process.h"
#include "toolchains/tool_reaper.h"

#include <fstream>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

bool alive(pid_t pid) { return kb::testing::processAlive(pid); }

bool waitUntilDead(pid_t pid) {
  for (int i = 0; i < 500 && alive(pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !alive(pid);
}

/// Forks a build that starts the reaper (unless |withReaper| is false) and a
/// tool `sh` with a background child; returns (build pid, sh pid, child
/// pid) once the tool is running.
struct Build {
  pid_t build = 0, tool = 0, child = 0;
};

Build startBuild(const fs::path &dir, bool withReaper) {
  fs::path pids = dir / (withReaper ? "pids" : "pids-unreaped");
  Build b;
  b.build = ::fork();
  if (b.build == 0) {
    // The tool's private TMPDIR goes under the test's folder: the SIGKILL
    // below gives the build no chance to remove it.
    ::setenv("TMPDIR", dir.c_str(), 1);
    std::unique_ptr<ToolReaper> reaper;
    if (withReaper) {
      auto started = ToolReaper::start();
      if (!started.ok())
        ::_exit(3);
      reaper = std::move(*started);
    }
    ProcessOptions options;
    options.argv = {"/bin/sh", "-c",
                    "sleep 300 & echo $$ $! > '" + pids.string() +
                        ".tmp'; mv '" + pids.string() + ".tmp' '" +
                        pids.string() + "'; wait"};
    (void)runProcess(options);
    ::_exit(0);
  }
  for (int i = 0; i < 500 && !fs::exists(pids); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::ifstream in(pids);
  in >> b.tool >> b.child;
  return b;
}

TEST(ToolReaperTest, SigkillOfTheBuildKillsItsToolsAndTheirChildren) {
  auto dir = TempDir::create(fs::temp_directory_path(), "kb-reaper-test-");
  ASSERT_TRUE(dir.ok());
  Build b = startBuild(dir->path(), /*withReaper=*/true);
  ASSERT_GT(b.tool, 0);
  ASSERT_GT(b.child, 0);
  ASSERT_TRUE(alive(b.tool));
  ::kill(b.build, SIGKILL);
  int status;
  ::waitpid(b.build, &status, 0);
  EXPECT_TRUE(waitUntilDead(b.tool)) << "the tool " << b.tool << " survived";
  EXPECT_TRUE(waitUntilDead(b.child))
      << "the tool's child " << b.child << " survived";
}

// The control: without the reaper the same tool outlives the build (so the
// test above can fail). The orphans are ours and are killed here.
TEST(ToolReaperTest, WithoutTheReaperToolsOutliveTheBuild) {
  auto dir = TempDir::create(fs::temp_directory_path(), "kb-reaper-test-");
  ASSERT_TRUE(dir.ok());
  Build b = startBuild(dir->path(), /*withReaper=*/false);
  ASSERT_GT(b.tool, 0);
  ::kill(b.build, SIGKILL);
  int status;
  ::waitpid(b.build, &status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(alive(b.child));
  ::kill(-b.tool, SIGKILL);
  EXPECT_TRUE(waitUntilDead(b.child));
}

TEST(ToolReaperTest, NormalEndStopsTheReaperWithoutKilling) {
  auto started = ToolReaper::start();
  ASSERT_TRUE(started.ok()) << started.status().message();
  // Forked before the first tool, not before: a no-op build starts nothing.
  EXPECT_EQ((*started)->pid(), 0);
  ProcessOptions options;
  options.argv = {"/bin/true"};
  ASSERT_TRUE(runProcess(options).ok());
  pid_t reaper = (*started)->pid();
  ASSERT_GT(reaper, 0);
  EXPECT_TRUE(alive(reaper));
  // A second build in this process shares it; the reaper outlives the
  // first to end and stops with the last.
  auto second = ToolReaper::start();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ((*second)->pid(), reaper);
  EXPECT_EQ((*second)->marker(), (*started)->marker());
  started->reset();
  EXPECT_TRUE(alive(reaper));
  ASSERT_TRUE(runProcess(options).ok());
  second->reset();
  EXPECT_FALSE(alive(reaper));
  EXPECT_NE(std::getenv(ToolReaper::kMarkerVariable), nullptr);
}

} // namespace
} // namespace kb::toolchains

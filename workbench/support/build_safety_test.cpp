//===- workbench/support/build_safety_test.cpp ----------------------------===//
//
// The pieces that keep builds from hurting each other and the user's files
//: the output directory's lock, the manifest of
// what a build wrote, and the one range check for durations.
//
//===----------------------------------------------------------------------===//

#include "common/file_util.h"
#include "workbench/support/duration_check.h"
#include "workbench/support/output_lock.h"
#include "workbench/support/output_manifest.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

class BuildSafetyTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir =
        kb::TempDir::create(fs::temp_directory_path(), "kb-build-safety-");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
  }
  fs::path out() const { return dir_->path(); }
  void write(const fs::path &file, const std::string &text) {
    ASSERT_TRUE(kb::writeFileAtomic(file, text).ok());
  }
  std::optional<kb::TempDir> dir_;
};

TEST_F(BuildSafetyTest, ManifestOwnsOnlyWhatABuildWroteUnchanged) {
  write(out() / "kernels/k/sm_90.ptx", "ptx");
  write(out() / "kernels/k/vulkan1.2.spv", "spv");
  write(out() / "bench/mine.kbm", "user's");
  {
    OutputManifest first(out());
    first.wrote(out() / "kernels/k/sm_90.ptx");
    first.wrote(out() / "kernels/k/vulkan1.2.spv");
    ASSERT_TRUE(first.save().ok());
  }
  write(out() / "kernels/k/vulkan1.2.spv", "replaced by the user");
  OutputManifest next(out());
  EXPECT_FALSE(next.removeOwned(out() / "bench/mine.kbm"));
  EXPECT_FALSE(next.removeOwned(out() / "kernels/k/vulkan1.2.spv"));
  EXPECT_TRUE(next.removeOwned(out() / "kernels/k/sm_90.ptx"));
  EXPECT_TRUE(fs::exists(out() / "bench/mine.kbm"));
  EXPECT_TRUE(fs::exists(out() / "kernels/k/vulkan1.2.spv"));
  EXPECT_FALSE(fs::exists(out() / "kernels/k/sm_90.ptx"));
  // Outside the output directory nothing is ever owned.
  fs::path outside = out().string() + "-outside";
  write(outside, "x");
  EXPECT_FALSE(next.removeOwned(outside));
  EXPECT_TRUE(fs::exists(outside));
  fs::remove(outside);
}

TEST_F(BuildSafetyTest, CorruptedManifestOwnsNothing) {
  write(out() / "a.ptx", "ptx");
  OutputManifest first(out());
  first.wrote(out() / "a.ptx");
  ASSERT_TRUE(first.save().ok());
  fs::path file = out() / OutputManifest::kFileName;
  std::string text = *kb::readFile(file);
  text[text.size() / 2] ^= 1;
  write(file, text);
  OutputManifest next(out());
  EXPECT_FALSE(next.removeOwned(out() / "a.ptx"));
  EXPECT_TRUE(fs::exists(out() / "a.ptx"));
}

TEST_F(BuildSafetyTest, OwnedTreeKeepsTheUsersFilesAndTheirDirectories) {
  write(out() / "standalone/k/program.kbm", "ours");
  write(out() / "standalone/k/notes/todo.txt", "user's");
  OutputManifest first(out());
  first.wrote(out() / "standalone/k/program.kbm");
  first.removeOwnedTree(out() / "standalone");
  EXPECT_FALSE(fs::exists(out() / "standalone/k/program.kbm"));
  EXPECT_TRUE(fs::exists(out() / "standalone/k/notes/todo.txt"));
}

TEST_F(BuildSafetyTest, SecondLockFailsWithNoWaitNamingTheHolder) {
  auto held = OutputLock::acquire(out(), /*wait=*/false, {});
  ASSERT_TRUE(held.ok()) << held.status().message();
  // flock locks belong to open file descriptions: a child process is the
  // second build.
  pid_t child = ::fork();
  if (child == 0) {
    auto second = OutputLock::acquire(out(), /*wait=*/false, {});
    bool ok = !second.ok() && second.status().isUnavailable() &&
              second.status().message().find(
                  "pid " + std::to_string(::getppid())) != std::string::npos;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // The holder is found in /proc/locks, not in the file: locking writes
  // nothing, so a no-op build leaves the lock file's mtime as it was.
  EXPECT_EQ(fs::file_size(out() / OutputLock::kFileName), 0u);
}

TEST(DurationCheckTest, AcceptsOnlyFiniteSecondsInRange) {
  for (const char *ok : {"1", "0.5", "120", "86400", "1e3"})
    EXPECT_EQ(checkSecondsText(ok), "") << ok;
  for (const char *bad : {"inf", "-inf", "nan", "NaN", "-1", "0", "1e300",
                          "86401", "", "x", "5s", "0x10p0 "}) {
    std::string problem = checkSecondsText(bad);
    EXPECT_NE(problem, "") << bad;
    EXPECT_NE(problem.find("86400"), std::string::npos) << problem;
    EXPECT_LT(problem.size(), 200u) << problem;
  }
}

} // namespace
} // namespace kb::workbench

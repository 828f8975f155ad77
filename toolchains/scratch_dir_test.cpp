//===- toolchains/scratch_dir_test.cpp - Abandoned working directories ----===//
//
// removeAbandoned() cleans up after a build killed with SIGKILL, and only
// that: a directory in use (locked) stays, and so does one that belongs to
// another user, whatever its lock says (a shared /tmp holds everyone's).
//
//===----------------------------------------------------------------------===//
#include "toolchains/scratch_dir.h"

#include "common/test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

/// `kb-work-NAME` under |base| as a killed build leaves it: an owner file
/// nobody holds locked.
fs::path abandoned(const fs::path &base, const std::string &name) {
  fs::path dir = base / ("kb-work-" + name);
  fs::create_directories(dir);
  std::ofstream(dir / ".owner") << "";
  std::ofstream(dir / "tool-output") << "x";
  return dir;
}

TEST(ScratchDirTest, RemovesOnlyOurOwnAbandonedDirectories) {
  kb::TempDir base = kb::testing::makeTempDir();
  kb::testing::ScopedEnv tmpdir("TMPDIR", base.path().c_str());
  fs::path ours = abandoned(base.path(), "ours00");
  fs::path theirs = abandoned(base.path(), "their0");
  // Another user's: possible to make only as root; as anyone else, a
  // directory we cannot chown is ours and the case is skipped below.
  bool other = ::geteuid() == 0 && ::chown(theirs.c_str(), 65534, 65534) == 0 &&
               ::chown((theirs / ".owner").c_str(), 65534, 65534) == 0;
  auto inUse = ScratchDir::create();
  ASSERT_TRUE(inUse.ok()) << inUse.status().message();

  int removed = ScratchDir::removeAbandoned();
  EXPECT_FALSE(fs::exists(ours));
  EXPECT_TRUE(fs::exists(inUse->path())) << "a locked directory is in use";
  if (!other)
    GTEST_SKIP() << "not root: cannot make another user's directory";
  EXPECT_EQ(removed, 1);
  EXPECT_TRUE(fs::exists(theirs / "tool-output"))
      << "another user's directory was removed";
}

} // namespace
} // namespace kb::toolchains

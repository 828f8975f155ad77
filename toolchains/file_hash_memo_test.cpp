//===- toolchains/file_hash_memo_test.cpp ---------------------------------===//

#include "toolchains/file_hash_memo.h"

#include "common/sha256.h"
#include "common/file_util.h"

#include <cstdio>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;
using std::chrono::nanoseconds;

class FileHashMemoTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb-memo-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    memoFile_ = dir_->path() / "memo";
    a_ = (dir_->path() / "a.h").string();
    b_ = (dir_->path() / "b with space.h").string();
    write(a_, "#define A 1\n");
    write(b_, "#define B 2\n");
  }
  void write(const std::string &path, const std::string &text) {
    ASSERT_TRUE(writeFileAtomic(path, text).ok());
  }
  /// A memo that remembers every file at once (no settle time).
  FileHashMemo memo() { return FileHashMemo(memoFile_, nanoseconds(0)); }

  std::optional<TempDir> dir_;
  fs::path memoFile_;
  std::string a_, b_;
};

TEST_F(FileHashMemoTest, NextProcessOnlyStatsUnchangedFiles) {
  {
    FileHashMemo first = memo();
    EXPECT_EQ(first.hash(a_), sha256Hex("#define A 1\n"));
    EXPECT_EQ(first.hash(a_), sha256Hex("#define A 1\n"));
    EXPECT_EQ(first.filesHashed(), 1u);
    ASSERT_TRUE(first.save().ok());
  }
  FileHashMemo second = memo();
  EXPECT_EQ(second.hash(a_), sha256Hex("#define A 1\n"));
  EXPECT_EQ(second.filesHashed(), 0u);
}

TEST_F(FileHashMemoTest, ChangedFileIsHashedAgain) {
  {
    FileHashMemo first = memo();
    first.hash(a_);
    ASSERT_TRUE(first.save().ok());
  }
  // Same size, new contents: a new inode (atomic write) and ctime.
  write(a_, "#define A 2\n");
  FileHashMemo second = memo();
  EXPECT_EQ(second.hash(a_), sha256Hex("#define A 2\n"));
  EXPECT_EQ(second.filesHashed(), 1u);
  // In place, same size, mtime put back: ctime still tells.
  std::optional<FileStamp> before = stampFile(a_);
  ASSERT_TRUE(before);
  ASSERT_TRUE(second.save().ok());
  {
    std::FILE *f = std::fopen(a_.c_str(), "r+");
    ASSERT_NE(f, nullptr);
    std::fputs("#define A 3\n", f);
    std::fclose(f);
    timespec times[2] = {
        {0, UTIME_OMIT},
        {before->mtimeNs / 1000000000, before->mtimeNs % 1000000000}};
    ASSERT_EQ(::utimensat(AT_FDCWD, a_.c_str(), times, 0), 0);
  }
  FileHashMemo third = memo();
  EXPECT_EQ(third.hash(a_), sha256Hex("#define A 3\n"));
  EXPECT_EQ(third.filesHashed(), 1u);
  EXPECT_EQ(third.hash((dir_->path() / "missing.h").string()), std::nullopt);
}

TEST_F(FileHashMemoTest, RecentlyModifiedFilesAreNotRemembered) {
  {
    // Modified within the last hour: could change again within one
    // timestamp tick, so only this process trusts its hash.
    FileHashMemo first(memoFile_, std::chrono::hours(1));
    first.hash(a_);
    first.hash(a_);
    EXPECT_EQ(first.filesHashed(), 1u);
    ASSERT_TRUE(first.save().ok());
  }
  FileHashMemo second = memo();
  second.hash(a_);
  EXPECT_EQ(second.filesHashed(), 1u);
}

TEST_F(FileHashMemoTest, CorruptedOrTruncatedFileIsAnEmptyMemo) {
  {
    FileHashMemo first = memo();
    first.hash(a_);
    first.hash(b_);
    ASSERT_TRUE(first.save().ok());
  }
  StatusOr<std::string> text = readFile(memoFile_);
  ASSERT_TRUE(text.ok());
  std::string flipped = *text;
  flipped[flipped.find(sha256Hex("#define A 1\n"))] ^= 1;
  for (const std::string &bad :
       {flipped, text->substr(0, text->size() / 2), std::string("garbage")}) {
    write(memoFile_.string(), bad);
    FileHashMemo memoAfter = memo();
    EXPECT_EQ(memoAfter.hash(a_), sha256Hex("#define A 1\n"));
    EXPECT_EQ(memoAfter.hash(b_), sha256Hex("#define B 2\n"));
    EXPECT_EQ(memoAfter.filesHashed(), 2u);
    ASSERT_TRUE(memoAfter.save().ok()); // and repaired
  }
  FileHashMemo repaired = memo();
  repaired.hash(a_);
  EXPECT_EQ(repaired.filesHashed(), 0u);
}

TEST_F(FileHashMemoTest, ConcurrentBuildsMergeTheirEntries) {
  FileHashMemo one = memo();
  FileHashMemo two = memo();
  one.hash(a_);
  two.hash(b_);
  ASSERT_TRUE(one.save().ok());
  ASSERT_TRUE(two.save().ok());
  FileHashMemo three = memo();
  EXPECT_EQ(three.hash(a_), sha256Hex("#define A 1\n"));
  EXPECT_EQ(three.hash(b_), sha256Hex("#define B 2\n"));
  EXPECT_EQ(three.filesHashed(), 0u);
}

} // namespace
} // namespace kb::toolchains

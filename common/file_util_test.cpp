//===- common/file_util_test.cpp - The one input reader -------------------===//
//
// Every test runs under alarm(): a reader that opens a FIFO blocks forever,
// and SIGALRM then ends the test binary as a failure instead of a hang.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"

#include "common/sha256.h"
#include "common/test_util.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {
namespace {

namespace fs = std::filesystem;

class InputFileTest : public ::testing::Test {
protected:
  void SetUp() override { ::alarm(20); }
  void TearDown() override { ::alarm(0); }
  TempDir dir_ = kb::testing::makeTempDir();
};

TEST_F(InputFileTest, ReadsARegularFile) {
  std::ofstream(dir_.file("a.json")) << "{}\n";
  StatusOr<std::string> text = readFile(dir_.file("a.json"), kBenchReportInput);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "{}\n");
}

TEST_F(InputFileTest, RefusesANamedFifoWithoutOpeningIt) {
  std::string fifo = dir_.file("f.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  StatusOr<std::string> text = readFile(fifo, kBenchReportInput);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(text.status().message().find("named pipe (FIFO)"),
            std::string::npos)
      << text.status().message();
  EXPECT_NE(text.status().message().find(fifo), std::string::npos);
  EXPECT_FALSE(checkInputFile(fifo, kBuildRecordInput).ok());
  EXPECT_FALSE(sha256File(fifo).ok());
}

TEST_F(InputFileTest, RefusesADeviceFile) {
  StatusOr<std::string> text = readFile("/dev/zero", kBenchReportInput);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("`/dev/zero` is a device file"),
            std::string::npos)
      << text.status().message();
  EXPECT_FALSE(sha256File("/dev/zero").ok());
}

TEST_F(InputFileTest, NamesADirectoryAsOne) {
  StatusOr<std::string> text = readFile(dir_.path(), kConfigInput);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find(
                "is a directory; expected a configuration file"),
            std::string::npos)
      << text.status().message();
}

TEST_F(InputFileTest, RefusesARegularFileOverTheCapBeforeReading) {
  std::ofstream(dir_.file("big")) << std::string(100, 'x');
  StatusOr<std::string> text = readFile(dir_.file("big"), {"test input", 10});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(text.status().message().find(
                "is 100 bytes, more than the 10 bytes a test input may have"),
            std::string::npos)
      << text.status().message();
  EXPECT_TRUE(readFile(dir_.file("big"), {"test input", 100}).ok());
}

TEST_F(InputFileTest, MissingFileIsNotFound) {
  StatusOr<std::string> text = readFile(dir_.file("none.json"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::NotFound);
}

/// A pipe with |bytes| written and its write end closed; returns the read end.
int pipeHolding(const std::string &bytes) {
  int fds[2];
  if (::pipe(fds) != 0)
    return -1;
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), ssize_t(bytes.size()));
  ::close(fds[1]);
  return fds[0];
}

TEST_F(InputFileTest, ReadsAPipeTheProcessHolds) {
  int fd = pipeHolding("from a pipe");
  ASSERT_GE(fd, 0);
  for (std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    std::string path = prefix + std::to_string(fd);
    EXPECT_TRUE(checkInputFile(path, kBenchReportInput).ok());
    StatusOr<std::string> text = readFile(path, kBenchReportInput);
    ASSERT_TRUE(text.ok()) << text.status().message();
    // The first read drains the pipe; the second finds it empty.
    EXPECT_EQ(*text, prefix == "/dev/fd/" ? "from a pipe" : "");
  }
  ::close(fd);
}

TEST_F(InputFileTest, CapsAPipeWhileReading) {
  int fd = pipeHolding(std::string(100, 'x'));
  ASSERT_GE(fd, 0);
  StatusOr<std::string> text =
      readFile("/dev/fd/" + std::to_string(fd), {"test input", 10});
  ::close(fd);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(text.status().message().find("more than the 10 bytes"),
            std::string::npos)
      << text.status().message();
}

TEST_F(InputFileTest, DashReadsStdin) {
  int fd = pipeHolding("on stdin");
  ASSERT_GE(fd, 0);
  int saved = ::dup(0);
  ASSERT_EQ(::dup2(fd, 0), 0);
  StatusOr<std::string> text = readFile("-", kBenchReportInput);
  ::dup2(saved, 0);
  ::close(saved);
  ::close(fd);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "on stdin");
}

TEST_F(InputFileTest, AtomicWriteWithoutReplaceLeavesAnExistingFile) {
  std::string path = dir_.file("kernel.toml");
  std::ofstream(path) << "mine\n";
  Status written = writeFileAtomic(path, "theirs\n", /*replace=*/false);
  EXPECT_EQ(written.code(), StatusCode::AlreadyExists) << written.message();
  StatusOr<std::string> text = readFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "mine\n");
  for (const fs::directory_entry &entry : fs::directory_iterator(dir_.path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
        << entry.path();
  ASSERT_TRUE(writeFileAtomic(dir_.file("new.toml"), "x", false).ok());
  EXPECT_EQ(*readFile(dir_.file("new.toml")), "x");
}

} // namespace
} // namespace kb

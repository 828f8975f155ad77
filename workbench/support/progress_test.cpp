//===- workbench/support/progress_test.cpp - Ninja-style progress ---------===//
#include "workbench/support/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kb::workbench {
namespace {

/// Captures what a Progress writes.
class Capture {
public:
  Capture() : file_(std::tmpfile()) {}
  ~Capture() { std::fclose(file_); }
  std::FILE *file() { return file_; }
  std::string text() {
    std::fflush(file_);
    std::rewind(file_);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0)
      out.append(buf, n);
    return out;
  }

private:
  std::FILE *file_;
};

TEST(ProgressTest, PlainLinesWhenNotATerminal) {
  Capture capture;
  {
    Progress progress(capture.file(), ProgressOptions{}, 2);
    progress.jobStarted();
    progress.step("nvcc sm_90 kernels/saxpy/saxpy.cu");
    progress.jobStarted();
    progress.step("glslc vulkan1.2 kernels/saxpy/saxpy.comp");
    // A later step of the first job still shows the monotonic counter.
    progress.step("ptxas sm_90 saxpy");
    progress.jobFinished("");
    progress.jobFinished("FAILED: saxpy vulkan:1.2\nsome output");
    progress.printLine("summary");
  }
  EXPECT_EQ(capture.text(), "[1/2] nvcc sm_90 kernels/saxpy/saxpy.cu\n"
                            "[2/2] glslc vulkan1.2 kernels/saxpy/saxpy.comp\n"
                            "[2/2] ptxas sm_90 saxpy\n"
                            "FAILED: saxpy vulkan:1.2\nsome output\n"
                            "summary\n");
}

TEST(ProgressTest, SmartTerminalRewritesOneElidedLine) {
  Capture capture;
  ProgressOptions options;
  options.smartTerminal = true;
  options.width = 21;
  {
    Progress progress(capture.file(), options, 9);
    progress.jobStarted();
    progress.step("nvcc sm_90 kernels/matmul/tiled.cu");
    progress.jobFinished("block\n");
    progress.printLine("done");
  }
  // Width 21 leaves 20 columns: "[1/9] nvcc sm_90 kernels/matmul/tiled.cu"
  // elided in the middle.
  EXPECT_EQ(capture.text(), "\r[1/9] nvc...tiled.cu\x1b[K"
                            "\r\x1b[K"
                            "block\n"
                            "done\n");
}

TEST(ProgressTest, ElideMiddle) {
  EXPECT_EQ(elideMiddle("abcdef", 10), "abcdef");
  EXPECT_EQ(elideMiddle("abcdefghij", 7), "ab...ij");
  EXPECT_EQ(elideMiddle("abcdefghij", 8), "abc...ij");
  EXPECT_EQ(elideMiddle("abcdefghij", 2), "ab");
}

TEST(ProgressTest, ColorOnlyWhenAsked) {
  EXPECT_EQ(colorize("FAILED", "1;31", false), "FAILED");
  EXPECT_EQ(colorize("FAILED", "1;31", true), "\x1b[1;31mFAILED\x1b[0m");
}

TEST(ProgressTest, DetectTerminalHonoursNoColor) {
  // The test's stdout is not a terminal under ctest, so nothing is smart and
  // nothing is coloured, whatever TERM says.
  ::setenv("TERM", "xterm-256color", 1);
  ::unsetenv("NO_COLOR");
  ProgressOptions options = detectTerminal();
  if (!options.smartTerminal) {
    EXPECT_FALSE(options.color);
  } else {
    EXPECT_TRUE(options.color);
    ::setenv("NO_COLOR", "1", 1);
    EXPECT_FALSE(detectTerminal().color);
    ::unsetenv("NO_COLOR");
  }
  ::setenv("TERM", "dumb", 1);
  EXPECT_FALSE(detectTerminal().smartTerminal);
}

} // namespace
} // namespace kb::workbench

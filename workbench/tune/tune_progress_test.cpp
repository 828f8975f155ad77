//===- workbench/tune/tune_progress_test.cpp ------------------------------===//

#include "workbench/tune/tune_progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace kb::workbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// What |print| wrote through a FILE*.
template <typename Fn> std::string captured(Fn print) {
  std::FILE *file = std::tmpfile();
  print(file);
  std::fflush(file);
  std::string text;
  std::rewind(file);
  for (int c; (c = std::fgetc(file)) != EOF;)
    text.push_back(char(c));
  std::fclose(file);
  return text;
}

TuneMeasurement ok(double ns) {
  TuneMeasurement m;
  m.medianNs = ns;
  return m;
}

TEST(TuneProgressTest, APlainLogGetsALinePerConfigurationAndPerBuild) {
  std::string text = captured([](std::FILE *out) {
    TuneProgressPrinter printer(out, ProgressOptions(), /*planned=*/3);
    printer.compiling(1, 3);
    printer.compiling(2, 3);
    printer.compiling(3, 3);
    printer.measuring(1, 3);
    printer.measured("TILE=8", ok(2e6));
    printer.measured("TILE=16", ok(1e6));
    TuneMeasurement bad;
    bad.status = TuneMeasurement::Status::CompileError;
    printer.measured("TILE=32", bad);
  });
  // The end of the build, not each job; no measuring status; no escapes.
  EXPECT_THAT(text, Not(HasSubstr("compiling 1/3")));
  EXPECT_THAT(text, HasSubstr("tune: compiling 3/3 jobs; measured 0 of 3"));
  EXPECT_THAT(text, Not(HasSubstr("measuring")));
  EXPECT_THAT(text, Not(HasSubstr("\x1b")));
  EXPECT_THAT(text, HasSubstr("tune: measured TILE=8: 2.00 ms; measured 1 "
                              "of 3; best 2.00 ms (TILE=8)"));
  EXPECT_THAT(text, HasSubstr("measured 2 of 3; best 1.00 ms (TILE=16)"));
  EXPECT_THAT(text, HasSubstr("tune: measured TILE=32: compile-error; "
                              "measured 3 of 3 (1 failed); best 1.00 ms "
                              "(TILE=16)"));
  // Two of three measured: an estimate of the rest; all measured: none.
  EXPECT_THAT(text, HasSubstr(" left\n"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
}

TEST(TuneProgressTest, ATerminalGetsOneLineRewrittenAndClearedAtTheEnd) {
  ProgressOptions terminal;
  terminal.smartTerminal = true;
  terminal.width = 60;
  std::string text = captured([&](std::FILE *out) {
    TuneProgressPrinter printer(out, terminal, /*planned=*/0);
    printer.compiling(1, 2);
    printer.measuring(1, 2);
    printer.finish();
  });
  EXPECT_THAT(text, HasSubstr("\rtune: compiling 1/2 jobs; measured 0"));
  EXPECT_THAT(text, HasSubstr("\rtune: measuring 1/2; measured 0"));
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  // Without a plan there is no estimate; the line ends cleared.
  EXPECT_THAT(text, Not(HasSubstr("left")));
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");
}

} // namespace
} // namespace kb::workbench

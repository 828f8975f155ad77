//===- workbench/bench/bench_progress_test.cpp - Throttled sampling -------===//
#include "workbench/bench/bench_printer.h"
#include "workbench/bench/bench_progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

namespace kb::workbench {
namespace {

bench::StoppingRule ruleWith(size_t samples) {
  bench::StoppingSettings settings;
  settings.minSamples = samples + 1; // never stops here
  bench::StoppingRule rule(settings);
  for (size_t i = 0; i < samples; ++i)
    rule.add(100 + double(i % 2), 100);
  return rule;
}

TEST(SampleProgress, FormatsTheProtocolLine) {
  EXPECT_EQ(
      SampleProgress::format("candidate", bench::TimingMode::Cold, 12, 0.0125),
      "progress candidate cold 12 0.0125");
  EXPECT_EQ(SampleProgress::format("reference", bench::TimingMode::Hot, 3,
                                   std::numeric_limits<double>::infinity()),
            "progress reference hot 3 -1");
}

TEST(SampleProgress, SendsAtMostOneLinePerInterval) {
  std::vector<std::string> lines;
  SampleProgress progress({"candidate", "reference"}, bench::TimingMode::Cold,
                          std::chrono::hours(1), [&](const std::string &line) {
                            lines.push_back(line);
                          });
  bench::StoppingRule rule = ruleWith(20);
  for (int i = 0; i < 10000; ++i)
    progress(i % 2, rule);
  // The first sample shows at once; the rest of the hour nothing is
  // formatted or sent.
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(progress.sent(), 1u);
  EXPECT_EQ(lines[0].rfind("progress candidate cold 20 ", 0), 0u) << lines[0];
}

TEST(SampleProgress, WithoutAnIntervalEverySampleIsSent) {
  size_t sent = 0;
  SampleProgress progress({"candidate"}, bench::TimingMode::Hot,
                          std::chrono::nanoseconds(0),
                          [&](const std::string &) { ++sent; });
  bench::StoppingRule rule = ruleWith(5);
  for (int i = 0; i < 50; ++i)
    progress(0, rule);
  EXPECT_EQ(sent, 50u);
}

// The time left is the run's pace so far times what is left; nothing before
// the first benchmark has finished (no pace yet) or after the last.
TEST(BenchPrinter, TimeLeftFollowsThePaceSoFar) {
  EXPECT_EQ(PrintingBenchObserver::timeLeft(0, 10, 5), "");
  EXPECT_EQ(PrintingBenchObserver::timeLeft(2, 10, 5), "; about 20 s left");
  EXPECT_EQ(PrintingBenchObserver::timeLeft(1, 10, 60), "; about 9 min left");
  EXPECT_EQ(PrintingBenchObserver::timeLeft(10, 10, 60), "");
}

/// What |observer| wrote to its file.
std::string written(std::FILE *f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof buf, f))
    text.append(buf, n);
  return text;
}

// On a terminal the live line shows the phase the worker announced and,
// once a benchmark has finished, the time left; plain lines (CI logs) stay
// as they were.
TEST(BenchPrinter, TheLiveLineHasThePhaseAndTheTimeLeft) {
  for (bool terminal : {true, false}) {
    SCOPED_TRACE(terminal);
    std::FILE *f = std::tmpfile();
    ASSERT_TRUE(f);
    ProgressOptions options;
    options.smartTerminal = terminal;
    options.width = 200;
    {
      PrintingBenchObserver observer(f, options);
      observer.planned(3, "");
      observer.started("a");
      observer.sampling("a", "correctness check");
      observer.finished("a", nullptr);
      observer.started("b");
      observer.allFinished();
    }
    std::string text = written(f);
    std::fclose(f);
    if (terminal) {
      EXPECT_NE(text.find("[1/3] a: correctness check"), std::string::npos)
          << text;
      EXPECT_NE(text.find("[2/3] b; about "), std::string::npos) << text;
    } else {
      EXPECT_EQ(text.find("about"), std::string::npos) << text;
      EXPECT_NE(text.find("[2/3] b\n"), std::string::npos) << text;
    }
  }
}

} // namespace
} // namespace kb::workbench

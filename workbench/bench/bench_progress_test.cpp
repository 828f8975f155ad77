//===- workbench/bench/bench_progress_test.cpp - Throttled sampling -------===//
#include "workbench/bench/bench_progress.h"

#include <gtest/gtest.h>

#include <limits>

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

} // namespace
} // namespace kb::workbench

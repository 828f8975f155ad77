//===- workbench/tune/tune_report_test.cpp --------------------------------===//
// The top-N table `tune` prints: configurations measured fully are ranked,
// those measured only briefly (halving's earlier rounds) are listed apart
// and unranked, and each row has its samples' noise.
#include "workbench/tune/tune_report.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace kb::workbench {
namespace {

using MStatus = TuneMeasurement::Status;

TuneResult measured(int64_t x, double ns, int level,
                    std::optional<double> noise = std::nullopt) {
  TuneResult r;
  r.values = {{"X", x}};
  r.measurement.level = level;
  r.measurement.medianNs = ns;
  r.measurement.noise = noise;
  return r;
}

/// A halving search's outcome: two configurations measured fully, three
/// briefly, one of them (X=5) faster than any full one, and one failure.
TuneSearchResult halving() {
  TuneSearchResult r;
  r.results = {measured(1, 3000, 2, 0.0125), measured(2, 2000, 2, 0.003),
               measured(3, 1500, 1), measured(4, 4000, 0), measured(5, 900, 0)};
  TuneResult failed;
  failed.values = {{"X", 6}};
  failed.measurement.status = MStatus::CompileError;
  failed.measurement.message = "error: no";
  r.results.push_back(failed);
  r.best = 1;
  return r;
}

std::vector<std::string> tableLines(const TuneSearchResult &result,
                                    size_t top) {
  char *text = nullptr;
  size_t size = 0;
  std::FILE *out = open_memstream(&text, &size);
  TuneRunInfo info;
  info.kernel = "k";
  info.deviceName = "d";
  printTuneTable(out, info, result, top);
  std::fclose(out);
  std::istringstream in(std::string(text, size));
  std::free(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string key(const TuneResult *r) { return configurationKey(r->values); }

TEST(TuneReportTest, BriefMeasurementsAreNotRankedWithFullOnes) {
  TuneSearchResult result = halving();
  RankedTuneResults ranked = rankTuneResults(result);
  ASSERT_EQ(ranked.ok.size(), 2u);
  EXPECT_EQ(key(ranked.ok[0]), "X=2");
  EXPECT_EQ(key(ranked.ok[1]), "X=1");
  ASSERT_EQ(ranked.brief.size(), 3u);
  EXPECT_EQ(key(ranked.brief[0]), "X=3"); // the longer measurement first
  EXPECT_EQ(key(ranked.brief[1]), "X=5");
  EXPECT_EQ(key(ranked.brief[2]), "X=4");
  ASSERT_EQ(ranked.failed.size(), 1u);

  std::vector<std::string> lines = tableLines(result, 10);
  ASSERT_GE(lines.size(), 7u);
  EXPECT_EQ(lines[0].rfind("rank configuration", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("median   noise"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("1    X=2 ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(" 0.30% "), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].rfind("2    X=1 ", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find(" 1.25% "), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3].rfind("measured briefly", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("-    X=3 ", 0), 0u) << lines[4];
  EXPECT_EQ(lines[5].rfind("-    X=5 ", 0), 0u) << lines[5];
  EXPECT_EQ(lines[6].rfind("-    X=4 ", 0), 0u) << lines[6];
  EXPECT_EQ(lines[7].rfind("X=6: compile-error: error: no", 0), 0u) << lines[7];
}

TEST(TuneReportTest, TopLimitsEachListAndSaysWhatItLeftOut) {
  std::vector<std::string> lines = tableLines(halving(), 1);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[1].rfind("1    X=2 ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("measured briefly", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("-    X=3 ", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4], "... 2 more measured briefly (tune.json)");
}

TEST(TuneReportTest, WithoutAFullMeasurementTheHighestLevelIsRanked) {
  TuneSearchResult result;
  result.results = {measured(1, 3000, 0), measured(2, 2000, 1)};
  RankedTuneResults ranked = rankTuneResults(result);
  ASSERT_EQ(ranked.ok.size(), 1u);
  EXPECT_EQ(key(ranked.ok[0]), "X=2");
  ASSERT_EQ(ranked.brief.size(), 1u);
  EXPECT_EQ(key(ranked.brief[0]), "X=1");
}

} // namespace
} // namespace kb::workbench

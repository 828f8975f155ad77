//===- workbench/tune/tune_search_test.cpp --------------------------------===//
// The strategies of `kernel-bench tune` on a synthetic objective: what each
// measures, at which level, that a failed configuration is never chosen,
// and the time budget of random sampling.
#include "workbench/tune/tune_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace kb::workbench {
namespace {

using MStatus = TuneMeasurement::Status;

std::vector<TuneValues> space(int n) {
  std::vector<TuneValues> all;
  for (int i = 0; i < n; ++i)
    all.push_back({{"X", i}});
  return all;
}

/// Time = |X - 13| + 1 ms; X = 13 does not compile, X = 14 is INCORRECT.
struct Objective {
  std::map<int, std::vector<int64_t>> levels; // level -> X measured
  TuneMeasureFn fn() {
    return [this](const std::vector<TuneValues> &configs,
                  int level) -> StatusOr<std::vector<TuneMeasurement>> {
      std::vector<TuneMeasurement> out;
      for (const TuneValues &v : configs) {
        int64_t x = v.at("X");
        levels[level].push_back(x);
        TuneMeasurement m;
        m.level = level;
        m.status = x == 13   ? MStatus::CompileError
                   : x == 14 ? MStatus::Incorrect
                             : MStatus::Ok;
        m.medianNs = 1e6 * (std::abs(x - 13) + 1);
        m.costNs = m.medianNs * levelSamples(level);
        out.push_back(m);
      }
      return out;
    };
  }
};

int64_t bestX(const TuneSearchResult &r) {
  return r.best ? r.results[*r.best].values.at("X") : -1;
}

TEST(TuneSearchTest, ExhaustiveMeasuresEverythingFullyAndSkipsFailures) {
  Objective o;
  auto r = runTuneSearch(space(40), {TuneStrategy::Exhaustive, 0, 1}, o.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(o.levels[kTopLevel].size(), 40u);
  EXPECT_EQ(o.levels.size(), 1u);
  // 12 and 14 tie with 13 excluded; 14 is INCORRECT: 12 wins.
  EXPECT_EQ(bestX(*r), 12);
}

TEST(TuneSearchTest, HalvingMeasuresTheBestQuarterLongerAndPicksAtTheTop) {
  Objective o;
  auto r = runTuneSearch(space(64), {TuneStrategy::Halving, 0, 1}, o.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(o.levels[0].size(), 64u);
  // 62 passed level 0: a quarter (16) go on, then 4.
  EXPECT_EQ(o.levels[1].size(), 16u);
  EXPECT_EQ(o.levels[2].size(), 4u);
  EXPECT_EQ(bestX(*r), 12);
  EXPECT_EQ(r->results[*r->best].measurement.level, kTopLevel);
  Objective all;
  auto exhaustive =
      runTuneSearch(space(64), {TuneStrategy::Exhaustive, 0, 1}, all.fn());
  ASSERT_TRUE(exhaustive.ok());
  EXPECT_LT(r->totalCostNs, 0.3 * exhaustive->totalCostNs);
  for (int64_t x : o.levels[1])
    EXPECT_NE(x, 13); // a failed configuration is never kept
}

TEST(TuneSearchTest, RandomMeasuresItsBudgetOnly) {
  Objective o;
  auto r = runTuneSearch(space(40), {TuneStrategy::Random, 5, 3}, o.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->results.size(), 5u);
  EXPECT_EQ(o.levels[kTopLevel].size(), 5u);
  std::set<int64_t> distinct(o.levels[kTopLevel].begin(),
                             o.levels[kTopLevel].end());
  EXPECT_EQ(distinct.size(), 5u);
}

TEST(TuneSearchTest, RandomWithATimeBudgetStopsBetweenBatches) {
  Objective o;
  TuneSearchOptions options{TuneStrategy::Random, 0, 1};
  options.budgetSeconds = 1e-9; // spent at once: the first check stops it
  auto r = runTuneSearch(space(40), options, o.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->results.empty());
  EXPECT_FALSE(r->best);
  options.budgetSeconds = 3600;
  options.batch = 7;
  r = runTuneSearch(space(40), options, o.fn());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->results.size(), 40u); // every batch fits
  EXPECT_EQ(bestX(*r), 12);
}

TEST(TuneSearchTest,
     HalvingWithATimeBudgetSizesItsFirstRoundFromTheFirstBatch) {
  // A clock the measurements advance: one second per configuration at
  // level 0, as if each compiled and ran briefly.
  double clock = 0;
  Objective o;
  TuneMeasureFn timed = [&](const std::vector<TuneValues> &configs, int level) {
    if (level == 0)
      clock += static_cast<double>(configs.size());
    return o.fn()(configs, level);
  };
  TuneSearchOptions options{TuneStrategy::Halving, 0, 7};
  options.budgetSeconds = 60; // a third: 20 configurations in round one
  options.batch = 4;
  options.seconds = [&] { return clock; };
  auto r = runTuneSearch(space(64), options, timed);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(o.levels[0].size(), 20u); // the batch of 4, then 16 more
  std::set<int64_t> distinct(o.levels[0].begin(), o.levels[0].end());
  EXPECT_EQ(distinct.size(), 20u) << "the first batch is not measured again";
  EXPECT_LE(o.levels[1].size(), 5u);
  EXPECT_GE(o.levels[2].size(), 1u);
  // Only what was measured is a result, in configuration order; the winner
  // is the fastest at the top level.
  ASSERT_EQ(r->results.size(), 20u);
  EXPECT_TRUE(std::is_sorted(r->results.begin(), r->results.end(),
                             [](const TuneResult &a, const TuneResult &b) {
                               return a.values < b.values;
                             }));
  ASSERT_TRUE(r->best);
  EXPECT_EQ(r->results[*r->best].measurement.level, kTopLevel);
  for (const TuneResult &x : r->results)
    if (x.measurement.level == kTopLevel && x.measurement.status == MStatus::Ok)
      EXPECT_LE(r->results[*r->best].measurement.medianNs,
                x.measurement.medianNs);

  // A budget smaller than the first batch still measures that batch.
  clock = 0;
  o.levels.clear();
  options.budgetSeconds = 1;
  r = runTuneSearch(space(64), options, timed);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(o.levels[0].size(), 4u);
  EXPECT_EQ(r->results.size(), 4u);
}

TEST(TuneSearchTest, AMeasurementErrorStopsTheSearch) {
  TuneMeasureFn failing = [](const std::vector<TuneValues> &,
                             int) -> StatusOr<std::vector<TuneMeasurement>> {
    return unavailable("no device");
  };
  auto r = runTuneSearch(space(4), {TuneStrategy::Halving, 0, 1}, failing);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().isUnavailable());
}

} // namespace
} // namespace kb::workbench

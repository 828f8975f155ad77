//===- workbench/report/compare_test.cpp - Regression verdicts ------------===//
#include "workbench/report/bootstrap.h"
#include "workbench/report/compare.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kb::report {
namespace {

/// Three benchmarks, candidate only, |samples| samples each; medians scaled
/// by |scale| and noise |noise|.
BenchReport
report(double scale, double noise, uint64_t seed, uint32_t samples = 40,
       std::vector<std::string> names = {"copy", "saxpy", "reduce"}) {
  return makeSyntheticReport(scaledSpec(names, scale, noise, seed, samples));
}

Comparison compare(const BenchReport &base, const BenchReport &fresh,
                   CompareOptions options = {}) {
  StatusOr<Comparison> c = compareReports({base}, fresh, options);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : Comparison();
}

std::vector<Verdict> verdicts(const Comparison &c) {
  std::vector<Verdict> out;
  for (const RowComparison &r : c.rows)
    out.push_back(r.verdict);
  return out;
}

TEST(Compare, TwentyPercentSlowerIsSlower) {
  Comparison c = compare(report(1, 0.01, 1), report(1.2, 0.01, 2));
  EXPECT_EQ(verdicts(c), std::vector<Verdict>(3, Verdict::Slower));
  EXPECT_TRUE(c.hasRegression());
  EXPECT_NEAR(*c.geomeanRatio, 1.2, 0.02);
  for (const RowComparison &r : c.rows) {
    EXPECT_LT(r.low, r.ratio);
    EXPECT_GT(r.high, r.ratio);
  }
}

TEST(Compare, TwentyPercentFasterIsFaster) {
  Comparison c = compare(report(1, 0.01, 1), report(0.8, 0.01, 2));
  EXPECT_EQ(verdicts(c), std::vector<Verdict>(3, Verdict::Faster));
  EXPECT_FALSE(c.hasRegression());
}

TEST(Compare, AnotherRunOfTheSameCodeIsSame) {
  Comparison c = compare(report(1, 0.01, 1), report(1, 0.01, 2));
  EXPECT_EQ(verdicts(c), std::vector<Verdict>(3, Verdict::Same));
}

TEST(Compare, ANoisyBenchmarkIsInconclusive) {
  // 30 % noise with 10 samples: a 3 % change cannot be told apart at δ
  // alone (the interval straddles 1 + δ) ...
  CompareOptions deltaOnly;
  deltaOnly.noiseFactor = 0;
  Comparison c =
      compare(report(1, 0.3, 1, 10), report(1.03, 0.3, 2, 10), deltaOnly);
  EXPECT_EQ(verdicts(c), std::vector<Verdict>(3, Verdict::Inconclusive));
  EXPECT_FALSE(c.hasRegression());
  // ... and the default band, k x 30 %, calls it what it is: no change
  // beyond the rows' own noise.
  c = compare(report(1, 0.3, 1, 10), report(1.03, 0.3, 2, 10));
  for (const RowComparison &r : c.rows) {
    EXPECT_NE(r.verdict, Verdict::Slower) << r.id;
    EXPECT_GT(r.threshold, 0.15) << r.id; // 10 samples: a rough estimate
    EXPECT_EQ(r.bandFrom, "noise") << r.id;
  }
}

// With one base report, a shift of half the rows' own noise was SLOWER once
// there were enough samples for a narrow interval: a rerun of the
// same build on a noisy device failed the gate.
TEST(Compare, AShiftWithinTheRowsOwnNoiseIsNotSlower) {
  BenchReport base = report(1, 0.10, 1, 1000),
              fresh = report(1.05, 0.10, 2, 1000);
  CompareOptions deltaOnly;
  deltaOnly.noiseFactor = 0;
  // The bug: δ alone, the narrow interval of 400 samples is above 1 + δ.
  EXPECT_EQ(verdicts(compare(base, fresh, deltaOnly)),
            std::vector<Verdict>(3, Verdict::Slower));
  Comparison c = compare(base, fresh);
  EXPECT_EQ(verdicts(c), std::vector<Verdict>(3, Verdict::Same));
  EXPECT_FALSE(c.hasRegression());
  for (const RowComparison &r : c.rows) {
    EXPECT_NEAR(r.noise, 0.10, 0.02) << r.id;
    EXPECT_DOUBLE_EQ(r.threshold, kNoiseFactor * r.noise) << r.id;
  }
  EXPECT_NE(renderComparisonMarkdown(c).find("(noise)"), std::string::npos);
}

TEST(Compare, AChangeFarBeyondTheNoiseIsStillSlower) {
  Comparison c = compare(report(1, 0.10, 1, 20), report(1.5, 0.10, 2, 20));
  EXPECT_EQ(verdicts(c), std::vector<Verdict>(3, Verdict::Slower));
  EXPECT_TRUE(c.hasRegression());
}

// The first stage decides only rows whose verdict more resamples cannot
// change: over rows spread across the band's edge, every verdict is the
// full bootstrap's.
TEST(Compare, TwoStageVerdictsAreTheFullBootstraps) {
  SyntheticSpec base, fresh;
  base.benchmarks = syntheticBenchmarks(400, 0.03);
  fresh.benchmarks = base.benchmarks;
  for (size_t i = 0; i < fresh.benchmarks.size(); ++i)
    fresh.benchmarks[i].medianNs *= 0.9 + 0.2 * double(i) / 400;
  base.samples = fresh.samples = 30;
  fresh.seed = 2;
  BenchReport b = makeSyntheticReport(base), n = makeSyntheticReport(fresh);
  CompareOptions full;
  full.firstStageResamples = 0;
  Comparison twoStage = compare(b, n), reference = compare(b, n, full);
  ASSERT_EQ(twoStage.rows.size(), reference.rows.size());
  size_t decidedEarly = 0;
  for (size_t i = 0; i < twoStage.rows.size(); ++i) {
    EXPECT_EQ(twoStage.rows[i].verdict, reference.rows[i].verdict)
        << twoStage.rows[i].id;
    decidedEarly += twoStage.rows[i].low != reference.rows[i].low;
  }
  EXPECT_GT(decidedEarly, 200u); // most rows: the point of the first stage
  EXPECT_LT(decidedEarly, 400u); // rows near an edge got every resample
}

TEST(Compare, RobustSpreadIgnoresOneStraySample) {
  std::vector<double> sorted = {98, 99, 99, 100, 100, 100, 101, 101, 102, 5000};
  EXPECT_LT(robustRelativeSpread(sorted), 0.02);
  EXPECT_GT(summarize(sorted).relativeStdev, 2.0);
}

TEST(Compare, VerdictsAreReproducible) {
  BenchReport base = report(1, 0.05, 1, 12), fresh = report(1.04, 0.05, 2, 12);
  Comparison a = compare(base, fresh), b = compare(base, fresh);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].low, b.rows[i].low);
    EXPECT_EQ(a.rows[i].high, b.rows[i].high);
  }
}

TEST(Compare, BenchmarksInOnlyOneReportAreListed) {
  Comparison c = compare(report(1, 0.01, 1, 20, {"a", "b"}),
                         report(1, 0.01, 2, 20, {"b", "c"}));
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.onlyInBase, std::vector<std::string>{"a/candidate/cold"});
  EXPECT_EQ(c.onlyInNew, std::vector<std::string>{"c/candidate/cold"});
  std::string md = renderComparisonMarkdown(c);
  EXPECT_NE(md.find("only in BASE (1): a/candidate/cold"), std::string::npos);
  EXPECT_NE(md.find("only in NEW (1): c/candidate/cold"), std::string::npos);
}

TEST(Compare, DisjointReportsAreRefused) {
  StatusOr<Comparison> c = compareReports({report(1, 0.01, 1, 20, {"a"})},
                                          report(1, 0.01, 2, 20, {"z"}), {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no benchmark in common"),
            std::string::npos);
}

TEST(Compare, DifferentDevicesAreRefusedUnlessAllowed) {
  BenchReport other = report(1, 0.01, 2);
  other.device.name = "Other GPU";
  StatusOr<Comparison> c = compareReports({report(1, 0.01, 1)}, other, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("--allow-different-devices"),
            std::string::npos);
  CompareOptions allow;
  allow.allowDifferentDevices = true;
  EXPECT_TRUE(compareReports({report(1, 0.01, 1)}, other, allow).ok());
}

TEST(Compare, ABenchmarkThatBrokeIsARegression) {
  BenchReport fresh = report(1, 0.01, 2);
  fresh.benchmarks[1].status = BenchStatus::Error;
  fresh.benchmarks[1].reason = "kernel faulted";
  fresh.benchmarks[1].variants.clear();
  Comparison c = compare(report(1, 0.01, 1), fresh);
  EXPECT_EQ(c.rows.size(), 2u);
  ASSERT_EQ(c.uncomparable.size(), 1u);
  EXPECT_EQ(c.uncomparable[0].id, "saxpy");
  EXPECT_EQ(c.uncomparable[0].why, "error in NEW: kernel faulted");
  EXPECT_TRUE(c.hasRegression());
  EXPECT_TRUE(c.onlyInBase.empty());
  EXPECT_TRUE(c.onlyInNew.empty());
  // The other way round: fixed in NEW, not a regression.
  c = compare(fresh, report(1, 0.01, 1));
  ASSERT_EQ(c.uncomparable.size(), 1u);
  EXPECT_EQ(c.uncomparable[0].id, "saxpy/candidate/cold");
  EXPECT_FALSE(c.hasRegression());
  EXPECT_TRUE(c.onlyInBase.empty());
  // A timed row whose NEW variant is incorrect: a regression.
  fresh = report(1, 0.01, 2);
  fresh.benchmarks[1].status = BenchStatus::Incorrect;
  fresh.benchmarks[1].variants[0].timings[0].samples.clear();
  c = compare(report(1, 0.01, 1), fresh);
  ASSERT_EQ(c.uncomparable.size(), 1u);
  EXPECT_TRUE(c.uncomparable[0].newIsBroken);
  EXPECT_TRUE(c.hasRegression());
}

TEST(Compare, HistoryWidensTheBandOfANoisyBenchmark) {
  // Three base runs whose medians move by ~±6 % from run to run: a 5 %
  // slowdown is within that benchmark's known noise.
  std::vector<BenchReport> bases = {
      report(1.0, 0.005, 1), report(1.06, 0.005, 2), report(0.95, 0.005, 3)};
  BenchReport fresh = report(1.05, 0.005, 4);
  StatusOr<Comparison> single = compareReports({bases[0]}, fresh, {});
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->rows[0].verdict, Verdict::Slower);
  StatusOr<Comparison> history = compareReports(bases, fresh, {});
  ASSERT_TRUE(history.ok());
  ASSERT_TRUE(history->rows[0].runToRunNoise.has_value());
  EXPECT_GT(history->rows[0].threshold, 0.08);
  EXPECT_NE(history->rows[0].verdict, Verdict::Slower);
  EXPECT_FALSE(history->hasRegression());
}

/// The order-statistic bootstrap gives the interval a plain resampling
/// bootstrap gives (within Monte Carlo error), odd and even n.
/// The 95 % interval of median(b) / median(a) by plain resampling: |resamples|
/// times, n draws with replacement per side and two medians.
RatioInterval plainInterval(const std::vector<double> &a,
                            const std::vector<double> &b, int resamples,
                            std::mt19937_64 &rng) {
  size_t n = a.size();
  std::vector<double> ratios, ra(n), rb(n);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (int r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < n; ++i)
      ra[i] = a[pick(rng)], rb[i] = b[pick(rng)];
    ratios.push_back(summarize(rb).median / summarize(ra).median);
  }
  std::sort(ratios.begin(), ratios.end());
  RatioInterval out;
  out.low = ratios[size_t(0.025 * (resamples - 1) + 0.5)];
  out.high = ratios[size_t(0.975 * (resamples - 1) + 0.5)];
  return out;
}

/// |n| lognormal samples per side, the second |shift| times the first;
/// the bootstrap's interval with |resamples| against plain resampling's
/// with |plain|, within |tolerance| of the plain interval's width.
void expectMatchesPlainResampling(size_t n, double shift, uint32_t resamples,
                                  int plain, double tolerance,
                                  std::mt19937_64 &rng) {
  std::lognormal_distribution<double> dist(0, 0.1);
  std::vector<double> a(n), b(n);
  for (double &x : a)
    x = 1000 * dist(rng);
  for (double &x : b)
    x = 1000 * shift * dist(rng);
  RatioInterval ci = MedianRatioBootstrap(resamples, 0.95).interval(a, b, 42);
  RatioInterval ref = plainInterval(a, b, plain, rng);
  double width = ref.high - ref.low;
  EXPECT_NEAR(ci.low, ref.low, tolerance * width) << n;
  EXPECT_NEAR(ci.high, ref.high, tolerance * width) << n;
}

TEST(Bootstrap, MatchesPlainResampling) {
  std::mt19937_64 rng(7);
  for (size_t n : {15u, 16u, 100u})
    expectMatchesPlainResampling(n, 1.1, 20000, 20000, 0.15, rng);
}

// Above the table's size the medians come from Beta draws: the interval
// still matches plain resampling (fewer plain resamples: they cost O(n)).
TEST(Bootstrap, LargeSampleCountsMatchPlainResamplingToo) {
  std::mt19937_64 rng(11);
  for (size_t n : {4097u, 5000u})
    expectMatchesPlainResampling(n, 1.01, 4000, 1500, 0.2, rng);
}

/// |n| samples per side in lockstep rounds: a drift that doubles the time
/// over the run hits both sides of each round alike; the candidate is
/// |factor| times the baseline, each sample with 1 % noise.
std::pair<Timing, Timing> pairedTimings(double factor, size_t n, uint64_t seed,
                                        double spread = 0.01) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, spread);
  Timing base, cand;
  for (size_t i = 0; i < n; ++i) {
    double drift = 1 + double(i) / double(n); // 1x .. 2x over the run
    base.samples.push_back({1000 * drift * noise(rng), 0, std::nullopt});
    cand.samples.push_back(
        {1000 * factor * drift * noise(rng), 0, std::nullopt});
  }
  return {base, cand};
}

TEST(ComparePaired, PairingCancelsDriftThatHidesAChange) {
  auto [base, cand] = pairedTimings(1.10, 40, 7);
  // Unpaired, the drift swamps a 10 % change ...
  MedianRatioBootstrap bootstrap(2000, 0.95);
  RatioInterval unpaired =
      bootstrap.interval(gpuTimes(base), gpuTimes(cand), 1);
  EXPECT_NE(decideVerdict(unpaired.low, unpaired.high, 0.02), Verdict::Slower);
  // ... paired, it cancels.
  StatusOr<PairedComparison> p = comparePaired(base, cand, "k/cold", {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->verdict, "SLOWER");
  EXPECT_NEAR(p->ratio, 1.10, 0.01);
  EXPECT_LT(p->low, p->ratio);
  EXPECT_GT(p->high, p->ratio);
  EXPECT_EQ(p->pairs, 40u);
}

TEST(ComparePaired, TheSameKernelIsSame) {
  auto [base, cand] = pairedTimings(1.0, 40, 8);
  StatusOr<PairedComparison> p = comparePaired(base, cand, "k/cold", {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->verdict, "SAME");
  // Deterministic: the same samples give the same interval.
  StatusOr<PairedComparison> again = comparePaired(base, cand, "k/cold", {});
  EXPECT_EQ(again->low, p->low);
  EXPECT_EQ(again->high, p->high);
}

// The paired verdict had the same flaw: pairs whose ratios spread by 10 %
// were SLOWER at a 5 % shift once there were enough of them.
TEST(ComparePaired, AShiftWithinThePairsOwnSpreadIsNotSlower) {
  auto [base, cand] = pairedTimings(1.05, 400, 10, 0.07);
  CompareOptions deltaOnly;
  deltaOnly.noiseFactor = 0;
  StatusOr<PairedComparison> p = comparePaired(base, cand, "k/cold", deltaOnly);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->verdict, "SLOWER"); // the bug
  p = comparePaired(base, cand, "k/cold", {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->verdict, "SAME");
  EXPECT_GT(p->threshold, 0.07); // k x the ratios' spread, recorded
  auto [base2, cand2] = pairedTimings(1.5, 10, 11, 0.07);
  p = comparePaired(base2, cand2, "k/cold", {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->verdict, "SLOWER");
}

TEST(ComparePaired, RefusesUnpairedSamples) {
  auto [base, cand] = pairedTimings(1.0, 10, 9);
  cand.samples.pop_back();
  StatusOr<PairedComparison> p = comparePaired(base, cand, "k/cold", {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("equal, non-zero counts"),
            std::string::npos);
}

} // namespace
// A bootstrap of a few samples gives a narrow, confident interval: two
// quick runs of one build were called SLOWER from 3 samples against 1.
TEST(Compare, TooFewSamplesIsInconclusiveWhateverTheInterval) {
  Comparison c = compare(report(1, 0.01, 1, 3), report(2, 0.01, 2, 3));
  ASSERT_FALSE(c.rows.empty());
  for (const RowComparison &r : c.rows) {
    EXPECT_EQ(r.verdict, Verdict::Inconclusive) << r.id;
    EXPECT_EQ(r.why, "3 samples < 10 in BASE, 3 samples < 10 in NEW") << r.id;
  }
  EXPECT_FALSE(c.hasRegression());
  // Every cell is escaped (markdownText): `<` is an entity in Markdown.
  EXPECT_NE(renderComparisonMarkdown(c).find("INCONCLUSIVE (3 samples &lt; 10"),
            std::string::npos);
  // At the minimum the interval decides again.
  c = compare(report(1, 0.01, 1, 10), report(2, 0.01, 2, 10));
  for (const RowComparison &r : c.rows) {
    EXPECT_EQ(r.verdict, Verdict::Slower) << r.id;
    EXPECT_TRUE(r.why.empty()) << r.why;
  }
}

TEST(Compare, TooFewPairsIsInconclusive) {
  BenchReport base = report(1, 0.01, 1, 4), fresh = report(2, 0.01, 2, 4);
  const Timing &b = base.benchmarks[0].variants[0].timings[0];
  const Timing &n = fresh.benchmarks[0].variants[0].timings[0];
  StatusOr<PairedComparison> p = comparePaired(b, n, "x", {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->verdict, "INCONCLUSIVE");
}

} // namespace kb::report

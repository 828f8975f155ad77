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

// Benchmark names once said a part twice; a base report of those names
// still pairs with a new report of today's, under today's names.
TEST(Compare, AnOldNameAndTodaysNameOfABenchmarkPair) {
  auto named = [](const std::string &name, double scale, uint64_t seed) {
    BenchReport r = report(scale, 0.01, seed, 40, {name});
    r.benchmarks[0].executable = "main_dispatch_0";
    r.benchmarks[0].exportName = "main_dispatch_0";
    return r;
  };
  BenchReport base = named("main_dispatch_0_main_dispatch_0_512x256x1", 1, 1);
  BenchReport fresh = named("main_dispatch_0_512x256x1", 1.2, 2);
  Comparison c = compare(base, fresh);
  EXPECT_TRUE(c.onlyInBase.empty());
  EXPECT_TRUE(c.onlyInNew.empty());
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].id, "main_dispatch_0_512x256x1/candidate/cold");
  EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
  // Either way round.
  c = compare(fresh, base);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::Faster);
}

// Two old names that today's rule would both shorten to one name keep
// their own: renaming either would merge two benchmarks into one row.
TEST(Compare, OldNamesThatWouldCollideAreNotRenamed) {
  BenchReport base = report(
      1, 0.01, 1, 40,
      {"matmul_matmul_tiled_512x512x1", "matmul_tiled_matmul_tiled_512x512x1"});
  base.benchmarks[0].executable = "matmul";
  base.benchmarks[0].exportName = "matmul_tiled";
  base.benchmarks[1].executable = "matmul_tiled";
  base.benchmarks[1].exportName = "matmul_tiled";
  BenchReport fresh = base;
  Comparison c = compare(base, fresh);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].id, "matmul_matmul_tiled_512x512x1/candidate/cold");
  EXPECT_EQ(c.rows[1].id, "matmul_tiled_matmul_tiled_512x512x1/candidate/cold");
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

/// One benchmark, "saxpy", with its candidate at |candidateNs| and its
/// reference at |referenceNs| (1 % noise, 30 samples each).
BenchReport anchoredReport(double candidateNs, double referenceNs,
                           uint64_t seed, uint32_t samples = 30) {
  SyntheticSpec spec;
  SyntheticBenchmark b;
  b.name = "saxpy";
  b.medianNs = candidateNs;
  b.referenceScale = referenceNs / candidateNs;
  spec.benchmarks = {b};
  spec.samples = samples;
  spec.seed = seed;
  return makeSyntheticReport(spec);
}

const RowComparison &row(const Comparison &c, const std::string &id) {
  for (const RowComparison &r : c.rows)
    if (r.id == id)
      return r;
  ADD_FAILURE() << "no row " << id;
  static RowComparison none;
  return none;
}

// Two runs of one build where the whole NEW run was 1.7x slower (another
// job on the shared CPU): candidate and reference alike. The reference is
// the same object in both reports, so it measures the drift, and the
// candidate is the same kernel relative to it.
TEST(CompareAnchored, AWholeRunThatDriftedIsNotARegression) {
  BenchReport base = anchoredReport(2000, 3000, 1);
  BenchReport fresh = anchoredReport(2000 * 1.7, 3000 * 1.7, 2);
  Comparison c = compare(base, fresh);
  const RowComparison &cand = row(c, "saxpy/candidate/cold");
  EXPECT_EQ(cand.verdict, Verdict::Same);
  EXPECT_NEAR(cand.rawRatio, 1.7, 0.05);
  ASSERT_TRUE(cand.drift.has_value());
  EXPECT_NEAR(*cand.drift, 1.7, 0.05);
  EXPECT_NEAR(cand.ratio, 1.0, 0.03);
  EXPECT_EQ(cand.anchor, "saxpy/reference/cold");
  // The anchor measured the drift the noise term stands in for: δ decides.
  EXPECT_EQ(cand.bandFrom, "threshold");
  // The reference is the ruler: no verdict of its own.
  EXPECT_EQ(row(c, "saxpy/reference/cold").verdict, Verdict::Anchor);
  EXPECT_EQ(c.count(Verdict::Slower), 0u);
  EXPECT_FALSE(c.hasRegression()); // compare exits 0
  ASSERT_TRUE(c.driftGeomean().has_value());
  EXPECT_NEAR(*c.driftGeomean(), 1.7, 0.05);
  ASSERT_TRUE(c.geomeanRatio.has_value());
  EXPECT_NEAR(*c.geomeanRatio, 1.0, 0.03); // the anchor is not in it
  // Raw and anchored change side by side, and the drift named.
  std::string md = renderComparisonMarkdown(c);
  EXPECT_NE(md.find("| change | anchored |"), std::string::npos) << md;
  EXPECT_NE(md.find("Drift between the runs: +69"), std::string::npos) << md;
  EXPECT_NE(md.find("| ANCHOR "), std::string::npos) << md;
  EXPECT_NE(md.find("1 anchor**"), std::string::npos) << md;
  // The bug, with anchoring off: SLOWER for an identical build.
  CompareOptions raw;
  raw.anchors = false;
  Comparison off = compare(base, fresh, raw);
  EXPECT_EQ(row(off, "saxpy/candidate/cold").verdict, Verdict::Slower);
  EXPECT_FALSE(row(off, "saxpy/candidate/cold").drift.has_value());
  EXPECT_TRUE(off.hasRegression());
  EXPECT_NE(renderComparisonMarkdown(off).find("Anchors off"),
            std::string::npos);
}

// A candidate that really became 1.45x slower, in a NEW run that was 0.6x
// (faster machine state): raw, it looks 13 % faster; anchored, it is SLOWER.
TEST(CompareAnchored, ASlowdownHiddenByDriftIsSlower) {
  BenchReport base = anchoredReport(2000, 3000, 1);
  BenchReport fresh = anchoredReport(2000 * 1.45 * 0.6, 3000 * 0.6, 2);
  Comparison c = compare(base, fresh);
  const RowComparison &cand = row(c, "saxpy/candidate/cold");
  EXPECT_NEAR(cand.rawRatio, 0.87, 0.03);
  EXPECT_EQ(cand.verdict, Verdict::Slower);
  EXPECT_NEAR(cand.ratio, 1.45, 0.05);
  EXPECT_LT(cand.low, cand.ratio);
  EXPECT_GT(cand.high, cand.ratio);
  EXPECT_TRUE(c.hasRegression());
  EXPECT_EQ(row(c, "saxpy/reference/cold").verdict, Verdict::Anchor);
  // Raw, the gate would have passed a 45 % slowdown.
  CompareOptions raw;
  raw.anchors = false;
  EXPECT_EQ(row(compare(base, fresh, raw), "saxpy/candidate/cold").verdict,
            Verdict::Faster);
}

/// Multiplies round i of every timing of |report| (candidate and reference
/// alike) by a load factor drawn in [0.6, 1.6) from |seed|: load that
/// changes within a run, as a shared CPU's other jobs do.
void loadWithinRun(BenchReport &report, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<double> factors(64);
  for (double &f : factors)
    f = 0.6 + double(random() % 1000) / 1000.0;
  for (Benchmark &b : report.benchmarks)
    for (Variant &v : b.variants)
      for (Timing &t : v.timings)
        for (size_t i = 0; i < t.samples.size(); ++i)
          t.samples[i].gpuNs *= factors[i % factors.size()];
}

// Load that changes within each run hides a 20 % slowdown from the medians
// (their spread is the load's), not from the per-round ratios candidate_i /
// reference_i, which the load divides out.
TEST(CompareAnchored, PairsSeeASlowdownThatLoadWithinARunHides) {
  BenchReport base = anchoredReport(2000, 3000, 1, 12);
  BenchReport fresh = anchoredReport(2000 * 1.2, 3000, 2, 12);
  loadWithinRun(base, 11);
  loadWithinRun(fresh, 12);
  Comparison c = compare(base, fresh);
  const RowComparison &cand = row(c, "saxpy/candidate/cold");
  EXPECT_TRUE(cand.paired);
  EXPECT_EQ(cand.verdict, Verdict::Slower);
  EXPECT_NEAR(cand.ratio, 1.2, 0.03);
  EXPECT_NE(renderComparisonMarkdown(c).find("pair by pair"),
            std::string::npos);
  // On medians only, the load's spread leaves it undecided.
  CompareOptions medians;
  medians.pairedAnchors = false;
  const RowComparison &m =
      row(compare(base, fresh, medians), "saxpy/candidate/cold");
  EXPECT_FALSE(m.paired);
  EXPECT_EQ(m.verdict, Verdict::Inconclusive);
  // And an identical build under the same load is no change: SAME, or
  // INCONCLUSIVE where 12 pairs cannot show it within ±2 %.
  BenchReport again = anchoredReport(2000, 3000, 3, 12);
  loadWithinRun(again, 13);
  Comparison aa = compare(base, again);
  const RowComparison &same = row(aa, "saxpy/candidate/cold");
  EXPECT_TRUE(same.paired);
  EXPECT_NEAR(same.ratio, 1.0, 0.02);
  EXPECT_FALSE(aa.hasRegression());
  EXPECT_NE(same.verdict, Verdict::Faster);
}

// A discarded sample (a throttled round on CUDA) shifts the rounds of one
// side against the other: no pairs there, the medians rule.
TEST(CompareAnchored, ADiscardedSampleLeavesTheMediansRule) {
  BenchReport base = anchoredReport(2000, 3000, 1, 12);
  BenchReport fresh = anchoredReport(2000 * 1.2, 3000, 2, 12);
  for (Variant &v : fresh.benchmarks[0].variants)
    if (v.name == "candidate")
      v.timings[0].discarded = 1;
  const RowComparison &cand = row(compare(base, fresh), "saxpy/candidate/cold");
  EXPECT_FALSE(cand.paired);
  EXPECT_EQ(cand.verdict, Verdict::Slower); // no load here: medians suffice
}

// A reference that changed (another compiler, other code) measures the
// change as well as the drift: no anchor, today's rule, and the reference
// row gets its own verdict.
TEST(CompareAnchored, AChangedReferenceIsNoAnchor) {
  BenchReport base = anchoredReport(2000, 3000, 1);
  BenchReport fresh = anchoredReport(2000 * 1.7, 3000 * 1.7, 2);
  fresh.benchmarks[0].variants[1].objectSha256 = std::string(64, 'e');
  Comparison c = compare(base, fresh);
  EXPECT_FALSE(row(c, "saxpy/candidate/cold").drift.has_value());
  EXPECT_EQ(row(c, "saxpy/candidate/cold").verdict, Verdict::Slower);
  EXPECT_EQ(row(c, "saxpy/reference/cold").verdict, Verdict::Slower);
  EXPECT_FALSE(c.driftGeomean().has_value());
  // No identity recorded (an empty object_sha256): no anchor either.
  fresh.benchmarks[0].variants[1].objectSha256.clear();
  base.benchmarks[0].variants[1].objectSha256.clear();
  EXPECT_FALSE(row(compare(base, fresh), "saxpy/candidate/cold").drift);
  // Another workload: the same object on another problem is no ruler.
  fresh = anchoredReport(2000 * 1.7, 3000 * 1.7, 2);
  fresh.benchmarks[0].workload = "n=2097152";
  EXPECT_FALSE(
      row(compare(anchoredReport(2000, 3000, 1), fresh), "saxpy/candidate/cold")
          .drift);
}

// An anchor needs the minimum sample count too: a correction from 3
// samples is as confidently wrong as a verdict from 3.
TEST(CompareAnchored, AnAnchorWithTooFewSamplesIsInconclusive) {
  BenchReport base = anchoredReport(2000, 3000, 1);
  BenchReport fresh = anchoredReport(2000 * 1.7, 3000 * 1.7, 2);
  std::vector<Sample> &samples =
      fresh.benchmarks[0].variants[1].timings[0].samples;
  samples.resize(3);
  Comparison c = compare(base, fresh);
  const RowComparison &cand = row(c, "saxpy/candidate/cold");
  EXPECT_EQ(cand.verdict, Verdict::Inconclusive);
  EXPECT_EQ(cand.why, "anchor: 3 samples < 10 in NEW");
  EXPECT_FALSE(c.hasRegression());
}

// With history, the spread that widens an anchored row's band is that of
// its per-run medians relative to the anchor's: three base runs that
// drifted as wholes by ±30 % are no noisy history.
TEST(CompareAnchored, HistoryOfDriftedRunsIsNotNoise) {
  std::vector<BenchReport> bases = {anchoredReport(2000, 3000, 1),
                                    anchoredReport(2600, 3900, 2),
                                    anchoredReport(1400, 2100, 3)};
  BenchReport fresh = anchoredReport(2000 * 1.3, 3000, 4);
  StatusOr<Comparison> c = compareReports(bases, fresh, {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  const RowComparison &cand = row(*c, "saxpy/candidate/cold");
  ASSERT_TRUE(cand.runToRunNoise.has_value());
  EXPECT_LT(*cand.runToRunNoise, 0.02);
  EXPECT_EQ(cand.verdict, Verdict::Slower);
}

/// Anchors whose times never vary divide the interval by their ratio: the
/// anchored interval is the raw one over the drift (within Monte Carlo
/// error).
TEST(Bootstrap, AnAnchorWithoutNoiseDividesTheInterval) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dist(0, 0.1);
  std::vector<double> a(31), b(31), anchorBase(20, 1000), anchorNew(20, 1600);
  for (double &x : a)
    x = 1000 * dist(rng);
  for (double &x : b)
    x = 1200 * dist(rng);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  MedianRatioBootstrap bootstrap(20000, 0.95);
  RatioInterval raw = bootstrap.intervalOfSorted(a, b, 3);
  RatioInterval anchored =
      bootstrap.anchoredIntervalOfSorted({&a, &b, &anchorBase, &anchorNew}, 3);
  double width = (raw.high - raw.low) / 1.6;
  EXPECT_DOUBLE_EQ(anchored.ratio, raw.ratio / 1.6);
  EXPECT_NEAR(anchored.low, raw.low / 1.6, 0.05 * width);
  EXPECT_NEAR(anchored.high, raw.high / 1.6, 0.05 * width);
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

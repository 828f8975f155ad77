//===- workbench/report/compare_json_test.cpp - `compare --json` ----------===//
#include "workbench/report/compare_json.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>

namespace kb::report {
namespace {

/// One benchmark, "saxpy", candidate and reference (30 samples each).
BenchReport anchored(double candidateNs, double referenceNs, uint64_t seed,
                     uint32_t samples = 30) {
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

/// |base| against |fresh|, rendered and read back through the same tables.
CompareDocument roundTrip(const BenchReport &base, const BenchReport &fresh,
                          CompareOptions options = {},
                          std::string failOn = "slower") {
  StatusOr<Comparison> c = compareReports({base}, fresh, options);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok())
    return {};
  StatusOr<std::string> text =
      renderCompareJson(makeCompareDocument(*c, std::move(failOn)));
  EXPECT_TRUE(text.ok()) << text.status().message();
  StatusOr<CompareDocument> read =
      parseCompareJson(text.ok() ? *text : "", "compare.json");
  EXPECT_TRUE(read.ok()) << read.status().message();
  return read.ok() ? *read : CompareDocument();
}

const RowComparison *findRow(const CompareDocument &d, const std::string &id) {
  for (const RowComparison &r : d.rows)
    if (r.id == id)
      return &r;
  return nullptr;
}

TEST(CompareJson, AnchoredRowsCarryRatioDriftAndInterval) {
  // The whole NEW run 1.7x slower, the candidate 1.45x slower than that.
  CompareDocument d = roundTrip(anchored(2000, 3000, 1),
                                anchored(2000 * 1.7 * 1.45, 3000 * 1.7, 2));
  EXPECT_EQ(d.format, "kernel-bench/compare");
  EXPECT_EQ(d.schemaVersion, kCompareSchemaVersion);
  EXPECT_DOUBLE_EQ(d.options.threshold, 0.02);
  EXPECT_EQ(d.options.failOn, "slower");
  EXPECT_EQ(d.options.anchor, "reference");
  const RowComparison *cand = findRow(d, "saxpy/candidate/cold");
  ASSERT_NE(cand, nullptr);
  EXPECT_EQ(cand->verdict, Verdict::Slower);
  EXPECT_NEAR(cand->ratio, 1.45, 0.05);
  EXPECT_NEAR(cand->rawRatio, 1.7 * 1.45, 0.08);
  ASSERT_TRUE(cand->drift.has_value());
  EXPECT_NEAR(*cand->drift, 1.7, 0.05);
  EXPECT_EQ(cand->anchor, "saxpy/reference/cold");
  EXPECT_LT(cand->low, cand->ratio);
  EXPECT_GT(cand->high, cand->ratio);
  EXPECT_EQ(cand->baseSamples, 30u);
  EXPECT_EQ(cand->newSamples, 30u);
  const RowComparison *ref = findRow(d, "saxpy/reference/cold");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(ref->verdict, Verdict::Anchor);
  EXPECT_EQ(d.totals.slower, 1u);
  EXPECT_EQ(d.totals.anchors, 1u);
  EXPECT_TRUE(d.totals.regression);
  ASSERT_TRUE(d.totals.drift.has_value());
  EXPECT_NEAR(*d.totals.drift, 1.7, 0.05);
}

TEST(CompareJson, EveryInconclusiveRowSaysWhy) {
  CompareOptions deltaOnly;
  deltaOnly.noiseFactor = 0;
  deltaOnly.anchors = false;
  // Too few samples on one side, and an interval that straddles the band.
  CompareDocument few = roundTrip(anchored(2000, 3000, 1, 5),
                                  anchored(2000, 3000, 2, 30), deltaOnly);
  for (const RowComparison &r : few.rows) {
    EXPECT_EQ(r.verdict, Verdict::Inconclusive) << r.id;
    EXPECT_EQ(r.why, "5 samples < 10 in BASE") << r.id;
  }
  SyntheticSpec noisy = scaledSpec({"copy"}, 1, 0.3, 1, 10);
  SyntheticSpec noisier = scaledSpec({"copy"}, 1.03, 0.3, 2, 10);
  CompareDocument straddles =
      roundTrip(makeSyntheticReport(noisy), makeSyntheticReport(noisier),
                deltaOnly, "inconclusive");
  ASSERT_EQ(straddles.rows.size(), 1u);
  EXPECT_EQ(straddles.rows[0].verdict, Verdict::Inconclusive);
  EXPECT_NE(straddles.rows[0].why.find("straddles an edge of the band"),
            std::string::npos)
      << straddles.rows[0].why;
  EXPECT_EQ(straddles.options.failOn, "inconclusive");
  EXPECT_EQ(straddles.options.anchor, "none");
  EXPECT_EQ(straddles.totals.inconclusive, 1u);
  EXPECT_FALSE(straddles.totals.regression);
}

TEST(CompareJson, UncomparableAndOneSidedRowsAreListed) {
  BenchReport base =
      makeSyntheticReport(scaledSpec({"a", "b"}, 1, 0.01, 1, 20));
  BenchReport fresh =
      makeSyntheticReport(scaledSpec({"b", "c"}, 1, 0.01, 2, 20));
  fresh.benchmarks[0].status = BenchStatus::Error;
  fresh.benchmarks[0].reason = "kernel faulted";
  fresh.benchmarks[0].variants.clear();
  CompareDocument d = roundTrip(base, fresh);
  EXPECT_TRUE(d.rows.empty());
  ASSERT_EQ(d.uncomparable.size(), 1u);
  EXPECT_EQ(d.uncomparable[0].id, "b");
  EXPECT_EQ(d.uncomparable[0].why, "error in NEW: kernel faulted");
  EXPECT_TRUE(d.uncomparable[0].newIsBroken);
  EXPECT_EQ(d.onlyInBase, std::vector<std::string>{"a/candidate/cold"});
  EXPECT_EQ(d.onlyInNew, std::vector<std::string>{"c/candidate/cold"});
  EXPECT_EQ(d.totals.uncomparable, 1u);
  EXPECT_EQ(d.totals.onlyInBase, 1u);
  EXPECT_EQ(d.totals.onlyInNew, 1u);
  EXPECT_TRUE(d.totals.regression);
  EXPECT_FALSE(d.totals.geomeanRatio.has_value());
}

TEST(CompareJson, TheReaderRefusesWhatItDidNotWrite) {
  StatusOr<CompareDocument> r = parseCompareJson("{\"format\": 1", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("t.json: not a JSON object"),
            std::string::npos);
  r = parseCompareJson(R"({"format": "kernel-bench/bench"})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a kernel-bench comparison"),
            std::string::npos);
  r = parseCompareJson(
      R"({"format": "kernel-bench/compare", "schema_version": 99})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("schema_version"), std::string::npos);
  r = parseCompareJson(
      R"({"format": "kernel-bench/compare", "schema_version": 1})", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("options"), std::string::npos)
      << r.status().message();
}

} // namespace
} // namespace kb::report

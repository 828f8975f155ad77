//===- workbench/report/merge_test.cpp - Merging shard reports ------------===//
#include "workbench/report/merge.h"

#include "workbench/report/bench_json.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kb::report {
namespace {

constexpr uint32_t kShards = 3;

BenchReport wholeRun() {
  SyntheticSpec spec;
  for (int i = 0; i < 7; ++i)
    spec.benchmarks.push_back({"bench_" + std::to_string(i)});
  BenchReport r = makeSyntheticReport(spec);
  r.build.buildJsonSha256 = std::string(64, 'a');
  return r;
}

/// Shard |index| of wholeRun(), as `bench --shard index/3` writes it.
MergeInput shard(uint32_t index, const BenchReport &whole) {
  BenchReport r = whole;
  r.benchmarks.clear();
  ShardInfo info{index, kShards, "--shard", "count", {}};
  for (size_t i = 0; i < whole.benchmarks.size(); ++i) {
    uint32_t s = static_cast<uint32_t>(i % kShards);
    info.plan.push_back({whole.benchmarks[i].name, s});
    if (s == index)
      r.benchmarks.push_back(whole.benchmarks[i]);
  }
  r.shard = info;
  return {"shard" + std::to_string(index) + ".json", r};
}

std::vector<std::string> names(const BenchReport &r) {
  std::vector<std::string> out;
  for (const Benchmark &b : r.benchmarks)
    out.push_back(b.name);
  return out;
}

TEST(MergeTest, ShardsInAnyOrderGiveTheUnshardedRun) {
  BenchReport whole = wholeRun();
  auto merged =
      mergeReports({shard(2, whole), shard(0, whole), shard(1, whole)}, {});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(names(merged->merged), names(whole));
  EXPECT_FALSE(merged->merged.shard);
  EXPECT_TRUE(merged->missing.empty());
  EXPECT_EQ(merged->merged.device.name, whole.device.name);
  // Timings travel unchanged.
  EXPECT_EQ(merged->merged.benchmarks[4].variants[0].timings[0].summary.median,
            whole.benchmarks[4].variants[0].timings[0].summary.median);
}

TEST(MergeTest, MissingShardIsListedByBenchmark) {
  BenchReport whole = wholeRun();
  auto refused = mergeReports({shard(0, whole), shard(2, whole)}, {});
  ASSERT_FALSE(refused.ok());
  const std::string &m = refused.status().message();
  EXPECT_NE(m.find("missing shards: 2 of 7"), std::string::npos) << m;
  EXPECT_NE(m.find("bench_1 (shard 1/3, no report)"), std::string::npos) << m;
  EXPECT_NE(m.find("bench_4 (shard 1/3, no report)"), std::string::npos) << m;

  MergeOptions allow;
  allow.allowMissing = true;
  auto merged = mergeReports({shard(0, whole), shard(2, whole)}, allow);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->missing.size(), 2u);
  EXPECT_EQ(merged->merged.benchmarks.size(), 5u);
  bool warned = false;
  for (const std::string &w : merged->merged.environment.warnings)
    warned |= w.find("incomplete") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(MergeTest, AnInterruptedShardIsMissingNotSilentlyDropped) {
  BenchReport whole = wholeRun();
  MergeInput cut = shard(1, whole);
  cut.report.benchmarks.pop_back(); // bench_4 never finished
  cut.report.interrupted = true;
  auto refused = mergeReports({shard(0, whole), cut, shard(2, whole)}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "bench_4 (shard 1/3, interrupted or stopped)"),
            std::string::npos)
      << refused.status().message();
}

TEST(MergeTest, OverlappingShardsAreRefusedNamingBoth) {
  BenchReport whole = wholeRun();
  MergeInput again = shard(1, whole);
  again.source = "copy.json";
  auto refused = mergeReports(
      {shard(0, whole), shard(1, whole), again, shard(2, whole)}, {});
  ASSERT_FALSE(refused.ok());
  const std::string &m = refused.status().message();
  EXPECT_NE(m.find("overlapping shards"), std::string::npos) << m;
  EXPECT_NE(m.find("bench_1 in shard1.json (shard 1/3) and copy.json "
                   "(shard 1/3)"),
            std::string::npos)
      << m;
}

TEST(MergeTest, DifferentBuildsAndDevicesAreRefusedUnlessAllowed) {
  BenchReport whole = wholeRun();
  MergeInput other = shard(2, whole);
  other.report.build.buildJsonSha256 = std::string(64, 'b');
  auto refused = mergeReports({shard(0, whole), shard(1, whole), other}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("different builds"),
            std::string::npos);
  MergeOptions allowBuilds;
  allowBuilds.allowDifferentBuilds = true;
  EXPECT_TRUE(
      mergeReports({shard(0, whole), shard(1, whole), other}, allowBuilds)
          .ok());

  MergeInput gpu = shard(2, whole);
  gpu.report.device.name = "Other GPU";
  refused = mergeReports({shard(0, whole), shard(1, whole), gpu}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("Other GPU"), std::string::npos);
  MergeOptions allowDevices;
  allowDevices.allowDifferentDevices = true;
  EXPECT_TRUE(
      mergeReports({shard(0, whole), shard(1, whole), gpu}, allowDevices).ok());
}

TEST(MergeTest, AProfileShardAndATimedOneAreRefused) {
  BenchReport whole = wholeRun();
  MergeInput profiled = shard(2, whole);
  profiled.report.settings.profile = true;
  auto merged = mergeReports({shard(0, whole), shard(1, whole), profiled}, {});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find(
                "shard2.json is a `bench --profile` report (run under "
                "profiler labels, not timed) and shard0.json a timed report"),
            std::string::npos)
      << merged.status().message();
}

TEST(MergeTest, ASanitizeShardAndATimedOneAreRefused) {
  BenchReport whole = wholeRun();
  MergeInput checked = shard(1, whole);
  checked.report.settings.sanitize = true;
  auto merged = mergeReports({shard(0, whole), checked, shard(2, whole)}, {});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find(
                "shard1.json is a `bench --sanitize` report"),
            std::string::npos)
      << merged.status().message();
}

TEST(MergeTest, AnEmptyShardWithoutADeviceMerges) {
  BenchReport whole = wholeRun();
  MergeInput empty = shard(0, whole);
  empty.report.benchmarks.clear();
  empty.report.device = DeviceInfo{};
  for (ShardAssignment &a : empty.report.shard->plan)
    if (a.shard == 0)
      a.shard = 1; // a plan in which shard 0 got nothing
  MergeInput one = shard(1, whole), two = shard(2, whole);
  one.report.shard->plan = empty.report.shard->plan;
  two.report.shard->plan = empty.report.shard->plan;
  for (const Benchmark &b : whole.benchmarks)
    if (b.name == "bench_0" || b.name == "bench_3" || b.name == "bench_6")
      one.report.benchmarks.push_back(b);
  auto merged = mergeReports({empty, one, two}, {});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->merged.benchmarks.size(), 7u);
  EXPECT_EQ(merged->merged.device.name, whole.device.name);
}

TEST(MergeTest, DifferentlyPlannedShardsAreRefused) {
  BenchReport whole = wholeRun();
  MergeInput other = shard(2, whole);
  other.report.shard->balance = "time in prev.json";
  std::swap(other.report.shard->plan[0].shard,
            other.report.shard->plan[2].shard);
  auto refused = mergeReports({shard(0, whole), shard(1, whole), other}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("sharded differently"),
            std::string::npos);
}

TEST(MergeTest, ShardRecordRoundTripsAndIsOptionalOnRead) {
  BenchReport whole = wholeRun();
  MergeInput s = shard(1, whole);
  auto text = renderBenchJson(s.report);
  ASSERT_TRUE(text.ok());
  auto back = parseBenchJson(*text, "s.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->shard);
  EXPECT_EQ(back->shard->index, 1u);
  EXPECT_EQ(back->shard->plan.size(), 7u);
  EXPECT_EQ(back->shard->plan[4].benchmark, "bench_4");

  // A report written before the key existed reads as unsharded.
  nlohmann::json j = nlohmann::json::parse(*text);
  j.erase("shard");
  auto old = parseBenchJson(j.dump(), "old.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_FALSE(old->shard);

  j["shard"] = nlohmann::json::parse(*text)["shard"];
  j["shard"]["index"] = 3;
  auto bad = parseBenchJson(j.dump(), "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.json: shard.index"),
            std::string::npos)
      << bad.status().message();
}

} // namespace
} // namespace kb::report

//===- workbench/bench/shard_test.cpp - Shard selection and assignment ----===//
#include "workbench/bench/shard.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace kb::workbench {
namespace {

/// resolveShard with |vars| as the whole environment.
StatusOr<std::optional<ShardSpec>>
resolve(std::map<std::string, std::string> vars, const std::string &flag = "",
        std::optional<uint32_t> count = std::nullopt) {
  return resolveShard(flag, count, [vars](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

void expectShard(const StatusOr<std::optional<ShardSpec>> &s, uint32_t index,
                 uint32_t count, const std::string &sourcePart) {
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->index, index);
  EXPECT_EQ((*s)->count, count);
  EXPECT_NE((*s)->source.find(sourcePart), std::string::npos) << (*s)->source;
}

void expectUsage(const StatusOr<std::optional<ShardSpec>> &s,
                 const std::string &messagePart) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.status().message().find(messagePart), std::string::npos)
      << s.status().message();
}

TEST(ShardTest, NoFlagNoEnvironmentIsUnsharded) {
  auto s = resolve({});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->has_value());
}

TEST(ShardTest, FlagWinsOverTheEnvironment) {
  expectShard(resolve({{"KB_SHARD_INDEX", "5"}}, "1/3"), 1, 3, "--shard 1/3");
  expectUsage(resolve({}, "3/3"), "out of range for 3 shards");
  expectUsage(resolve({}, "0/0"), "count of 0");
  for (std::string bad : {"1", "a/3", "1/", "/3", "-1/3", "1/3/4", " 1/3"})
    expectUsage(resolve({}, bad), "expected I/N");
  expectUsage(resolve({}, "0/2", 2u), "already gives the count");
}

TEST(ShardTest, KubernetesIndexedJob) {
  expectShard(resolve({{"JOB_COMPLETION_INDEX", "2"}}, "", 4u), 2, 4,
              "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=2");
  expectShard(resolve({{"JOB_COMPLETION_INDEX", "0"}, {"KB_SHARD_COUNT", "3"}}),
              0, 3, "KB_SHARD_COUNT=3");
  expectUsage(resolve({{"JOB_COMPLETION_INDEX", "1"}}),
              "pass --shard-count N or set KB_SHARD_COUNT");
  expectUsage(resolve({{"JOB_COMPLETION_INDEX", "3"}, {"KB_SHARD_COUNT", "3"}}),
              "out of range");
  expectUsage(resolve({{"JOB_COMPLETION_INDEX", "0"}, {"KB_SHARD_COUNT", "0"}}),
              "count of 0");
}

TEST(ShardTest, SlurmArrays) {
  // --array=0-3
  expectShard(resolve({{"SLURM_ARRAY_TASK_ID", "2"},
                       {"SLURM_ARRAY_TASK_MIN", "0"},
                       {"SLURM_ARRAY_TASK_MAX", "3"},
                       {"SLURM_ARRAY_TASK_STEP", "1"},
                       {"SLURM_ARRAY_TASK_COUNT", "4"}}),
              2, 4, "Slurm job array");
  // --array=10-40:10 → task 30 is shard 2 of 4.
  expectShard(resolve({{"SLURM_ARRAY_TASK_ID", "30"},
                       {"SLURM_ARRAY_TASK_MIN", "10"},
                       {"SLURM_ARRAY_TASK_MAX", "40"},
                       {"SLURM_ARRAY_TASK_STEP", "10"},
                       {"SLURM_ARRAY_TASK_COUNT", "4"}}),
              2, 4, "SLURM_ARRAY_TASK_ID=30");
  // --array=1,6-7,12: four tasks that are not MIN + k*STEP.
  expectUsage(resolve({{"SLURM_ARRAY_TASK_ID", "6"},
                       {"SLURM_ARRAY_TASK_MIN", "1"},
                       {"SLURM_ARRAY_TASK_MAX", "12"},
                       {"SLURM_ARRAY_TASK_STEP", "1"},
                       {"SLURM_ARRAY_TASK_COUNT", "4"}}),
              "the array is sparse");
  expectUsage(resolve({{"SLURM_ARRAY_TASK_ID", "12"},
                       {"SLURM_ARRAY_TASK_MIN", "1"},
                       {"SLURM_ARRAY_TASK_STEP", "1"},
                       {"SLURM_ARRAY_TASK_COUNT", "4"}}),
              "the array is sparse");
  expectUsage(resolve({{"SLURM_ARRAY_TASK_ID", "1"},
                       {"SLURM_ARRAY_TASK_MIN", "0"},
                       {"SLURM_ARRAY_TASK_STEP", "2"},
                       {"SLURM_ARRAY_TASK_COUNT", "4"}}),
              "the array is sparse");
  expectUsage(resolve({{"SLURM_ARRAY_TASK_ID", "1"}}),
              "SLURM_ARRAY_TASK_COUNT is not set");
  expectUsage(resolve({{"SLURM_ARRAY_TASK_ID", "x"},
                       {"SLURM_ARRAY_TASK_MIN", "0"},
                       {"SLURM_ARRAY_TASK_COUNT", "4"}}),
              "SLURM_ARRAY_TASK_ID=x: expected a non-negative integer");
}

TEST(ShardTest, GenericVariablesAndConflicts) {
  expectShard(resolve({{"KB_SHARD_INDEX", "1"}, {"KB_SHARD_COUNT", "2"}}), 1, 2,
              "KB_SHARD_INDEX=1, KB_SHARD_COUNT=2");
  expectUsage(resolve({{"KB_SHARD_INDEX", "1"}}), "shard count is not");
  expectUsage(resolve({{"KB_SHARD_COUNT", "2"}}), "no shard index");
  expectUsage(resolve({{"KB_SHARD_INDEX", "0"},
                       {"KB_SHARD_COUNT", "2"},
                       {"JOB_COMPLETION_INDEX", "0"}}),
              "JOB_COMPLETION_INDEX (Kubernetes) and by KB_SHARD_INDEX");
}

/// The property: over many counts and list sizes, with equal and random
/// weights, every item is in exactly one shard, in range, and the same
/// inputs give the same assignment.
TEST(ShardTest, EveryItemInExactlyOneShard) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> weight(0.0, 5.0);
  for (uint32_t count = 1; count <= 17; ++count)
    for (size_t items = 0; items <= 60; items += (items < 20 ? 1 : 7))
      for (bool random : {false, true}) {
        std::vector<double> w(items, 1.0);
        if (random)
          for (double &x : w)
            x = weight(rng);
        std::vector<uint32_t> a = assignShards(w, count);
        ASSERT_EQ(a.size(), items);
        std::vector<size_t> perShard(count, 0);
        for (uint32_t s : a) {
          ASSERT_LT(s, count);
          ++perShard[s];
        }
        size_t total = 0;
        for (size_t n : perShard)
          total += n;
        EXPECT_EQ(total, items);
        EXPECT_EQ(assignShards(w, count), a) << "not deterministic";
        if (!random) {
          auto [lo, hi] = std::minmax_element(perShard.begin(), perShard.end());
          EXPECT_LE(*hi - *lo, 1u) << "count " << count << " items " << items;
        }
      }
}

TEST(ShardTest, TimeBalanceBeatsCountBalanceOnSkewedTimes) {
  // One 10 s benchmark and nine of 1 s over two shards: by count, one
  // shard gets 10+4 s; by time, 10 s vs 9 s.
  std::vector<double> w = {1, 1, 1, 1, 10, 1, 1, 1, 1, 1};
  std::vector<uint32_t> a = assignShards(w, 2);
  double load[2] = {0, 0};
  for (size_t i = 0; i < w.size(); ++i)
    load[a[i]] += w[i];
  EXPECT_EQ(std::max(load[0], load[1]), 10.0);
}

TEST(ShardTest, WeightsFromAPreviousReport) {
  report::BenchReport prev;
  report::Benchmark b;
  b.name = "fast";
  report::Variant v;
  report::Timing t;
  t.dispatchesPerSample = 4;
  t.samples = {{0, 1e9, {}}, {0, 1e9, {}}}; // 2 samples × 1 s × 4
  v.timings.push_back(t);
  b.variants.push_back(v);
  prev.benchmarks.push_back(b);
  std::map<std::string, double> seconds = benchmarkSeconds(prev);
  EXPECT_DOUBLE_EQ(seconds["fast"], 8.0);
  std::vector<double> w = shardWeights({"fast", "new"}, seconds);
  EXPECT_DOUBLE_EQ(w[0], 8.0);
  EXPECT_DOUBLE_EQ(w[1], 8.0); // unknown: the mean of the known ones
  EXPECT_EQ(shardWeights({"a"}, {}), std::vector<double>{1.0});
}

} // namespace
} // namespace kb::workbench

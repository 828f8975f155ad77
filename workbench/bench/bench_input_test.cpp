//===- workbench/bench/bench_input_test.cpp - Shards of a real build ------===//
//
// The sharding property through the code every runner runs
// (openBenchInput: plan the build's benchmarks, resolve the shard, pick its
// share), each shard computed on its own as separate runners do: over many
// shard counts and benchmark counts, balanced by count, by a previous
// report's times and from the engines' environments, every benchmark runs in
// exactly one shard. The modules are junk bytes: a module that cannot be
// read is still one planned benchmark (an ERROR row), which is all sharding
// needs; no device is touched.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/bench_input.h"

#include "toolchains/scratch_dir.h"
#include "workbench/report/bench_json.h"
#include "workbench/report/synthetic_report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

using Env = std::map<std::string, std::string>;

/// A build directory with |count| benchmark modules, some standalone and one
/// the program, as `bench` finds them.
void writeBuild(const fs::path &dir, size_t count) {
  fs::remove_all(dir);
  fs::create_directories(dir / "bench");
  std::ofstream(dir / "build.json")
      << "{\"schema_version\": 1, \"jobs\": []}\n";
  for (size_t i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "b%03zu.kbm", i);
    fs::path file = i % 5 == 4 ? dir / "standalone" / name / "bench" / name
                    : i == 7   ? dir / "program.kbm"
                               : dir / "bench" / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "not a module " << i;
  }
}

/// The benchmark names shard |index| of |count| runs, computed as a runner
/// with |env| (on top of the flags) computes them.
std::vector<std::string> shardNames(const std::string &build,
                                    const ShardFlags &flags, const Env &env) {
  auto input = openBenchInput(build, {}, flags, [&](const char *name) {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  EXPECT_TRUE(input.ok()) << input.status().message();
  std::vector<std::string> names;
  if (input.ok())
    for (const PlannedBenchmark &p : input->planned)
      names.push_back(p.displayName);
  return names;
}

/// How a runner is told its shard: the flag, Kubernetes, Slurm (an array
/// --array=1-2N-1:2) or a CI matrix.
Env engineEnv(int engine, uint32_t index, uint32_t count, ShardFlags &flags) {
  std::string i = std::to_string(index), n = std::to_string(count);
  switch (engine) {
  case 0:
    flags.shard = i + "/" + n;
    return {};
  case 1:
    flags.count = count;
    return {{"JOB_COMPLETION_INDEX", i}};
  case 2:
    return {{"SLURM_ARRAY_TASK_ID", std::to_string(1 + 2 * index)},
            {"SLURM_ARRAY_TASK_MIN", "1"},
            {"SLURM_ARRAY_TASK_STEP", "2"},
            {"SLURM_ARRAY_TASK_MAX", std::to_string(1 + 2 * (count - 1))},
            {"SLURM_ARRAY_TASK_COUNT", n}};
  default:
    return {{"KB_SHARD_INDEX", i}, {"KB_SHARD_COUNT", n}};
  }
}

/// A previous report that knows some of the benchmarks (random times).
fs::path writeBalanceReport(const fs::path &dir,
                            const std::vector<std::string> &names,
                            std::mt19937_64 &rng) {
  report::SyntheticSpec spec;
  std::uniform_real_distribution<double> ns(1e3, 1e7);
  for (size_t i = 0; i < names.size(); i += 2)
    spec.benchmarks.push_back({names[i], ns(rng)});
  fs::path path = dir / "prev.json";
  EXPECT_TRUE(
      report::writeBenchJson(path, report::makeSyntheticReport(spec)).ok());
  return path;
}

TEST(BenchInputTest, EveryBenchmarkRunsInExactlyOneShard) {
  auto scratch = toolchains::ScratchDir::create();
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  fs::path build = scratch->path() / "build";
  std::mt19937_64 rng(15);
  for (size_t benchmarks = 1; benchmarks <= 40;
       benchmarks += benchmarks < 12 ? 1 : 7) {
    writeBuild(build, benchmarks);
    std::vector<std::string> all = shardNames(build.string(), {}, {});
    ASSERT_EQ(all.size(), benchmarks);
    fs::path prev = writeBalanceReport(scratch->path(), all, rng);
    for (uint32_t count = 1; count <= 9; ++count)
      for (int engine = 0; engine < 4; ++engine)
        for (bool byTime : {false, true}) {
          std::map<std::string, int> runs;
          for (uint32_t index = 0; index < count; ++index) {
            ShardFlags flags;
            if (byTime)
              flags.balanceReport = prev.string();
            Env env = engineEnv(engine, index, count, flags);
            for (const std::string &name :
                 shardNames(build.string(), flags, env))
              ++runs[name];
          }
          ASSERT_EQ(runs.size(), all.size())
              << benchmarks << " benchmarks, " << count << " shards, engine "
              << engine << (byTime ? ", by time" : ", by count");
          for (const auto &[name, times] : runs)
            ASSERT_EQ(times, 1) << name << ": " << benchmarks << " benchmarks, "
                                << count << " shards";
        }
  }
}

/// The same from a bundle, as the GPU runners read it (each shard extracts
/// its own copy).
TEST(BenchInputTest, EveryBenchmarkOfABundleRunsInExactlyOneShard) {
  auto scratch = toolchains::ScratchDir::create();
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  fs::path build = scratch->path() / "build";
  fs::path bundle = scratch->path() / "b.tar";
  writeBuild(build, 17);
  ASSERT_TRUE(createBundle(build, bundle).ok());
  for (uint32_t count : {1u, 3u, 5u}) {
    std::map<std::string, int> runs;
    for (uint32_t index = 0; index < count; ++index) {
      ShardFlags flags;
      flags.shard = std::to_string(index) + "/" + std::to_string(count);
      for (const std::string &name : shardNames(bundle.string(), flags, {}))
        ++runs[name];
    }
    ASSERT_EQ(runs.size(), 17u) << count << " shards";
    for (const auto &[name, times] : runs)
      EXPECT_EQ(times, 1) << name << ", " << count << " shards";
  }
}

/// A build.json or a --shard-balance report that is a FIFO or a device is
/// refused at once (DataLoss: exit 4), not waited on by every worker.
TEST(BenchInputTest, RefusesAFifoOrDeviceAsBuildRecordOrBalanceReport) {
  auto scratch = toolchains::ScratchDir::create();
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  fs::path build = scratch->path() / "build";
  writeBuild(build, 3);
  fs::path fifo = scratch->path() / "prev.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ::alarm(20); // a reader that opens the FIFO blocks: fail, do not hang
  ShardFlags flags;
  flags.shard = "0/2";
  flags.balanceReport = fifo.string();
  auto balanced = openBenchInput(build.string(), {}, flags, [](const char *) {
    return static_cast<const char *>(nullptr);
  });
  ASSERT_FALSE(balanced.ok());
  EXPECT_EQ(balanced.status().code(), StatusCode::DataLoss);
  EXPECT_NE(balanced.status().message().find("named pipe"), std::string::npos)
      << balanced.status().message();
  for (const char *target : {"fifo", "/dev/zero"}) {
    fs::remove(build / "build.json");
    if (std::string(target) == "fifo")
      ASSERT_EQ(::mkfifo((build / "build.json").c_str(), 0600), 0);
    else
      fs::create_symlink(target, build / "build.json");
    auto input = openBenchInput(build.string(), {}, {}, [](const char *) {
      return static_cast<const char *>(nullptr);
    });
    ASSERT_FALSE(input.ok()) << target;
    EXPECT_EQ(input.status().code(), StatusCode::DataLoss);
    EXPECT_NE(input.status().message().find("build.json"), std::string::npos)
        << input.status().message();
  }
  ::alarm(0);
}

} // namespace
} // namespace kb::workbench

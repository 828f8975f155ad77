//===- workbench/bench/shard.h - Which share of the benchmarks this -------===//
//
// `kernel-bench bench --shard I/N` (0-based I) runs one of N disjoint shares
// of a build's benchmarks, so that N GPU runners together run each benchmark
// exactly once. Without --shard the share comes from the environment of the
// engine that started the runner (resolveShard): a Kubernetes Indexed Job,
// a Slurm job array, or KB_SHARD_INDEX/KB_SHARD_COUNT (a CI matrix). The
// assignment (assignShards) depends only on the ordered benchmark list, the
// count and the weights, so every shard computes the same partition on its
// own: by count, or balanced by each benchmark's time in a previous report
// given identically to every shard (longest first, onto the least-loaded
// shard).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_SHARD_H_
#define KB_WORKBENCH_BENCH_SHARD_H_

#include "common/status.h"
#include "workbench/report/bench_results.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// The most shards a run may be split into.
inline constexpr uint32_t kMaxShards = 100000;

struct ShardSpec {
  uint32_t index = 0; // 0-based, < count
  uint32_t count = 1;
  /// Where it came from, for the user and the report: "--shard 1/3",
  /// "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=1, KB_SHARD_COUNT=3", ...
  std::string source;
};

/// Reads one environment variable; nullptr when unset.
using EnvLookup = std::function<const char *(const char *name)>;

/// The shard to run: from |flag| ("I/N") when given, else from the
/// environment (|countFlag| = --shard-count, the count of a Kubernetes
/// Indexed Job). nullopt when neither asks for sharding. InvalidArgument
/// (a usage error) for a malformed value, an index out of range, a count of
/// 0, a sparse Slurm array, a Kubernetes index without a count, or
/// environments of two engines at once; the message names the variables.
StatusOr<std::optional<ShardSpec>>
resolveShard(const std::string &flag, std::optional<uint32_t> countFlag,
             const EnvLookup &env);

/// The shard (0..count-1) of each item, in the items' order. |weights|
/// (one per item, >= 0) balance the shards' total weight: items heaviest
/// first (ties in list order) go to the least-loaded shard (ties: the
/// lowest index). Equal weights give shard sizes that differ by at most one.
std::vector<uint32_t> assignShards(const std::vector<double> &weights,
                                   uint32_t count);

/// Seconds each benchmark of |previous| took to sample: the host time of
/// every sample of every variant and mode (× dispatches per sample), keyed
/// by benchmark name ("program NAME" for the whole program).
std::map<std::string, double>
benchmarkSeconds(const report::BenchReport &previous);

/// One weight per name: its time in |seconds|, or for a benchmark the
/// previous report does not have, the mean of the known ones (1 when none
/// is known).
std::vector<double> shardWeights(const std::vector<std::string> &names,
                                 const std::map<std::string, double> &seconds);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_SHARD_H_

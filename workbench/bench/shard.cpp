//===- workbench/bench/shard.cpp - Which share of the benchmarks this runner
// runs
//===//
#include "workbench/bench/shard.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <numeric>

namespace kb::workbench {

namespace {

/// A decimal integer in [0, max], the whole of |text|.
std::optional<uint64_t> parseCount(const std::string &text,
                                   uint64_t max = kMaxShards) {
  if (text.empty() || text.size() > 12 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
  if (value > max)
    return std::nullopt;
  return value;
}

std::string envText(const EnvLookup &env, const char *name) {
  const char *value = env(name);
  return value ? value : "";
}

bool isSet(const EnvLookup &env, const char *name) {
  const char *value = env(name);
  return value && *value;
}

/// Reads the variable |name| as a non-negative integer.
StatusOr<uint64_t> envNumber(const EnvLookup &env, const char *name,
                             uint64_t max = UINT32_MAX) {
  std::string text = envText(env, name);
  if (text.empty())
    return invalidArgument(std::string(name) + " is not set");
  std::optional<uint64_t> value = parseCount(text, max);
  if (!value)
    return invalidArgument(std::string(name) + "=" + text +
                           ": expected a non-negative integer");
  return *value;
}

Status checkRange(const ShardSpec &s) {
  if (s.count == 0)
    return invalidArgument(s.source +
                           ": a shard count of 0 has no shard to run; the "
                           "count must be at least 1");
  if (s.count > kMaxShards)
    return invalidArgument(s.source + ": at most " +
                           std::to_string(kMaxShards) + " shards");
  if (s.index >= s.count)
    return invalidArgument(s.source + ": shard index " +
                           std::to_string(s.index) + " is out of range for " +
                           std::to_string(s.count) +
                           " shards (indices are 0-based: 0.." +
                           std::to_string(s.count - 1) + ")");
  return okStatus();
}

StatusOr<ShardSpec> fromFlag(const std::string &flag) {
  size_t slash = flag.find('/');
  std::optional<uint64_t> index, count;
  if (slash != std::string::npos) {
    index = parseCount(flag.substr(0, slash), UINT32_MAX);
    count = parseCount(flag.substr(slash + 1), UINT32_MAX);
  }
  if (!index || !count)
    return invalidArgument("--shard " + flag +
                           ": expected I/N with 0 <= I < N, e.g. --shard 0/4");
  ShardSpec s{static_cast<uint32_t>(*index), static_cast<uint32_t>(*count),
              "--shard " + flag};
  if (*count > kMaxShards)
    s.count = kMaxShards + 1; // refused by checkRange, without wrapping
  return s;
}

/// The shard count of a Kubernetes Indexed Job or a CI matrix: --shard-count,
/// else KB_SHARD_COUNT.
StatusOr<std::pair<uint64_t, std::string>>
countFrom(std::optional<uint32_t> countFlag, const EnvLookup &env,
          const char *forWhat) {
  if (countFlag)
    return std::make_pair(uint64_t(*countFlag),
                          "--shard-count " + std::to_string(*countFlag));
  if (!isSet(env, "KB_SHARD_COUNT"))
    return invalidArgument(std::string(forWhat) +
                           " is set but the shard count is not: pass "
                           "--shard-count N or set KB_SHARD_COUNT (for a "
                           "Kubernetes Indexed Job: its spec.completions)");
  KB_ASSIGN_OR_RETURN(uint64_t count, envNumber(env, "KB_SHARD_COUNT"));
  return std::make_pair(count, "KB_SHARD_COUNT=" + std::to_string(count));
}

StatusOr<ShardSpec> fromKubernetes(std::optional<uint32_t> countFlag,
                                   const EnvLookup &env) {
  KB_ASSIGN_OR_RETURN(uint64_t index, envNumber(env, "JOB_COMPLETION_INDEX"));
  KB_ASSIGN_OR_RETURN(auto count,
                      countFrom(countFlag, env, "JOB_COMPLETION_INDEX"));
  return ShardSpec{
      static_cast<uint32_t>(index),
      static_cast<uint32_t>(std::min<uint64_t>(count.first, kMaxShards + 1)),
      "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=" + std::to_string(index) +
          ", " + count.second};
}

StatusOr<ShardSpec> fromSlurm(const EnvLookup &env) {
  KB_ASSIGN_OR_RETURN(uint64_t id, envNumber(env, "SLURM_ARRAY_TASK_ID"));
  KB_ASSIGN_OR_RETURN(uint64_t count, envNumber(env, "SLURM_ARRAY_TASK_COUNT"));
  KB_ASSIGN_OR_RETURN(uint64_t min, envNumber(env, "SLURM_ARRAY_TASK_MIN"));
  uint64_t step = 1;
  if (isSet(env, "SLURM_ARRAY_TASK_STEP")) {
    KB_ASSIGN_OR_RETURN(step, envNumber(env, "SLURM_ARRAY_TASK_STEP"));
  }
  std::string source =
      "Slurm job array: SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
      ", SLURM_ARRAY_TASK_MIN=" + std::to_string(min) +
      ", SLURM_ARRAY_TASK_STEP=" + std::to_string(step) +
      ", SLURM_ARRAY_TASK_COUNT=" + std::to_string(count);
  std::string sparse =
      source + ": the array is sparse (its task IDs are not MIN, MIN+STEP, " +
      "..., MIN+(COUNT-1)*STEP), so task IDs cannot be numbered as shards; " +
      "submit a regular array, e.g. sbatch --array=0-" +
      std::to_string(count ? count - 1 : 0) + ", or pass --shard I/N";
  if (step == 0 || id < min || (id - min) % step != 0)
    return invalidArgument(sparse);
  if (isSet(env, "SLURM_ARRAY_TASK_MAX")) {
    KB_ASSIGN_OR_RETURN(uint64_t max, envNumber(env, "SLURM_ARRAY_TASK_MAX"));
    if (count == 0 || min + (count - 1) * step != max)
      return count == 0 ? invalidArgument(source + ": a shard count of 0 has "
                                                   "no shard to run")
                        : invalidArgument(sparse);
  }
  uint64_t index = (id - min) / step;
  if (count != 0 && index >= count)
    return invalidArgument(sparse);
  return ShardSpec{
      static_cast<uint32_t>(index),
      static_cast<uint32_t>(std::min<uint64_t>(count, kMaxShards + 1)), source};
}

StatusOr<ShardSpec> fromGeneric(std::optional<uint32_t> countFlag,
                                const EnvLookup &env) {
  KB_ASSIGN_OR_RETURN(uint64_t index, envNumber(env, "KB_SHARD_INDEX"));
  KB_ASSIGN_OR_RETURN(auto count, countFrom(countFlag, env, "KB_SHARD_INDEX"));
  return ShardSpec{
      static_cast<uint32_t>(index),
      static_cast<uint32_t>(std::min<uint64_t>(count.first, kMaxShards + 1)),
      "KB_SHARD_INDEX=" + std::to_string(index) + ", " + count.second};
}

} // namespace

StatusOr<std::optional<ShardSpec>>
resolveShard(const std::string &flag, std::optional<uint32_t> countFlag,
             const EnvLookup &env) {
  StatusOr<ShardSpec> spec = invalidArgument("");
  if (!flag.empty()) {
    if (countFlag)
      return invalidArgument("--shard-count is for a shard index taken from "
                             "the environment; --shard I/N already gives "
                             "the count");
    spec = fromFlag(flag);
  } else {
    std::vector<std::string> engines;
    if (isSet(env, "JOB_COMPLETION_INDEX"))
      engines.push_back("JOB_COMPLETION_INDEX (Kubernetes)");
    if (isSet(env, "SLURM_ARRAY_TASK_ID"))
      engines.push_back("SLURM_ARRAY_TASK_ID (Slurm)");
    if (isSet(env, "KB_SHARD_INDEX"))
      engines.push_back("KB_SHARD_INDEX");
    if (engines.empty()) {
      if (countFlag || isSet(env, "KB_SHARD_COUNT"))
        return invalidArgument(
            "a shard count is given (--shard-count or KB_SHARD_COUNT) but no "
            "shard index: set JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or "
            "KB_SHARD_INDEX, or pass --shard I/N");
      return std::optional<ShardSpec>();
    }
    if (engines.size() > 1)
      return invalidArgument("the shard index is set by " + engines[0] +
                             " and by " + engines[1] +
                             "; unset one, or pass --shard I/N (which "
                             "overrides the environment)");
    if (isSet(env, "JOB_COMPLETION_INDEX"))
      spec = fromKubernetes(countFlag, env);
    else if (isSet(env, "SLURM_ARRAY_TASK_ID"))
      spec = fromSlurm(env);
    else
      spec = fromGeneric(countFlag, env);
  }
  if (!spec.ok())
    return spec.status();
  KB_RETURN_IF_ERROR(checkRange(*spec));
  return std::optional<ShardSpec>(*spec);
}

std::vector<uint32_t> assignShards(const std::vector<double> &weights,
                                   uint32_t count) {
  std::vector<uint32_t> shard(weights.size(), 0);
  if (count <= 1)
    return shard;
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weights[a] > weights[b]; });
  // Load and then item count per shard: with equal weights this deals the
  // items out round-robin.
  std::vector<std::pair<double, size_t>> load(count, {0.0, 0});
  for (size_t item : order) {
    uint32_t best = 0;
    for (uint32_t s = 1; s < count; ++s)
      if (load[s] < load[best])
        best = s;
    shard[item] = best;
    load[best].first += weights[item];
    ++load[best].second;
  }
  return shard;
}

std::map<std::string, double>
benchmarkSeconds(const report::BenchReport &previous) {
  auto timingSeconds = [](const report::Timing &t) {
    double ns = 0;
    for (const report::Sample &s : t.samples)
      ns += s.hostNs * t.dispatchesPerSample;
    return ns * 1e-9;
  };
  std::map<std::string, double> seconds;
  for (const report::Benchmark &b : previous.benchmarks) {
    double total = 0;
    for (const report::Variant &v : b.variants)
      for (const report::Timing &t : v.timings)
        total += timingSeconds(t);
    seconds[b.name] = total;
  }
  if (const auto &p = previous.program) {
    double total = 0;
    for (const auto *t : {&p->withSubstitutions, &p->generatedOnly})
      if (*t)
        total += timingSeconds(**t);
    seconds["program " + p->entryFunction] = total;
  }
  return seconds;
}

std::vector<double> shardWeights(const std::vector<std::string> &names,
                                 const std::map<std::string, double> &seconds) {
  double known = 0;
  size_t knownCount = 0;
  for (const std::string &name : names)
    if (auto it = seconds.find(name); it != seconds.end()) {
      known += it->second;
      ++knownCount;
    }
  double fallback = knownCount && known > 0 ? known / knownCount : 1.0;
  std::vector<double> weights;
  for (const std::string &name : names) {
    auto it = seconds.find(name);
    weights.push_back(it != seconds.end() ? it->second : fallback);
  }
  return weights;
}

} // namespace kb::workbench

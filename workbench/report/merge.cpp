//===- workbench/report/merge.cpp - One report from the shards' reports ---===//
#include "workbench/report/merge.h"

#include <algorithm>
#include <map>
#include <set>

namespace kb::report {

namespace {

std::string shardText(uint32_t index, uint32_t count) {
  return "shard " + std::to_string(index) + "/" + std::to_string(count);
}

/// "A.json (shard 0/3)" or "A.json".
std::string describe(const MergeInput &in) {
  const auto &s = in.report.shard;
  return in.source + (s ? " (" + shardText(s->index, s->count) + ")" : "");
}

/// At most |limit| items of |items|, then "and N more".
std::string listSome(const std::vector<std::string> &items, size_t limit = 20) {
  std::string text;
  for (size_t i = 0; i < items.size() && i < limit; ++i)
    text += (i ? ", " : "") + items[i];
  if (items.size() > limit)
    text += ", and " + std::to_string(items.size() - limit) + " more";
  return text;
}

/// What kind of run a report comes from, as merge's message names it.
std::string runKind(const BenchReport &report) {
  if (report.settings.sanitize)
    return "a `bench --sanitize` report (checked, not timed)";
  if (report.settings.profile)
    return "a `bench --profile` report (run under profiler labels, not timed)";
  return "a timed report";
}

Status checkSameOrigin(const std::vector<MergeInput> &inputs,
                       const MergeOptions &options) {
  const MergeInput &first = inputs.front();
  const MergeInput *withDevice = nullptr;
  for (const MergeInput &in : inputs) {
    // A checked-only or profiled run (bench --sanitize, --profile) holds no
    // timing: merged with timed shards it would read as benchmarks that
    // were never timed.
    if (std::string kind = runKind(in.report),
        firstKind = runKind(first.report);
        kind != firstKind)
      return failedPrecondition(in.source + " is " + kind + " and " +
                                first.source + " " + firstKind +
                                ": merge the shards of one kind of run");
    if (!options.allowDifferentBuilds &&
        in.report.build.buildJsonSha256 != first.report.build.buildJsonSha256)
      return failedPrecondition(
          in.source + " and " + first.source +
          " come from different builds (build.json sha256 " +
          in.report.build.buildJsonSha256.substr(0, 12) + "… of " +
          in.report.build.path + " vs " +
          first.report.build.buildJsonSha256.substr(0, 12) + "… of " +
          first.report.build.path +
          "); merge the shards of one bundle, or pass "
          "--allow-different-builds");
    if (in.report.device.name.empty()) // a shard that ran nothing
      continue;
    if (!withDevice)
      withDevice = &in;
    else if (!options.allowDifferentDevices &&
             in.report.device.name != withDevice->report.device.name)
      return failedPrecondition(
          in.source + " ran on `" + in.report.device.name + "`, " +
          withDevice->source + " on `" + withDevice->report.device.name +
          "`: timings of different device models do not belong in one "
          "report; pass --allow-different-devices to merge them anyway");
  }
  return okStatus();
}

/// The plan every sharded input shares; empty when no input is sharded.
StatusOr<std::vector<ShardAssignment>>
commonPlan(const std::vector<MergeInput> &inputs, uint32_t &count) {
  const MergeInput *planned = nullptr;
  for (const MergeInput &in : inputs) {
    if (!in.report.shard)
      continue;
    if (!planned) {
      planned = &in;
      continue;
    }
    const ShardInfo &a = *planned->report.shard, &b = *in.report.shard;
    bool same = a.count == b.count && a.plan.size() == b.plan.size();
    for (size_t i = 0; same && i < a.plan.size(); ++i)
      same = a.plan[i].benchmark == b.plan[i].benchmark &&
             a.plan[i].shard == b.plan[i].shard;
    if (!same)
      return failedPrecondition(
          describe(in) + " and " + describe(*planned) +
          " were sharded differently (" + std::to_string(b.count) +
          " shards balanced by " + b.balance + " vs " +
          std::to_string(a.count) + " balanced by " + a.balance +
          "); run every shard with the same count, filter and "
          "--shard-balance report");
  }
  if (!planned)
    return std::vector<ShardAssignment>();
  count = planned->report.shard->count;
  return planned->report.shard->plan;
}

/// Where each benchmark (and the program, "program NAME") was found.
std::map<std::string, std::vector<const MergeInput *>>
whereFound(const std::vector<MergeInput> &inputs) {
  std::map<std::string, std::vector<const MergeInput *>> found;
  for (const MergeInput &in : inputs) {
    for (const Benchmark &b : in.report.benchmarks)
      found[b.name].push_back(&in);
    if (in.report.program)
      found["program " + in.report.program->entryFunction].push_back(&in);
  }
  return found;
}

Status checkOverlap(
    const std::map<std::string, std::vector<const MergeInput *>> &found) {
  std::vector<std::string> overlapping;
  for (const auto &[name, where] : found) {
    if (where.size() < 2)
      continue;
    std::string places;
    for (const MergeInput *in : where)
      places += (places.empty() ? "" : " and ") + describe(*in);
    overlapping.push_back(name + " in " + places);
  }
  if (overlapping.empty())
    return okStatus();
  return failedPrecondition(
      "overlapping shards: " + std::to_string(overlapping.size()) +
      " benchmark(s) are in more than one report: " + listSome(overlapping) +
      "; pass each shard's report once");
}

/// Benchmarks of |plan| that no report has, with the shards they were in,
/// and the shards no report is from at all.
std::vector<std::string> missingBenchmarks(
    const std::vector<ShardAssignment> &plan, uint32_t count,
    const std::vector<MergeInput> &inputs,
    const std::map<std::string, std::vector<const MergeInput *>> &found) {
  std::set<uint32_t> present;
  for (const MergeInput &in : inputs)
    if (in.report.shard)
      present.insert(in.report.shard->index);
  std::vector<std::string> missing;
  for (const ShardAssignment &a : plan)
    if (!found.count(a.benchmark))
      missing.push_back(a.benchmark + " (" + shardText(a.shard, count) +
                        (present.count(a.shard) ? ", interrupted or stopped"
                                                : ", no report") +
                        ")");
  return missing;
}

BenchReport combine(std::vector<MergeInput> &inputs,
                    const std::vector<ShardAssignment> &plan) {
  BenchReport merged = inputs.front().report;
  merged.benchmarks.clear();
  merged.program.reset();
  merged.shard.reset();
  merged.environment.warnings.clear();
  bool haveDevice = false;
  std::map<std::string, Benchmark> byName;
  std::vector<std::string> order;
  for (MergeInput &in : inputs) {
    BenchReport &r = in.report;
    if (!haveDevice && !r.device.name.empty()) {
      merged.device = r.device;
      merged.settings = r.settings;
      merged.environment = r.environment;
      merged.environment.warnings.clear();
      haveDevice = true;
    }
    merged.interrupted = merged.interrupted || r.interrupted;
    merged.createdUtc = std::max(merged.createdUtc, r.createdUtc);
    for (const std::string &w : r.environment.warnings)
      if (std::find(merged.environment.warnings.begin(),
                    merged.environment.warnings.end(),
                    w) == merged.environment.warnings.end())
        merged.environment.warnings.push_back(w);
    for (Benchmark &b : r.benchmarks) {
      order.push_back(b.name);
      byName.emplace(b.name, std::move(b));
    }
    if (r.program)
      merged.program = std::move(r.program);
  }
  // The plan's order when sharded (the order of an unsharded run), else
  // the inputs' order.
  if (!plan.empty()) {
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < plan.size(); ++i)
      rank.emplace(plan[i].benchmark, i);
    std::stable_sort(order.begin(), order.end(),
                     [&](const std::string &a, const std::string &b) {
                       return (rank.count(a) ? rank[a] : plan.size()) <
                              (rank.count(b) ? rank[b] : plan.size());
                     });
  }
  for (const std::string &name : order)
    merged.benchmarks.push_back(std::move(byName[name]));
  return merged;
}

} // namespace

StatusOr<MergeResult> mergeReports(std::vector<MergeInput> inputs,
                                   const MergeOptions &options) {
  if (inputs.empty())
    return invalidArgument("nothing to merge");
  KB_RETURN_IF_ERROR(checkSameOrigin(inputs, options));
  uint32_t count = 1;
  KB_ASSIGN_OR_RETURN(std::vector<ShardAssignment> plan,
                      commonPlan(inputs, count));
  auto found = whereFound(inputs);
  KB_RETURN_IF_ERROR(checkOverlap(found));
  MergeResult result;
  result.missing = missingBenchmarks(plan, count, inputs, found);
  if (!result.missing.empty() && !options.allowMissing)
    return failedPrecondition(
        "missing shards: " + std::to_string(result.missing.size()) + " of " +
        std::to_string(plan.size()) +
        " planned benchmark(s) are in no report: " + listSome(result.missing) +
        "; pass every shard's report, or --allow-missing to merge what "
        "there is");
  result.merged = combine(inputs, plan);
  result.merged.environment.warnings.push_back(
      "merged from " + std::to_string(inputs.size()) + " report(s)" +
      (plan.empty() ? "" : " of " + std::to_string(count) + " shards"));
  if (!result.missing.empty())
    result.merged.environment.warnings.push_back(
        "incomplete: " + std::to_string(result.missing.size()) +
        " benchmark(s) of the plan are missing: " + listSome(result.missing));
  computeDerived(result.merged);
  return result;
}

} // namespace kb::report

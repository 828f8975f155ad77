//===- workbench/bench/bench_input.cpp - What one `bench` run measures ----===//
#include "workbench/bench/bench_input.h"

#include "workbench/report/bench_json.h"

#include "common/file_util.h"

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {

/// Narrows |all| to |spec|'s shard and records the plan in |input|.
Status pickShard(std::vector<PlannedBenchmark> all, const ShardSpec &spec,
                 const std::string &balanceReport, BenchInput &input) {
  std::vector<std::string> names;
  for (const PlannedBenchmark &p : all)
    names.push_back(p.displayName);
  std::vector<double> weights(names.size(), 1.0);
  std::string balance = "count";
  if (!balanceReport.empty()) {
    StatusOr<report::BenchReport> prev = report::readBenchJson(balanceReport);
    if (!prev.ok())
      return dataLoss("--shard-balance: " + prev.status().message());
    weights = shardWeights(names, benchmarkSeconds(*prev));
    balance = "time in " + fs::path(balanceReport).filename().string();
  }
  std::vector<uint32_t> assigned = assignShards(weights, spec.count);
  report::ShardInfo info{spec.index, spec.count, spec.source, balance, {}};
  for (size_t i = 0; i < all.size(); ++i) {
    info.plan.push_back({names[i], assigned[i]});
    if (assigned[i] == spec.index)
      input.planned.push_back(std::move(all[i]));
  }
  input.shard = std::move(info);
  return okStatus();
}

} // namespace

StatusOr<OpenedBuild> openBuild(const std::string &build) {
  OpenedBuild opened;
  opened.buildDir = build;
  std::error_code ec;
  if (!fs::is_regular_file(build, ec))
    return opened;
  StatusOr<OpenedBundle> bundle = openBundle(build);
  if (!bundle.ok()) // a bad bundle is a failure (exit 1), not usage
    return failedPrecondition(bundle.status().message());
  opened.buildDir = bundle->root().string();
  opened.bundle.emplace(std::move(*bundle));
  return opened;
}

fs::path defaultBenchOutputDir(const std::string &build) {
  std::error_code ec;
  if (!fs::is_regular_file(build, ec)) // as openBuild tells them apart
    return fs::path(build) / "results";
  fs::path archive(build);
  return archive.parent_path() / (archive.stem().string() + "-results");
}

void BenchInput::nameModulesByBundle(report::BenchReport &run) const {
  if (!bundle)
    return;
  for (report::Benchmark &b : run.benchmarks)
    b.moduleFile = bundle->displayPath(b.moduleFile);
  if (run.program)
    run.program->module = bundle->displayPath(run.program->module);
}

std::string BenchInput::shardLine() const {
  if (!shard)
    return "";
  return "shard " + std::to_string(shard->index) + "/" +
         std::to_string(shard->count) + " (" + shard->source +
         "): " + std::to_string(planned.size()) + " of " +
         std::to_string(plannedInAllShards) + " benchmark(s), balanced by " +
         shard->balance;
}

StatusOr<BenchInput> openBenchInput(const std::string &build,
                                    const BenchSelection &select,
                                    const ShardFlags &shardFlags,
                                    const EnvLookup &env) {
  StatusOr<std::optional<ShardSpec>> spec =
      resolveShard(shardFlags.shard, shardFlags.count, env);
  if (!spec.ok())
    return spec.status();
  if (!*spec && !shardFlags.balanceReport.empty())
    return invalidArgument("--shard-balance balances shards; without "
                           "--shard or a shard index from the environment "
                           "there is one");
  StatusOr<OpenedBuild> opened = openBuild(build);
  if (!opened.ok())
    return opened.status();
  // OpenedBundle moves but is not assignable: built in place.
  BenchInput input{std::move(opened->bundle),
                   std::move(opened->buildDir),
                   {},
                   0,
                   std::nullopt};
  // The workers and the report read BUILD/build.json; a FIFO or a device
  // there would hang or flood every one of them, so it is refused first.
  Status record = checkInputFile(fs::path(input.buildDir) / "build.json",
                                 kBuildRecordInput);
  if (!record.ok() && record.code() != StatusCode::NotFound)
    return dataLoss(record.message());
  auto all = planBenchmarks(input.buildDir, select);
  if (!all.ok())
    return all.status(); // InvalidArgument only for the --filter regex
  input.plannedInAllShards = all->size();
  if (!*spec) {
    input.planned = std::move(*all);
    return input;
  }
  KB_RETURN_IF_ERROR(
      pickShard(std::move(*all), **spec, shardFlags.balanceReport, input));
  return input;
}

} // namespace kb::workbench

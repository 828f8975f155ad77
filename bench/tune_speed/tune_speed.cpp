//===- bench/tune_speed/tune_speed.cpp - How well `tune` searches ---------===//
//
//   tune_speed [TUNE_JSON] [--seeds N] [--plant-failed-search]
//              [--kernel-bench BIN --kernel DIR [--device D]]
//
// The strategies of `kernel-bench tune` (workbench/tune/tune_search.h)
// are judged on a recorded, deterministic
// objective: a saved exhaustive tune.json (default: the tiled matmul's
// 52 configurations on lavapipe, beside this file) is replayed, each
// configuration's recorded median standing for its true time. A
// measurement at level L takes levelSamples(L) samples, costs that many
// times the median, and returns the median with a deterministic error of
// relative size 5 % x sqrt(2 / samples) (seeded by the configuration, the
// level and the run): brief measurements are noisy, long ones less so.
//
// Printed, per strategy: the configuration found, its true time against the
// exhaustive best, and the measurement cost against the exhaustive tune's.
// Targets: successive halving within 5 % of the best at <= 30 % of the
// cost (over --seeds noise seeds: the worst case), doing better than random
// sampling with the same cost. The replay is deterministic, so the exit
// status is 1 when a search fails or the halving target is missed (ctest
// runs it: tune_speed_replay). --plant-failed-search makes every
// measurement fail, for the ctest that shows a failed search is not "met".
//
// With --kernel-bench and --kernel: `kernel-bench tune` of a copy of the
// kernel directory twice (the second entirely from the tune cache); target:
// the repeat <= 1 s. Then the same random configurations (four batches of
// -j = the cores, at least 16) from empty caches with `--pipeline off` and
// `--pipeline on` (compiling the next batch while this one is measured), the
// wall-time ratio printed; target on a GPU: <= 0.6x. On a CPU device (lavapipe)
// both share the cores, so no gain is expected there (`tune` does not pipeline
// by default on one). Exit 77 when the device is not there.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "common/sha256.h"
#include "workbench/tune/tune_report.h"
#include "workbench/tune/tune_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>

namespace fs = std::filesystem;
using namespace kb::workbench;

namespace {

struct Replay {
  std::map<std::string, TuneMeasurement> truth; // by configuration key
  std::vector<TuneValues> configs;
  double bestNs = 0;
  std::string bestKey;
};

bool loadReplay(const std::string &path, Replay &replay) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto results = parseTuneJson(text.str());
  if (!results.ok()) {
    std::fprintf(stderr, "tune_speed: %s: %s\n", path.c_str(),
                 results.status().message().c_str());
    return false;
  }
  for (const TuneResult &r : *results) {
    std::string key = configurationKey(r.values);
    replay.truth[key] = r.measurement;
    replay.configs.push_back(r.values);
    if (r.measurement.status == TuneMeasurement::Status::Ok &&
        (replay.bestKey.empty() || r.measurement.medianNs < replay.bestNs)) {
      replay.bestNs = r.measurement.medianNs;
      replay.bestKey = key;
    }
  }
  return !replay.bestKey.empty();
}

/// A standard normal draw fixed by |key|, |level| and |seed|.
double deterministicNormal(const std::string &key, int level, uint64_t seed) {
  std::string digest = kb::sha256Hex(key + "|" + std::to_string(level) + "|" +
                                     std::to_string(seed));
  std::seed_seq seq(digest.begin(), digest.end());
  std::mt19937_64 rng(seq);
  return std::normal_distribution<double>(0, 1)(rng);
}

/// Set by --plant-failed-search: every measurement is an error.
bool plantFailedSearch = false;

TuneMeasureFn replayObjective(const Replay &replay, uint64_t seed) {
  return
      [&replay, seed](const std::vector<TuneValues> &configs,
                      int level) -> kb::StatusOr<std::vector<TuneMeasurement>> {
        if (plantFailedSearch)
          return kb::internalError("planted failure (--plant-failed-search)");
        std::vector<TuneMeasurement> out;
        for (const TuneValues &values : configs) {
          std::string key = configurationKey(values);
          TuneMeasurement m = replay.truth.at(key);
          m.level = level;
          double samples = static_cast<double>(levelSamples(level));
          if (m.status == TuneMeasurement::Status::Ok) {
            double sigma = 0.05 * std::sqrt(2.0 / samples);
            double truth = m.medianNs;
            m.medianNs =
                truth * (1 + sigma * deterministicNormal(key, level, seed));
            m.costNs = samples * truth;
          } else {
            m.costNs = 0;
          }
          out.push_back(m);
        }
        return out;
      };
}

struct Outcome {
  bool found = false; // false: the search failed or found nothing
  std::string key;
  double trueNs = 0;
  double costNs = 0;
};

Outcome search(const Replay &replay, TuneStrategy strategy, size_t budget,
               uint64_t seed) {
  TuneSearchOptions options{strategy, budget, seed};
  auto result =
      runTuneSearch(replay.configs, options, replayObjective(replay, seed));
  Outcome o;
  if (!result.ok() || !result->best) {
    std::fprintf(stderr, "tune_speed: the %s search (seed %llu) failed: %s\n",
                 toString(strategy), static_cast<unsigned long long>(seed),
                 result.ok() ? "it found no configuration"
                             : result.status().message().c_str());
    return o;
  }
  o.found = true;
  o.key = configurationKey(result->results[*result->best].values);
  o.trueNs = replay.truth.at(o.key).medianNs;
  o.costNs = result->totalCostNs;
  return o;
}

void printOutcome(const char *name, const Outcome &o, const Replay &replay,
                  double exhaustiveCost) {
  std::printf("  %-28s %-28s %+7.2f %% of the best  cost %6.1f %% of "
              "exhaustive\n",
              name, o.key.c_str(), 100 * (o.trueNs / replay.bestNs - 1),
              100 * o.costNs / exhaustiveCost);
}

int replayFigures(const std::string &path, int seeds) {
  Replay replay;
  if (!loadReplay(path, replay))
    return 1;
  std::printf("replaying %s: %zu configurations, best %s (%.3f ms)\n",
              path.c_str(), replay.configs.size(), replay.bestKey.c_str(),
              replay.bestNs / 1e6);
  Outcome exhaustive = search(replay, TuneStrategy::Exhaustive, 0, 1);
  if (!exhaustive.found)
    return 1;
  printOutcome("exhaustive", exhaustive, replay, exhaustive.costNs);
  double worstGap = 0, worstCost = 0, randomWorstGap = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Outcome halving = search(replay, TuneStrategy::Halving, 0, seed);
    if (!halving.found)
      return 1;
    // Random sampling given the same cost: as many full measurements as
    // the halving search's cost pays for.
    double perConfig = exhaustive.costNs / replay.configs.size();
    size_t budget = std::max<size_t>(1, halving.costNs / perConfig);
    Outcome random = search(replay, TuneStrategy::Random, budget, seed);
    if (!random.found)
      return 1;
    if (seed <= 3) {
      printOutcome(("halving, seed " + std::to_string(seed)).c_str(), halving,
                   replay, exhaustive.costNs);
      printOutcome(("random x" + std::to_string(budget) + ", seed " +
                    std::to_string(seed))
                       .c_str(),
                   random, replay, exhaustive.costNs);
    }
    worstGap = std::max(worstGap, halving.trueNs / replay.bestNs - 1);
    worstCost = std::max(worstCost, halving.costNs / exhaustive.costNs);
    randomWorstGap =
        std::max(randomWorstGap, random.trueNs / replay.bestNs - 1);
  }
  bool met = worstGap <= 0.05 && worstCost <= 0.30;
  std::printf("over %d noise seeds: successive halving worst %.2f %% from the "
              "best at worst %.1f %% of the exhaustive cost (target <= 5 %% at "
              "<= 30 %%: %s); random sampling at the same cost: worst %.2f %% "
              "from the best\n",
              seeds, 100 * worstGap, 100 * worstCost, met ? "met" : "MISSED",
              100 * randomWorstGap);
  return met ? 0 : 1;
}

/// What timeTune returns when `kernel-bench tune` found no such device
/// (exit 77, which tune_speed passes on: a GPU script's SKIP, not a FAIL).
constexpr double kNoDevice = -77;

/// `kernel-bench tune` of a copy of |kernel| in |tmp| with |extra| flags
/// and the cache in |tmp|/|cache|; its wall time, kNoDevice, or -1 when it
/// failed.
double timeTune(const std::string &kernelBench, const fs::path &tmp,
                const std::string &kernel, const std::string &device,
                const std::string &extra, const std::string &cache) {
  fs::path copy = tmp / fs::path(kernel).filename();
  std::error_code ec;
  if (!fs::exists(copy, ec))
    fs::copy(kernel, copy, fs::copy_options::recursive);
  std::string command =
      "'" + kernelBench + "' tune '" + copy.string() + "' --device " + device +
      " " + extra + " -o '" + (tmp / "out").string() + "' --cache-dir '" +
      (tmp / cache).string() + "' > '" + (tmp / "log").string() + "' 2>&1";
  auto start = std::chrono::steady_clock::now();
  int rc = std::system(command.c_str());
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (rc != 0) {
    bool noDevice = WIFEXITED(rc) && WEXITSTATUS(rc) == 77;
    std::fprintf(stderr, "tune_speed: `%s` %s; the end of its output:\n",
                 command.c_str(), noDevice ? "found no such device" : "failed");
    // The log goes with the temporary directory: show its end here.
    std::ifstream log(tmp / "log");
    std::vector<std::string> lines;
    for (std::string line; std::getline(log, line);)
      lines.push_back(line);
    for (size_t i = lines.size() > 40 ? lines.size() - 40 : 0; i < lines.size();
         ++i)
      std::fprintf(stderr, "  %s\n", lines[i].c_str());
    return noDevice ? kNoDevice : -1;
  }
  return s;
}

/// A repeated tune from the cache, and pipelined against serial.
int commandFigures(const std::string &kernelBench, const std::string &kernel,
                   const std::string &device) {
  auto tmp = kb::TempDir::create(fs::temp_directory_path(), "kb_tune_speed");
  if (!tmp.ok())
    return 1;
  const fs::path dir = tmp->path();
  const std::string halving = "--strategy halving --budget 32";
  double first = timeTune(kernelBench, dir, kernel, device, halving, "cache");
  if (first == kNoDevice)
    return 77;
  double again = timeTune(kernelBench, dir, kernel, device, halving, "cache");
  if (first < 0 || again < 0)
    return 1;
  std::printf("kernel-bench tune %s (halving, 32): first %.1f s, repeated from "
              "the tune cache %.3f s (target <= 1 s: %s)\n",
              kernel.c_str(), first, again, again <= 1.0 ? "met" : "MISSED");
  // The same configurations, each run from empty caches (build and tune),
  // so every one is compiled and measured: four batches' worth (`tune`
  // builds a batch of -j configurations at once; one batch would leave
  // nothing to overlap), at least 16.
  const unsigned jobs = std::max(2u, std::thread::hardware_concurrency());
  const unsigned count = std::max(16u, 4 * jobs);
  const std::string sample = "--strategy random --budget " +
                             std::to_string(count) + " --seed 1 -j " +
                             std::to_string(jobs);
  double serial = timeTune(kernelBench, dir, kernel, device,
                           sample + " --pipeline off", "cache-serial");
  double piped = timeTune(kernelBench, dir, kernel, device,
                          sample + " --pipeline on", "cache-pipelined");
  if (serial < 0 || piped < 0)
    return 1;
  std::printf("kernel-bench tune %s (%u random configurations, -j %u) on %s: "
              "compiling, then "
              "measuring %.1f s; compiling while measuring %.1f s: %.2fx "
              "(target on a GPU <= 0.6x; a CPU device shares its cores "
              "with the compiler)\n",
              kernel.c_str(), count, jobs, device.c_str(), serial, piped,
              piped / serial);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string path = KB_TUNE_SPEED_DEFAULT_JSON;
  std::string kernelBench, kernel, device = "vulkan";
  int seeds = 50;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--seeds")
      seeds = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--kernel-bench")
      kernelBench = next();
    else if (arg == "--kernel")
      kernel = next();
    else if (arg == "--device")
      device = next();
    else if (arg == "--plant-failed-search")
      plantFailedSearch = true;
    else if (!arg.empty() && arg[0] != '-')
      path = arg;
    else {
      std::fprintf(stderr, "usage: tune_speed [TUNE_JSON] [--seeds N] "
                           "[--plant-failed-search] "
                           "[--kernel-bench BIN --kernel DIR [--device D]]\n");
      return 2;
    }
  }
  if (int rc = replayFigures(path, seeds))
    return rc;
  if (!kernelBench.empty() && !kernel.empty())
    return commandFigures(kernelBench, kernel, device);
  return 0;
}

//===- workbench/tune/tune_search.h - How `tune` chooses what to measure --===//
//
// The search strategies of `kernel-bench tune`, apart from how a
// configuration is built and measured (tune_measure.h, through the build
// and bench engines; bench/tune_speed replays a recorded tune.json):
//
//   exhaustive  every configuration, measured fully (level kTopLevel);
//   random      a sample of `budget` configurations, measured fully; or,
//               with a time budget, batches drawn until the time is spent;
//   halving     successive halving: every candidate measured briefly
//               (level 0), the best 1/kEta of them longer (level 1), the
//               best 1/kEta of those fully (level 2). The winner comes from
//               the last level only, so a configuration that was lucky in a
//               brief measurement still has to win a long one. With a time
//               budget, the first round draws batches until a third of it
//               is spent (each later round measures 1/kEta as many kEta
//               times longer, with nothing left to compile, so costs about
//               as much or less).
//
// A configuration that failed (compile error, INCORRECT, ERROR) is recorded
// and never kept or chosen.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_SEARCH_H_
#define KB_WORKBENCH_TUNE_TUNE_SEARCH_H_

#include "common/status.h"
#include "workbench/project/tune_space.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

enum class TuneStrategy { Exhaustive, Random, Halving };

/// "exhaustive", "random", "halving".
const char *toString(TuneStrategy strategy);

/// Measurement levels: level L takes levelSamples(L) samples.
constexpr int kTopLevel = 2;
constexpr int kEta = 4;
size_t levelSamples(int level);

/// One configuration's outcome at one level.
struct TuneMeasurement {
  enum class Status { Ok, CompileError, Incorrect, Error };
  Status status = Status::Ok;
  int level = 0;
  double medianNs = 0; // per dispatch; Ok only
  /// Device time the measurement spent (samples x time per sample): what
  /// the strategies are judged by.
  double costNs = 0;
  std::optional<double> gbPerSecond;
  /// The samples' relative standard deviation (bench's noise column); none
  /// below two samples. With problem-size axes, the largest of the sizes'.
  std::optional<double> noise;
  std::optional<int64_t> registers, spillBytes;
  std::optional<double> occupancy;
  /// With problem-size axes: each size's label (`M=128 N=256`) and median;
  /// |medianNs| is then their sum.
  std::vector<std::pair<std::string, double>> sizes;
  std::string message; // compiler message, mismatch, error
};

const char *toString(TuneMeasurement::Status status);

struct TuneResult {
  TuneValues values;
  TuneMeasurement measurement; // the highest level measured
};

/// Measures |configs| at |level|; one measurement per configuration, in
/// order. An error stops the search (e.g. interrupted, no device).
using TuneMeasureFn = std::function<StatusOr<std::vector<TuneMeasurement>>(
    const std::vector<TuneValues> &configs, int level)>;

struct TuneSearchOptions {
  TuneStrategy strategy = TuneStrategy::Exhaustive;
  /// random / halving: at most this many configurations (0: all).
  size_t budget = 0;
  uint64_t seed = 1;
  /// random: measure batches of |batch| configurations until this much
  /// wall time has passed; halving: the same for a third of it in the first
  /// round (0: no time budget).
  double budgetSeconds = 0;
  size_t batch = 4;
  /// The clock the time budget is kept by, in seconds (empty: the steady
  /// clock); tests give a clock that measurements advance.
  std::function<double()> seconds;
};

struct TuneSearchResult {
  /// Every configuration measured, with its highest level.
  std::vector<TuneResult> results;
  /// Index into |results| of the fastest Ok configuration at the final
  /// level; none when every one failed.
  std::optional<size_t> best;
  double totalCostNs = 0;
};

/// Runs |options.strategy| over |candidates| (every configuration that
/// satisfies the constraints, or a sample of a space too large to list).
StatusOr<TuneSearchResult> runTuneSearch(std::vector<TuneValues> candidates,
                                         const TuneSearchOptions &options,
                                         const TuneMeasureFn &measure);

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_SEARCH_H_

//===- workbench/tune/tune_report.h - What `tune` writes and prints -------===//
//
// tune.json (every configuration with its outcome, the best, the device and
// the search), the top-N table, and the tuned.toml entry of this device
// model merged into the file beside the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_REPORT_H_
#define KB_WORKBENCH_TUNE_TUNE_REPORT_H_

#include "common/status.h"
#include "workbench/tune/tune_search.h"
#include "workbench/project/tuned_toml.h"

#include <cstdio>
#include <filesystem>
#include <string>

namespace kb::workbench {

struct TuneRunInfo {
  std::string kernel;
  std::string manifest;
  std::string deviceName;     // the model
  std::string deviceIdentity; // driver, name, versions: the cache key
  std::string backend;        // "cuda" | "vulkan"
  std::string target;
  TuneStrategy strategy = TuneStrategy::Exhaustive;
  size_t budget = 0;        // configurations (0: none)
  double budgetSeconds = 0; // random's time budget (0: none)
  uint64_t spaceSize = 0;   // before the constraints and launch-shape check
  size_t candidates = 0;    // after them (or sampled)
  size_t measured = 0;      // not from the cache
  double seconds = 0;
};

/// tune.json: the run and every configuration (schema in docs/tuning.md).
std::string renderTuneJson(const TuneRunInfo &info,
                           const TuneSearchResult &result);

/// Reads a tune.json back (bench/tune_speed replays one): every
/// configuration with its recorded measurement.
StatusOr<std::vector<TuneResult>> parseTuneJson(const std::string &text);

/// What the table and tune.html list: the ranking (the Ok results measured
/// at the highest level any reached, fastest first); the Ok results
/// measured only briefly (successive halving's earlier rounds: fewer
/// samples, so their medians are not ranked with the others), higher level
/// then faster first; and the failed ones in search order.
struct RankedTuneResults {
  std::vector<const TuneResult *> ok, brief, failed;
};
RankedTuneResults rankTuneResults(const TuneSearchResult &result);

/// A per-dispatch time for people: `812 ns`, `3.41 us`, `1.204 ms`.
std::string formatTuneNs(double ns);

/// A measurement's noise for people: `1.25%`, or `-` when unknown.
std::string formatTuneNoise(const TuneMeasurement &m);

/// The first line of a message, at most 160 characters.
std::string firstMessageLine(const std::string &text);

/// The best |top| configurations (time, noise, GB/s, registers), then at
/// most |top| briefly measured ones apart and unranked, then one line per
/// failed configuration.
void printTuneTable(std::FILE *out, const TuneRunInfo &info,
                    const TuneSearchResult &result, size_t top);

/// |entry| replaces the entry of the same device model in |path| (kept
/// otherwise), or is added; the file is written atomically.
Status mergeTunedToml(const std::filesystem::path &path, const TuneSpace &space,
                      const TunedEntry &entry);

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_REPORT_H_

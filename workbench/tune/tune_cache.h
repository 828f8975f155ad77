//===- workbench/tune/tune_cache.h - The resumable results of `tune` ------===//
//
// Every measurement `kernel-bench tune` makes is appended, as it comes, to
// one JSON-lines file per kernel in the cache directory
// (`<cache>/tune/<kernel hash>.jsonl`), keyed by the kernel's hash (its
// kernel.toml, sources and target), the device's identity and the
// configuration. An interrupted tune continues from it; a repeated one
// measures nothing. A line that does not parse (a write cut short) or
// holds a field of the wrong type (an edit by hand) is skipped and counted;
// the command warns once with the count, and the configuration it held is
// measured again.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_CACHE_H_
#define KB_WORKBENCH_TUNE_TUNE_CACHE_H_

#include "common/status.h"
#include "workbench/tune/tune_search.h"

#include <filesystem>
#include <map>
#include <string>

namespace kb::workbench {

class TuneCache {
public:
  /// Opens (creates) |file| and reads the entries for |device|.
  static StatusOr<TuneCache> open(const std::filesystem::path &file,
                                  std::string device);

  /// The measurement of |key| at |level|, else at the lowest level above
  /// it, else null; a failed configuration's at any level.
  const TuneMeasurement *find(const std::string &key, int level) const;

  /// Remembers |m| for |key| and appends it to the file (flushed).
  Status add(const std::string &key, const TuneMeasurement &m);

  const std::filesystem::path &file() const { return file_; }
  size_t size() const { return entries_.size(); }
  /// Lines of the file that were not a measurement this version reads.
  size_t skippedLines() const { return skippedLines_; }

private:
  std::filesystem::path file_;
  std::string device_;
  /// Configuration key -> level -> measurement.
  std::map<std::string, std::map<int, TuneMeasurement>> entries_;
  size_t skippedLines_ = 0;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_CACHE_H_

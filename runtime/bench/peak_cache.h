//===- runtime/bench/peak_cache.h - Measured peaks, once per device -------===//
//
// The copy-bandwidth and FMA-throughput probes measure a device once: their
// figures live in one small text file (`copy-bandwidth.tsv` in the cache
// directory), a line per key ("device identity|probe name vN") and value,
// tab-separated. A line this version cannot read is skipped; a file that
// cannot be read or written only costs a new measurement.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_PEAK_CACHE_H_
#define KB_RUNTIME_BENCH_PEAK_CACHE_H_

#include "common/status.h"

#include <functional>
#include <string>

namespace kb::bench {

struct CachedPeak {
  double value = 0;
  bool cached = false; // read from the file, not measured now
};

/// The value under |key| in |cacheFile| ("" = no cache), else |measure|'s,
/// appended to the file.
StatusOr<CachedPeak>
cachedPeak(const std::string &cacheFile, const std::string &key,
           const std::function<StatusOr<double>()> &measure);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_PEAK_CACHE_H_

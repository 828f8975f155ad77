//===- runtime/bench/statistics.h - Sample summaries ----------------------===//
//
// The summary every timing mode reports: min, max, mean, median, Q1, Q3,
// unbiased standard deviation, relative standard deviation, IQR, count.
// This is the ONE summary rule of the project: the engine, the stopping
// rule, bench.json, every report format and `compare` use it (the report
// model's kb::report::summarize delegates here). Quartiles interpolate
// linearly between order statistics (numpy.quantile's default): the median
// of an even count is the mean of the two middle samples, as Google
// Benchmark's median aggregate and compare.py compute it, so a bench.json
// summary can be reproduced from its samples with numpy.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_STATISTICS_H_
#define KB_RUNTIME_BENCH_STATISTICS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kb::bench {

struct Summary {
  uint64_t count = 0;
  double min = 0, max = 0, mean = 0, median = 0, q1 = 0, q3 = 0;
  double stdev = 0;         // unbiased (n - 1); 0 below two samples
  double relativeStdev = 0; // stdev / mean; 0 when the mean is 0
  double iqr = 0;           // q3 - q1
};

/// Summarises |samples| (any order). All zeros for an empty vector.
Summary summarize(std::vector<double> samples);

/// The |q| quantile (0..1) of non-empty |sorted| samples by the rule above;
/// for callers that already hold a sorted copy (no second sort).
double quantileOfSorted(const std::vector<double> &sorted, double q);

/// Welford's online mean and variance: O(1) per sample, no catastrophic
/// cancellation on long runs of nearly equal values.
class OnlineVariance {
public:
  void add(double x);
  size_t count() const { return count_; }
  double mean() const { return mean_; }
  /// Unbiased variance; 0 below two samples.
  double variance() const;
  /// stdev / mean; infinity when the mean is 0 (no meaningful noise).
  double relativeStdev() const;

private:
  size_t count_ = 0;
  double mean_ = 0, m2_ = 0;
};

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_STATISTICS_H_

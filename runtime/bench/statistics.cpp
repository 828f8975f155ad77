//===- runtime/bench/statistics.cpp - Sample summaries --------------------===//
#include "runtime/bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kb::bench {

/// numpy.quantile's default: linear interpolation between the order
/// statistics around q * (n - 1) of the sorted samples.
double quantileOfSorted(const std::vector<double> &sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  OnlineVariance variance;
  for (double x : samples)
    variance.add(x);
  s.count = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.mean = variance.mean();
  s.median = quantileOfSorted(samples, 0.5);
  s.q1 = quantileOfSorted(samples, 0.25);
  s.q3 = quantileOfSorted(samples, 0.75);
  s.iqr = s.q3 - s.q1;
  s.stdev = std::sqrt(variance.variance());
  s.relativeStdev = s.mean != 0 ? s.stdev / s.mean : 0;
  return s;
}

void OnlineVariance::add(double x) {
  ++count_;
  double delta = x - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (x - mean_);
}

double OnlineVariance::variance() const {
  return count_ < 2 ? 0 : m2_ / static_cast<double>(count_ - 1);
}

double OnlineVariance::relativeStdev() const {
  if (mean_ == 0)
    return std::numeric_limits<double>::infinity();
  return std::sqrt(variance()) / mean_;
}

} // namespace kb::bench

//===- workbench/report/bootstrap.cpp - Bootstrap CI of a median ratio ----===//
#include "workbench/report/bootstrap.h"

#include "workbench/report/bench_results.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace kb::report {

namespace {

/// P(Binomial(n, p) >= k), by summing the pmf upwards from k with the
/// ratio recurrence (one lgamma per call).
double binomialTail(size_t n, size_t k, double p) {
  if (p <= 0)
    return k == 0 ? 1 : 0;
  if (p >= 1)
    return 1;
  double logPmf = std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) -
                  std::lgamma(double(n - k) + 1) + double(k) * std::log(p) +
                  double(n - k) * std::log1p(-p);
  double pmf = std::exp(logPmf), sum = 0, odds = p / (1 - p);
  for (size_t i = k; i <= n; ++i) {
    sum += pmf;
    pmf *= double(n - i) / double(i + 1) * odds;
    if (pmf < sum * 1e-17 && double(i) > double(n) * p)
      break; // the rest cannot change a double
  }
  return std::min(sum, 1.0);
}

double uniform01(std::mt19937_64 &rng) {
  return double(rng() >> 11) * 0x1.0p-53;
}

} // namespace

const std::vector<double> &MedianRatioBootstrap::orderStatisticCdf(size_t n,
                                                                   size_t k) {
  auto [it, inserted] = cdfs_.try_emplace({n, k});
  if (inserted) {
    it->second.resize(n);
    for (size_t j = 1; j <= n; ++j)
      it->second[j - 1] = binomialTail(n, k, double(j) / double(n));
    it->second[n - 1] = 1.0;
  }
  return it->second;
}

RatioInterval MedianRatioBootstrap::interval(std::vector<double> base,
                                             std::vector<double> candidate,
                                             uint64_t seed) {
  std::sort(base.begin(), base.end());
  std::sort(candidate.begin(), candidate.end());
  return intervalOfSorted(base, candidate, seed);
}

RatioInterval
MedianRatioBootstrap::intervalOfSorted(const std::vector<double> &base,
                                       const std::vector<double> &candidate,
                                       uint64_t seed, uint32_t resamples) {
  RatioInterval out;
  out.ratio = quantileOfSorted(candidate, 0.5) / quantileOfSorted(base, 0.5);
  Side b = side(base), c = side(candidate);
  std::mt19937_64 rng(seed);
  ratios_.resize(resamples ? resamples : resamples_);
  for (double &ratio : ratios_) {
    double bm = drawMedian(b, rng);
    ratio = drawMedian(c, rng) / bm;
  }
  return percentiles(out.ratio);
}

RatioInterval MedianRatioBootstrap::anchoredIntervalOfSorted(
    const AnchoredSides &s, uint64_t seed, uint32_t resamples) {
  auto median = [](const std::vector<double> *v) {
    return quantileOfSorted(*v, 0.5);
  };
  double ratio = median(s.candidate) / median(s.base) /
                 (median(s.anchorCandidate) / median(s.anchorBase));
  Side b = side(*s.base), c = side(*s.candidate);
  Side ab = side(*s.anchorBase), ac = side(*s.anchorCandidate);
  std::mt19937_64 rng(seed);
  ratios_.resize(resamples ? resamples : resamples_);
  for (double &r : ratios_) { // one statement per draw: a fixed order
    double bm = drawMedian(b, rng);
    double cm = drawMedian(c, rng);
    double abm = drawMedian(ab, rng);
    double acm = drawMedian(ac, rng);
    r = cm / bm / (acm / abm);
  }
  return percentiles(ratio);
}

RatioInterval MedianRatioBootstrap::pairedInterval(std::vector<double> ratios,
                                                   uint64_t seed) {
  std::sort(ratios.begin(), ratios.end());
  double median = quantileOfSorted(ratios, 0.5);
  Side s = side(ratios);
  std::mt19937_64 rng(seed);
  ratios_.resize(resamples_);
  for (uint32_t r = 0; r < resamples_; ++r)
    ratios_[r] = drawMedian(s, rng);
  return percentiles(median);
}

MedianRatioBootstrap::Side
MedianRatioBootstrap::side(const std::vector<double> &sorted) {
  size_t n = sorted.size();
  size_t k = (n + 1) / 2;
  Side s{&sorted, k, n % 2 ? k : k + 1, nullptr, nullptr};
  if (n <= kMaxTableSamples) {
    s.lowerCdf = &orderStatisticCdf(n, s.lower);
    s.upperCdf = n % 2 ? s.lowerCdf : &orderStatisticCdf(n, s.upper);
  }
  return s;
}

double MedianRatioBootstrap::drawMedian(const Side &s,
                                        std::mt19937_64 &rng) const {
  size_t n = s.sorted->size();
  bool upper = s.lower != s.upper && (rng() & 1);
  if (s.lowerCdf) { // the table: one uniform and a binary search
    const std::vector<double> &cdf = upper ? *s.upperCdf : *s.lowerCdf;
    size_t j =
        std::lower_bound(cdf.begin(), cdf.end(), uniform01(rng)) - cdf.begin();
    return (*s.sorted)[std::min(j, n - 1)];
  }
  size_t k = upper ? s.upper : s.lower;
  // U_(k) ~ Beta(k, n + 1 - k) as X / (X + Y), X ~ Gamma(k), Y ~ Gamma(n+1-k).
  double x = std::gamma_distribution<double>(double(k))(rng);
  double y = std::gamma_distribution<double>(double(n + 1 - k))(rng);
  double u = x / (x + y);
  size_t j = std::min(static_cast<size_t>(u * double(n)), n - 1);
  return (*s.sorted)[j];
}

RatioInterval MedianRatioBootstrap::percentiles(double ratio) {
  RatioInterval out;
  out.ratio = ratio;
  double alpha = (1 - confidence_) / 2;
  auto at = [&](double q) {
    size_t i = std::min(ratios_.size() - 1,
                        size_t(q * double(ratios_.size() - 1) + 0.5));
    std::nth_element(ratios_.begin(), ratios_.begin() + i, ratios_.end());
    return ratios_[i];
  };
  out.low = at(alpha);
  out.high = at(1 - alpha);
  return out;
}

} // namespace kb::report

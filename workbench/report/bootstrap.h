//===- workbench/report/bootstrap.h - Bootstrap CI of a median ratio ------===//
//
// The confidence interval of median(new) / median(base) by the percentile
// bootstrap with a fixed seed and resample count, so the same two reports
// always give the same verdict.
//
// Speed: a resample's median is drawn directly from its exact distribution
// instead of by drawing n values and selecting. A draw with replacement from
// sorted x_1..x_n is x_(floor(n U) + 1) for a uniform U, and that map is
// monotone, so the k-th order statistic of n draws is x_(floor(n U_(k)) + 1)
// with U_(k), the k-th order statistic of n uniforms, distributed
// Beta(k, n + 1 - k): two gamma variates per resample, O(1), after one sort
// of each side — O(n log n) per row whatever the resample count. Up to 4096
// samples a table is cheaper still: P(U_(k) <= j/n) is Binomial(n, j/n) >= k
// (Efron 1982), built once per sample count (O(n^2)) and shared by every
// row with that count, then one uniform and a binary search per resample. For
// even n the median is the mean of the (n/2)-th and (n/2+1)-th order
// statistics, whose joint law is not one Beta; each resample then takes one of
// the two at random, a mixture whose spread is at least the true one (a
// slightly wider, conservative CI).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_BOOTSTRAP_H_
#define KB_WORKBENCH_REPORT_BOOTSTRAP_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace kb::report {

struct RatioInterval {
  double ratio = 1; // median(new) / median(base), interpolated medians
  double low = 1, high = 1;
};

class MedianRatioBootstrap {
public:
  MedianRatioBootstrap(uint32_t resamples, double confidence)
      : resamples_(resamples), confidence_(confidence) {}

  /// |base| and |candidate| need not be sorted; both non-empty and > 0.
  /// |seed| makes the draw reproducible (callers derive it from the row).
  RatioInterval interval(std::vector<double> base,
                         std::vector<double> candidate, uint64_t seed);
  /// The same for samples the caller already sorted (ascending): no copy,
  /// no second sort. |resamples| 0 takes the constructor's count; fewer
  /// give a first, rougher interval (compare decides the rows far from
  /// their band's edges on it).
  RatioInterval intervalOfSorted(const std::vector<double> &base,
                                 const std::vector<double> &candidate,
                                 uint64_t seed, uint32_t resamples = 0);

  /// A drift-corrected ratio (compare.h, "anchored verdicts"): the median
  /// ratio new/base of a row divided by its anchor's, both from the same
  /// two runs. Each of the four medians is drawn from its own exact
  /// distribution, independently (see intervalOfSorted for |resamples|).
  /// Sorted, non-empty, positive.
  struct AnchoredSides {
    const std::vector<double> *base, *candidate;             // the row
    const std::vector<double> *anchorBase, *anchorCandidate; // its anchor
  };
  RatioInterval anchoredIntervalOfSorted(const AnchoredSides &sides,
                                         uint64_t seed, uint32_t resamples = 0);

  /// Paired samples (`bench --baseline`): the median of |ratios| (one per
  /// pair, candidate / baseline) and its CI from resampling the pairs —
  /// whatever drift did to a pair it did to both sides, so it cancels in
  /// the ratio. Non-empty.
  RatioInterval pairedInterval(std::vector<double> ratios, uint64_t seed);

private:
  /// Sorted values, the ranks of their middle order statistics (1-based)
  /// and, up to kMaxTableSamples, those order statistics' CDF tables.
  struct Side {
    const std::vector<double> *sorted;
    size_t lower, upper;                            // equal for odd n
    const std::vector<double> *lowerCdf, *upperCdf; // null: draw from Beta
  };
  Side side(const std::vector<double> &sorted);
  /// P(k-th order statistic <= x_j), j = 1..n, cached per (n, k): O(n^2)
  /// to build once per sample count, then O(log n) per draw.
  const std::vector<double> &orderStatisticCdf(size_t n, size_t k);
  /// Above this many samples a table would cost more than the Beta draws.
  static constexpr size_t kMaxTableSamples = 4096;
  /// A resample's median of |s|, drawn from its exact distribution.
  double drawMedian(const Side &s, std::mt19937_64 &rng) const;
  /// The percentile interval of ratios_ around |ratio|.
  RatioInterval percentiles(double ratio);

  uint32_t resamples_;
  double confidence_;
  std::map<std::pair<size_t, size_t>, std::vector<double>> cdfs_;
  std::vector<double> ratios_; // scratch, reused across rows
};

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_BOOTSTRAP_H_

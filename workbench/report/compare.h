//===- workbench/report/compare.h - Regression verdicts between reports ---===//
//
// `kernel-bench compare` without the command line: pairs the rows of one or
// more base reports with a new report by id (report_rows.h) and gives each
// a verdict from the bootstrap CI of the median ratio new/base
// (research: an equivalence-style rule with a practical threshold δ):
//   SLOWER        the whole CI is above 1 + band
//   FASTER        the whole CI is below 1 − band
//   SAME          the whole CI is inside [1 − band, 1 + band]
//   INCONCLUSIVE  anything else (too noisy to tell at this band), or fewer
//                 than minSamples samples on a side
// Each row's band is the largest of δ, k × its own noise and, with several
// base reports (history), 2 × its run-to-run spread:
//   band = max(δ, k × noise, 2 × spread)
// noise is the larger of the two sides' robust relative spread (IQR /
// (1.349 × median): the σ of a normal with that IQR, relative to the
// median). The CI shrinks with more samples, but a median does not move
// less between runs than the samples it came from suggest: nvbench's
// compare calls a difference within the rows' noise SAME for that reason.
// k (kNoiseFactor) was chosen from measured A/A and detection rates
// (bench/verdict_rates). The spread of history is the relative stdev of the
// per-run medians; the base's samples are pooled over its reports.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_COMPARE_H_
#define KB_WORKBENCH_REPORT_COMPARE_H_

#include "common/status.h"
#include "workbench/report/bench_results.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::report {

enum class Verdict { Faster, Slower, Same, Inconclusive };
/// k of the band max(δ, k × noise): bench/verdict_rates measured the A/A
/// and detection rates this value gives (bench/README.md).
inline constexpr double kNoiseFactor = 2.0;

/// The robust relative spread of |sorted| (non-empty, ascending, positive):
/// IQR / (1.349 × median), 0 for a zero median. One stray sample moves it
/// little, unlike stdev / mean.
double robustRelativeSpread(const std::vector<double> &sorted);
const char *toString(Verdict verdict); // "FASTER", ...

struct CompareOptions {
  double threshold = 0.02; // δ, relative
  /// k: a row's band is at least k × its noise (0: δ and history only).
  double noiseFactor = kNoiseFactor;
  uint32_t resamples = 2000;
  /// A first, smaller bootstrap: a row whose interval lies far from its
  /// band's edges (by a quarter of its width) is decided on it; the rest
  /// get every resample. 0: every row gets every resample.
  uint32_t firstStageResamples = 250;
  double confidence = 0.95;
  uint64_t seed = 0x6b62636d70ULL; // fixed: same inputs, same verdicts
  bool allowDifferentDevices = false;
  /// Below this many samples on a side (the base's pooled over its
  /// reports), or pairs with --baseline, a row is INCONCLUSIVE whatever its
  /// interval says: a bootstrap of 1-3 samples is confidently wrong.
  uint32_t minSamples = kMinSamplesForVerdict;
};

struct RowComparison {
  std::string id; // "saxpy/candidate/cold"
  Verdict verdict = Verdict::Inconclusive;
  double ratio = 1, low = 1, high = 1; // new / base, CI [low, high]
  double threshold = 0;                // the band used for this row
  std::optional<double> runToRunNoise; // from history (>= 2 base reports)
  /// The larger of the two sides' robust relative spread.
  double noise = 0;
  /// Which term set the band: "threshold" (δ), "noise" or "history".
  std::string bandFrom = "threshold";
  double baseMedianNs = 0, newMedianNs = 0;
  size_t baseSamples = 0, newSamples = 0;
  /// Why the row is INCONCLUSIVE before its interval was looked at
  /// ("3 samples < 10 in NEW"); empty otherwise.
  std::string why;
};

/// A row present in both reports that could not be compared.
struct Uncomparable {
  std::string id;
  std::string why;  // "INCORRECT in NEW: ...", "no samples in BASE"
  bool newIsBroken; // NEW is incorrect or errored (a regression)
};

struct Comparison {
  std::vector<RowComparison> rows;
  std::vector<std::string> onlyInBase, onlyInNew;
  std::vector<Uncomparable> uncomparable;
  std::optional<double> geomeanRatio; // over rows, new / base
  std::string baseDevice, newDevice;
  size_t baseReports = 1;
  CompareOptions options;

  size_t count(Verdict v) const;
  /// SLOWER rows or a NEW row that became incorrect / errored.
  bool hasRegression() const;
};

/// Compares |bases| (oldest first; at least one) with |candidate|.
/// FailedPrecondition when the devices differ (unless allowed) or when no
/// row is common to both sides: exit 4 material, with a message that says
/// which.
StatusOr<Comparison> compareReports(const std::vector<BenchReport> &bases,
                                    const BenchReport &candidate,
                                    const CompareOptions &options);

/// "2%" or "0.02" → 0.02 in |out|; an error text otherwise (the --threshold
/// of `compare` and of `bench --baseline`).
std::string parseThreshold(const std::string &text, double &out);

/// The verdict for a ratio CI [low, high] at threshold δ (the rule above).
Verdict decideVerdict(double low, double high, double threshold);

/// `bench --baseline`: |candidate| against |baseline|, two timings of one
/// mode taken in lockstep (sample i of each from the same round): the
/// median of the per-pair ratios candidate / baseline, its bootstrap CI
/// (pairs resampled, options.resamples, seed from |id|) and the verdict at
/// the band max(options.threshold, options.noiseFactor × the robust
/// relative spread of the ratios), recorded as the comparison's threshold.
/// InvalidArgument when the sample counts differ or are
/// zero, or a sample is not positive.
StatusOr<PairedComparison> comparePaired(const Timing &baseline,
                                         const Timing &candidate,
                                         const std::string &id,
                                         const CompareOptions &options);

/// The Markdown summary (also what `compare` prints).
std::string renderComparisonMarkdown(const Comparison &comparison);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_COMPARE_H_

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
// Anchored verdicts. A whole run can be slower or faster than another (a
// shared CPU's load, a GPU clock held low) by far more than the spread of
// its samples, and every row of that run moves alike. A benchmark's
// reference kernel (the compiler's own version of the dispatch), when it is
// the same object in both reports, measures that drift: it ran the same code
// in both runs, interleaved with the candidate. So a row of a benchmark with
// such an anchor (reference_anchor.h) is judged on its drift-corrected
// ratio, (new / base) / (anchor's new / anchor's base), whose CI comes from
// bootstrapping all four medians, each independently: candidate and
// reference samples of one run share its short-term load, so their medians
// move together, and independent draws make the interval wider, never
// falsely narrow. The k × noise term stood in for the drift that one run
// cannot see; the anchor measures it, so an anchored row's band is
// max(δ, k_anchored × noise, 2 × spread) with k_anchored = 0 by default
// (kAnchoredNoiseFactor; noise: the row's and the anchor's in quadrature,
// a ratio of two ratios). The anchor row itself gets
// no verdict of its own (ANCHOR: it is the ruler, and its change is the
// drift). Rows without an anchor (a changed reference object, a benchmark
// without a reference, reports without object identities) keep the rule
// above; CompareOptions::anchors = false turns anchoring off.
//
// Paired anchoring. A run's candidate and reference are sampled round by
// round (runtime/bench/measure.h): sample i of each comes from the same
// round, a few milliseconds apart, and load that changes within a run (a
// shared CPU's other jobs, lavapipe's threads) moves both. Where every
// report of the row has those pairs intact — no sample discarded on either
// side (a discarded sample shifts the rounds) — the row is judged on the
// per-round ratios candidate_i / reference_i instead: their median in NEW
// over their median in the base (pooled over its reports), its CI from
// resampling each side's ratios, its band max(δ, k_paired × the ratios'
// robust spread, 2 × spread). It measures the same drift-corrected change
// with the within-run drift divided out too; bench/verdict_rates measured
// both rules on the same runs (bench/README.md).
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

/// Anchor: a reference row used to correct its benchmark's rows for the
/// drift between the runs; never a regression.
enum class Verdict { Faster, Slower, Same, Inconclusive, Anchor };
/// k of the band max(δ, k × noise): bench/verdict_rates measured the A/A
/// and detection rates this value gives (bench/README.md).
inline constexpr double kNoiseFactor = 2.0;
/// k for anchored rows: the drift that k × noise covers is measured by the
/// anchor and divided out, and the four-median bootstrap covers the
/// sampling error of each median. bench/verdict_rates measured 0 and 2 on
/// the same runs (bench/README.md): 2 gave up most detections for no fewer
/// false alarms.
inline constexpr double kAnchoredNoiseFactor = 0.0;
/// k for rows anchored pair by pair, times the robust spread of their
/// per-round ratios: rounds a load hit unevenly (a shared CPU under heavy
/// load) spread the ratios, and the band widens with them. Measured with
/// bench/verdict_rates at 0, 1 and 2 (bench/README.md).
inline constexpr double kPairedNoiseFactor = 1.0;

/// The robust relative spread of |sorted| (non-empty, ascending, positive):
/// IQR / (1.349 × median), 0 for a zero median. One stray sample moves it
/// little, unlike stdev / mean.
double robustRelativeSpread(const std::vector<double> &sorted);
const char *toString(Verdict verdict); // "FASTER", ...

struct CompareOptions {
  double threshold = 0.02; // δ, relative
  /// k: a row's band is at least k × its noise (0: δ and history only).
  double noiseFactor = kNoiseFactor;
  /// k for rows judged on an anchored ratio.
  double anchoredNoiseFactor = kAnchoredNoiseFactor;
  /// k for rows anchored pair by pair.
  double pairedNoiseFactor = kPairedNoiseFactor;
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
  /// Judge rows on the ratio corrected by their benchmark's reference
  /// kernel when it is the same object on both sides (`--anchor
  /// reference`, the default); false: raw ratios (`--anchor none`).
  bool anchors = true;
  /// Anchored rows with intact pairs are judged pair by pair (paired
  /// anchoring, the default); false: on medians only (`--anchor medians`).
  bool pairedAnchors = true;
};

struct RowComparison {
  std::string id; // "saxpy/candidate/cold"
  Verdict verdict = Verdict::Inconclusive;
  /// The ratio the verdict was decided on and its CI [low, high]: new /
  /// base, divided by the drift when the row is anchored.
  double ratio = 1, low = 1, high = 1;
  double rawRatio = 1; // median new / median base, uncorrected
  /// Anchored rows: the anchor's raw ratio (the drift between the runs)
  /// and its row id.
  std::optional<double> drift;
  std::string anchor;
  double threshold = 0;                // the band used for this row
  std::optional<double> runToRunNoise; // from history (>= 2 base reports)
  /// The larger of the two sides' robust relative spread; anchored: that
  /// and the anchor's in quadrature, or, paired, the spread of the pairs'
  /// ratios.
  double noise = 0;
  /// Anchored sample by sample (paired anchoring) rather than by medians.
  bool paired = false;
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
  /// Over the rows but the anchors, of the ratio each verdict used.
  std::optional<double> geomeanRatio;
  std::string baseDevice, newDevice;
  size_t baseReports = 1;
  CompareOptions options;

  size_t count(Verdict v) const;
  /// The geometric mean of the ANCHOR rows' ratios: the drift between the
  /// runs where anchors measured it; none without anchors.
  std::optional<double> driftGeomean() const;
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

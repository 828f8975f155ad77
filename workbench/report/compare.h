//===- workbench/report/compare.h - Regression verdicts between reports ---===//
//
// `kernel-bench compare` without the command line: pairs the rows of one or
// more base reports with a new report by id (report_rows.h) and gives each
// a verdict from the bootstrap CI of the median ratio new/base
// (research: an equivalence-style rule with a practical threshold δ):
//   SLOWER        the whole CI is above 1 + δ
//   FASTER        the whole CI is below 1 − δ
//   SAME          the whole CI is inside [1 − δ, 1 + δ]
//   INCONCLUSIVE  anything else (too noisy to tell at this δ)
// With several base reports (history), each row's base samples are pooled
// and its run-to-run noise — the spread of the per-run medians — widens
// that row's δ: δ_row = max(δ, 2 × relative stdev of the base medians).
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
const char *toString(Verdict verdict); // "FASTER", ...

struct CompareOptions {
  double threshold = 0.02; // δ, relative
  uint32_t resamples = 2000;
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
  double threshold = 0;                // δ used for this row
  std::optional<double> runToRunNoise; // from history (>= 2 base reports)
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
/// options.threshold. InvalidArgument when the sample counts differ or are
/// zero, or a sample is not positive.
StatusOr<PairedComparison> comparePaired(const Timing &baseline,
                                         const Timing &candidate,
                                         const std::string &id,
                                         const CompareOptions &options);

/// The Markdown summary (also what `compare` prints).
std::string renderComparisonMarkdown(const Comparison &comparison);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_COMPARE_H_

//===- workbench/report/compare.cpp - Regression verdicts between reports -===//
#include "workbench/report/compare.h"

#include "workbench/report/bootstrap.h"
#include "workbench/report/markdown_table.h"
#include "workbench/report/reference_anchor.h"
#include "workbench/report/report_rows.h"

#include "common/abi_check.h"
#include "common/benchmark_name.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace kb::report {

const char *toString(Verdict verdict) {
  switch (verdict) {
  case Verdict::Faster:
    return "FASTER";
  case Verdict::Slower:
    return "SLOWER";
  case Verdict::Same:
    return "SAME";
  case Verdict::Inconclusive:
    return "INCONCLUSIVE";
  case Verdict::Anchor:
    return "ANCHOR";
  }
  return "INCONCLUSIVE";
}

size_t Comparison::count(Verdict v) const {
  size_t n = 0;
  for (const RowComparison &r : rows)
    n += r.verdict == v;
  return n;
}

std::optional<double> Comparison::driftGeomean() const {
  double logSum = 0;
  size_t n = 0;
  for (const RowComparison &r : rows)
    if (r.verdict == Verdict::Anchor)
      logSum += std::log(r.ratio), ++n;
  if (!n)
    return std::nullopt;
  return std::exp(logSum / double(n));
}

bool Comparison::hasRegression() const {
  if (count(Verdict::Slower))
    return true;
  for (const Uncomparable &u : uncomparable)
    if (u.newIsBroken)
      return true;
  return false;
}

namespace {

using RowMap = std::map<std::string, ReportRow>;

RowMap rowMap(const BenchReport &report) {
  RowMap map;
  for (ReportRow &row : reportRows(report))
    map.emplace(row.id, row);
  return map;
}

uint64_t fnv1a(const std::string &text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text)
    h = (h ^ c) * 1099511628211ULL;
  return h;
}

Status checkDevices(const std::vector<BenchReport> &bases,
                    const BenchReport &candidate,
                    const CompareOptions &options) {
  if (options.allowDifferentDevices)
    return okStatus();
  for (const BenchReport &base : bases)
    if (base.device.name != candidate.device.name)
      return failedPrecondition(
          "the reports come from different devices: BASE ran on \"" +
          base.device.name + "\", NEW on \"" + candidate.device.name +
          "\"; timings of different devices are not comparable (pass "
          "--allow-different-devices to compare anyway)");
  return okStatus();
}

/// One base report's row: which report (its index) and the row.
struct BaseRun {
  size_t report;
  const ReportRow *row;
};

/// Relative stdev of the per-run |medians| (none with fewer than 2 runs).
std::optional<double> runToRunNoise(const std::vector<double> &medians) {
  if (medians.size() < 2)
    return std::nullopt;
  std::vector<double> logs;
  for (double m : medians)
    logs.push_back(std::log(m));
  Summary s = summarize(logs);
  return std::expm1(s.stdev); // stdev of log ≈ relative stdev
}

/// The band of a row: max(δ, k × noise, 2 × run-to-run spread), and which
/// term set it (compare.h).
void setBand(RowComparison &rc, const CompareOptions &options) {
  rc.threshold = options.threshold;
  // Paired rows: k_paired x the spread of their per-round ratios (which
  // the load a run's rounds did not share widens); median-anchored rows,
  // k_anchored; the rest, k.
  double k = rc.paired  ? options.pairedNoiseFactor
             : rc.drift ? options.anchoredNoiseFactor
                        : options.noiseFactor;
  if (double noiseBand = k * rc.noise; noiseBand > rc.threshold) {
    rc.threshold = noiseBand;
    rc.bandFrom = "noise";
  }
  if (rc.runToRunNoise && 2 * *rc.runToRunNoise > rc.threshold) {
    rc.threshold = 2 * *rc.runToRunNoise;
    rc.bandFrom = "history";
  }
}

std::string brokenWhy(const ReportRow &row, const char *side) {
  std::string why = row.verdict() + " in " + side;
  if (!row.benchmark->reason.empty())
    why += ": " + row.benchmark->reason;
  return why;
}

} // namespace

double robustRelativeSpread(const std::vector<double> &sorted) {
  // 1.349 = the IQR of a standard normal: the spread in units of σ.
  constexpr double kIqrPerSigma = 1.349;
  double median = quantileOfSorted(sorted, 0.5);
  if (!(median > 0))
    return 0;
  double iqr = quantileOfSorted(sorted, 0.75) - quantileOfSorted(sorted, 0.25);
  return iqr / (kIqrPerSigma * median);
}

std::string parseThreshold(const std::string &text, double &out) {
  std::string number = text;
  bool percent = !number.empty() && number.back() == '%';
  if (percent)
    number.pop_back();
  char *end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0')
    return "expected a relative threshold like 2% or 0.02, found '" + text +
           "'";
  if (percent)
    v /= 100;
  if (!(v > 0 && v < 1))
    return "the threshold must be between 0 and 100% (exclusive), found '" +
           text + "'" +
           (!percent && v >= 1 ? " (did you mean " + text + "%?)"
                               : std::string());
  out = v;
  return "";
}

Verdict decideVerdict(double low, double high, double threshold) {
  if (low > 1 + threshold)
    return Verdict::Slower;
  if (high < 1 - threshold)
    return Verdict::Faster;
  if (low >= 1 - threshold && high <= 1 + threshold)
    return Verdict::Same;
  return Verdict::Inconclusive;
}

namespace {
/// "3 samples < 10 in NEW" when a side has fewer than |min| samples.
std::string tooFewSamples(size_t base, size_t fresh, uint32_t min) {
  std::string why;
  for (auto [count, side] :
       {std::pair<size_t, const char *>{base, "BASE"}, {fresh, "NEW"}})
    if (count < min)
      why += (why.empty() ? "" : ", ") + std::to_string(count) + " samples < " +
             std::to_string(min) + " in " + side;
  return why;
}
} // namespace

StatusOr<PairedComparison> comparePaired(const Timing &baseline,
                                         const Timing &candidate,
                                         const std::string &id,
                                         const CompareOptions &options) {
  size_t n = candidate.samples.size();
  if (n == 0 || baseline.samples.size() != n)
    return invalidArgument(
        id + ": paired samples need equal, non-zero counts (baseline " +
        std::to_string(baseline.samples.size()) + ", candidate " +
        std::to_string(n) + ")");
  std::vector<double> ratios(n);
  for (size_t i = 0; i < n; ++i) {
    double base = baseline.samples[i].gpuNs;
    if (!(base > 0) || !(candidate.samples[i].gpuNs > 0))
      return invalidArgument(id + ": sample " + std::to_string(i) +
                             " is not a positive time");
    ratios[i] = candidate.samples[i].gpuNs / base;
  }
  std::sort(ratios.begin(), ratios.end());
  // The pairs' own spread: drift cancels in each ratio, the noise of both
  // sides does not, and a median of ratios moves between runs by about it.
  double band = std::max(options.threshold,
                         options.noiseFactor * robustRelativeSpread(ratios));
  MedianRatioBootstrap bootstrap(options.resamples, options.confidence);
  RatioInterval ci =
      bootstrap.pairedInterval(std::move(ratios), options.seed ^ fnv1a(id));
  PairedComparison p;
  p.mode = candidate.mode;
  p.pairs = n;
  p.ratio = ci.ratio;
  p.low = ci.low;
  p.high = ci.high;
  p.threshold = band;
  p.verdict =
      toString(n < options.minSamples ? Verdict::Inconclusive
                                      : decideVerdict(ci.low, ci.high, band));
  return p;
}

namespace {
/// Whether more resamples could move an end of |ci| across an edge of the
/// band: an end within a quarter of the interval's width of an edge. The
/// Monte Carlo error of a 2.5 % percentile from 250 resamples is about
/// 0.05 x the width, so a quarter is five of them.
bool nearBandEdge(const RatioInterval &ci, double band) {
  double margin = 0.25 * (ci.high - ci.low);
  for (double edge : {1 - band, 1 + band})
    for (double end : {ci.low, ci.high})
      if (std::fabs(end - edge) <= margin)
        return true;
  return false;
}

/// One bootstrap interval of a row from |resamples| draws (0: all of
/// CompareOptions::resamples).
using IntervalDraw = std::function<RatioInterval(uint32_t resamples)>;

/// The bootstrap interval in two stages: most rows of a large comparison
/// lie far from their band's edges, and their verdict is settled by an
/// eighth of the resamples; the others get all of options.resamples (same
/// seed, so the same inputs give the same interval).
RatioInterval twoStageInterval(const IntervalDraw &draw, double band,
                               const CompareOptions &options) {
  uint32_t firstStage = options.firstStageResamples;
  if (firstStage > 0 && options.resamples > 2 * firstStage) {
    RatioInterval first = draw(firstStage);
    if (!nearBandEdge(first, band))
      return first;
  }
  return draw(0);
}

/// A row's GPU times, sorted: the base's pooled over its reports, NEW's.
/// Anchored, |judged| holds the base's samples the verdict uses: each
/// report's divided by its anchor's median in that report, as the anchor's
/// own are (reference_anchor.h); otherwise it is |base|.
struct RowSamples {
  std::vector<double> base, fresh, anchoredBase;
  /// Paired anchoring: the per-round ratios row / anchor, the base's pooled
  /// over its reports, NEW's; sorted. Empty when a report's pairs are not
  /// intact.
  std::vector<double> pairedBase, pairedFresh;
  const std::vector<double> &judged() const {
    return anchoredBase.empty() ? base : anchoredBase;
  }
};

/// candidate_i / reference_i for the rounds both were sampled in, into
/// |out|; false when a discarded sample (either side) leaves the rounds
/// unknown.
bool roundRatios(const Timing &row, const Timing *anchor,
                 std::vector<double> &out) {
  if (!anchor || row.discarded != 0 || anchor->discarded != 0)
    return false;
  size_t n = std::min(row.samples.size(), anchor->samples.size());
  for (size_t i = 0; i < n; ++i) {
    double ratio = row.samples[i].gpuNs / anchor->samples[i].gpuNs;
    // Reports from the reader hold positive times; a caller's own may not.
    if (!std::isfinite(ratio) || !(ratio > 0))
      return false;
    out.push_back(ratio);
  }
  return n > 0;
}

/// The paired-anchoring ratios of |s| (RowSamples), or none.
void pairWithAnchor(const ReportRow &row, const std::vector<BaseRun> &runs,
                    const ReferenceAnchor &anchor, RowSamples &s) {
  std::vector<double> base, fresh;
  for (const BaseRun &r : runs)
    if (!roundRatios(*r.row->timing, anchor.baseTimings[r.report], base))
      return;
  if (!roundRatios(*row.timing, anchor.freshTiming, fresh))
    return;
  std::sort(base.begin(), base.end());
  std::sort(fresh.begin(), fresh.end());
  s.pairedBase = std::move(base);
  s.pairedFresh = std::move(fresh);
}

RowSamples pooledSamples(const ReportRow &row, const std::vector<BaseRun> &runs,
                         const ReferenceAnchor *anchor, bool pairs) {
  RowSamples s;
  for (const BaseRun &r : runs) {
    std::optional<double> scale;
    if (anchor)
      scale = anchor->baseRunMedians[r.report];
    for (const Sample &sample : r.row->timing->samples) {
      s.base.push_back(sample.gpuNs);
      if (scale)
        s.anchoredBase.push_back(sample.gpuNs / *scale);
    }
  }
  s.fresh = gpuTimes(*row.timing);
  for (std::vector<double> *v : {&s.base, &s.fresh, &s.anchoredBase})
    std::sort(v->begin(), v->end());
  if (anchor && pairs)
    pairWithAnchor(row, runs, *anchor, s);
  return s;
}

/// What the drift correction by |anchor| changes in |rc|: the drift, the
/// noise (the row's and the anchor's in quadrature: the anchored ratio is
/// a ratio of two ratios, whose relative errors add so when independent)
/// and history's spread, now of the per-run medians relative to the
/// anchor's of the same run.
void applyAnchor(RowComparison &rc, const ReferenceAnchor &anchor,
                 const std::vector<BaseRun> &runs) {
  rc.anchor = anchor.id;
  rc.drift = quantileOfSorted(anchor.fresh, 0.5) / anchor.baseMedianNs;
  rc.noise = std::hypot(rc.noise, std::max(robustRelativeSpread(anchor.base),
                                           robustRelativeSpread(anchor.fresh)));
  std::vector<double> medians;
  for (const BaseRun &r : runs)
    if (std::optional<double> m = anchor.baseRunMedians[r.report])
      medians.push_back(r.row->timing->summary.median / *m);
  rc.runToRunNoise = runToRunNoise(medians);
}

/// The verdict of |row| of NEW against its timed |runs| in the base
/// reports (pooled): the median ratio, divided by |anchor|'s when there is
/// one, its CI, the row's band.
RowComparison judgeRow(const ReportRow &row, const std::vector<BaseRun> &runs,
                       const ReferenceAnchor *anchor,
                       const CompareOptions &options,
                       MedianRatioBootstrap &bootstrap) {
  RowSamples s = pooledSamples(row, runs, anchor, options.pairedAnchors);
  RowComparison rc;
  rc.id = row.id;
  rc.baseSamples = s.base.size();
  rc.newSamples = s.fresh.size();
  rc.baseMedianNs = quantileOfSorted(s.base, 0.5);
  rc.newMedianNs = quantileOfSorted(s.fresh, 0.5);
  rc.rawRatio = rc.newMedianNs / rc.baseMedianNs;
  rc.noise =
      std::max(robustRelativeSpread(s.judged()), robustRelativeSpread(s.fresh));
  std::vector<double> medians;
  for (const BaseRun &r : runs)
    medians.push_back(r.row->timing->summary.median);
  rc.runToRunNoise = runToRunNoise(medians);
  if (anchor)
    applyAnchor(rc, *anchor, runs);
  rc.paired = !s.pairedFresh.empty();
  if (rc.paired)
    rc.noise = std::max(robustRelativeSpread(s.pairedBase),
                        robustRelativeSpread(s.pairedFresh));
  setBand(rc, options);
  uint64_t seed = options.seed ^ fnv1a(row.id);
  IntervalDraw draw = [&](uint32_t n) {
    if (rc.paired)
      return bootstrap.intervalOfSorted(s.pairedBase, s.pairedFresh, seed, n);
    if (anchor)
      return bootstrap.anchoredIntervalOfSorted(
          {&s.judged(), &s.fresh, &anchor->base, &anchor->fresh}, seed, n);
    return bootstrap.intervalOfSorted(s.base, s.fresh, seed, n);
  };
  RatioInterval ci = twoStageInterval(draw, rc.threshold, options);
  rc.ratio = ci.ratio;
  rc.low = ci.low;
  rc.high = ci.high;
  rc.verdict = decideVerdict(rc.low, rc.high, rc.threshold);
  rc.why = tooFewSamples(rc.baseSamples, rc.newSamples, options.minSamples);
  if (anchor)
    if (std::string few = tooFewSamples(
            anchor->base.size(), anchor->fresh.size(), options.minSamples);
        !few.empty())
      rc.why += (rc.why.empty() ? "anchor: " : "; anchor: ") + few;
  if (!rc.why.empty())
    rc.verdict = Verdict::Inconclusive;
  return rc;
}
} // namespace

namespace {
/// Pairs NEW's rows, one at a time, with the base reports' rows of the
/// same id into a Comparison.
class RowPairing {
public:
  RowPairing(const std::vector<BenchReport> &bases,
             const BenchReport &candidate, const CompareOptions &options,
             Comparison &out)
      : options_(options), out_(out),
        bootstrap_(options.resamples, options.confidence) {
    for (const BenchReport &b : bases) {
      baseMaps_.push_back(rowMap(b));
      for (const auto &[id, row] : baseMaps_.back())
        baseIds_.insert(id);
    }
    if (options.anchors)
      anchors_ = findReferenceAnchors(bases, candidate);
  }

  void add(const ReportRow &row) {
    seen_.insert(row.id);
    if (!row.variant)
      return addWithoutVariant(row);
    if (!baseIds_.count(row.id) && baseIds_.count(row.benchmark->name))
      return addNotRunInBase(row);
    std::vector<BaseRun> runs;
    bool inBase = false;
    for (size_t i = 0; i < baseMaps_.size(); ++i) {
      auto it = baseMaps_[i].find(row.id);
      if (it == baseMaps_[i].end())
        continue;
      inBase = true;
      if (it->second.timed())
        runs.push_back({i, &it->second});
    }
    if (!inBase)
      return out_.onlyInNew.push_back(row.id);
    if (!row.timed())
      return addBrokenInNew(row);
    if (runs.empty()) {
      const RowMap &last = baseMaps_.back();
      const ReportRow &b = last.count(row.id) ? last.at(row.id) : row;
      return out_.uncomparable.push_back({row.id, brokenWhy(b, "BASE"), false});
    }
    const ReferenceAnchor *anchor = anchorOf(row);
    if (anchor)
      usedAnchors_.insert(anchor->id);
    out_.rows.push_back(judgeRow(row, runs, anchor, options_, bootstrap_));
  }

  /// The anchors' verdicts, the rows only the base has, the geomean;
  /// FailedPrecondition when nothing was in common.
  Status finish() {
    for (const std::string &id : baseIds_)
      if (!seen_.count(id))
        out_.onlyInBase.push_back(id);
    if (out_.rows.empty() && out_.uncomparable.empty())
      return failedPrecondition(
          "the reports have no benchmark in common (BASE has " +
          std::to_string(baseIds_.size()) + " rows, NEW " +
          std::to_string(seen_.size()) +
          "; rows pair by benchmark/variant/mode): compare reports of the "
          "same project");
    double logSum = 0;
    size_t judged = 0;
    for (RowComparison &rc : out_.rows) {
      if (usedAnchors_.count(rc.id)) {
        rc.verdict = Verdict::Anchor; // the ruler, not a result
        continue;
      }
      logSum += std::log(rc.ratio);
      ++judged;
    }
    if (judged)
      out_.geomeanRatio = std::exp(logSum / double(judged));
    return okStatus();
  }

private:
  /// The anchor that corrects |row| (timed): its benchmark's reference of
  /// the same mode, unless |row| is a reference itself.
  const ReferenceAnchor *anchorOf(const ReportRow &row) const {
    if (row.variant->role == VariantRole::Reference)
      return nullptr;
    auto it = anchors_.find(anchorKey(*row.benchmark, row.timing->mode));
    return it == anchors_.end() ? nullptr : &it->second;
  }
  /// A benchmark that ran no variant has one row named after it; it pairs
  /// with every row of that benchmark on the other side.
  void addWithoutVariant(const ReportRow &row) {
    bool matched = false;
    for (const std::string &id : baseIds_)
      if (id == row.id || id.rfind(row.id + "/", 0) == 0)
        matched = true, seen_.insert(id);
    if (!matched)
      return out_.onlyInNew.push_back(row.id);
    addBrokenInNew(row);
  }
  void addBrokenInNew(const ReportRow &row) {
    std::string v = row.verdict();
    out_.uncomparable.push_back(
        {row.id, brokenWhy(row, "NEW"),
         v == "incorrect" || v == "error" || v == "sanitizer"});
  }
  /// The benchmark ran no variant in the base.
  void addNotRunInBase(const ReportRow &row) {
    seen_.insert(row.benchmark->name);
    const RowMap &last = baseMaps_.back();
    auto it = last.find(row.benchmark->name);
    out_.uncomparable.push_back({row.id,
                                 it != last.end()
                                     ? brokenWhy(it->second, "BASE")
                                     : std::string("not run in BASE"),
                                 false});
  }

  const CompareOptions &options_;
  Comparison &out_;
  MedianRatioBootstrap bootstrap_;
  std::vector<RowMap> baseMaps_;
  std::set<std::string> baseIds_, seen_;
  std::map<std::string, ReferenceAnchor> anchors_; // by anchorKey
  std::set<std::string> usedAnchors_;              // their row ids
};
} // namespace

namespace {
/// Today's name of each benchmark of |report| whose name an earlier
/// kernel-bench composed with a part said twice (common/benchmark_name.h),
/// by index; empty when there is none. A rename onto a name the report
/// already has, or onto one two benchmarks would both take, is left out:
/// they would no longer be told apart.
std::map<size_t, std::string> currentNames(const BenchReport &report) {
  std::set<std::string> names;
  for (const Benchmark &b : report.benchmarks)
    names.insert(b.name);
  std::map<size_t, std::string> renamed;
  std::map<std::string, size_t> takers;
  for (size_t i = 0; i < report.benchmarks.size(); ++i) {
    const Benchmark &b = report.benchmarks[i];
    std::string current = currentBenchmarkName(b.name, b.executable,
                                               readableEntryName(b.exportName));
    if (current != b.name && !names.count(current)) {
      ++takers[current];
      renamed.emplace(i, std::move(current));
    }
  }
  for (auto it = renamed.begin(); it != renamed.end();)
    it = takers[it->second] > 1 ? renamed.erase(it) : std::next(it);
  return renamed;
}

/// A copy of |report| with its benchmarks renamed by currentNames.
BenchReport withCurrentNames(const BenchReport &report,
                             const std::map<size_t, std::string> &names) {
  BenchReport copy = report;
  for (const auto &[i, name] : names)
    copy.benchmarks[i].name = name;
  return copy;
}

/// compareReports on reports whose benchmarks bear today's names.
StatusOr<Comparison> compareNamed(const std::vector<BenchReport> &bases,
                                  const BenchReport &candidate,
                                  const CompareOptions &options) {
  KB_RETURN_IF_ERROR(checkDevices(bases, candidate, options));
  Comparison out;
  out.options = options;
  out.baseDevice = bases.back().device.name;
  out.newDevice = candidate.device.name;
  out.baseReports = bases.size();
  RowPairing pairing(bases, candidate, options, out);
  for (const ReportRow &row : reportRows(candidate))
    pairing.add(row);
  KB_RETURN_IF_ERROR(pairing.finish());
  return out;
}
} // namespace

StatusOr<Comparison> compareReports(const std::vector<BenchReport> &bases,
                                    const BenchReport &candidate,
                                    const CompareOptions &options) {
  if (bases.empty())
    return invalidArgument("compare needs at least one base report");
  // Rows pair by name: a report from before benchmark names said each part
  // once is compared under today's names (copied only when one changes).
  bool old = !currentNames(candidate).empty();
  for (const BenchReport &b : bases)
    old = old || !currentNames(b).empty();
  if (!old)
    return compareNamed(bases, candidate, options);
  std::vector<BenchReport> renamed;
  for (const BenchReport &b : bases)
    renamed.push_back(withCurrentNames(b, currentNames(b)));
  return compareNamed(
      renamed, withCurrentNames(candidate, currentNames(candidate)), options);
}

namespace {

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", (ratio - 1) * 100);
  return buf;
}

std::string listLine(const char *what, const std::vector<std::string> &ids) {
  std::string s =
      std::string("- ") + what + " (" + std::to_string(ids.size()) + "): ";
  for (size_t i = 0; i < ids.size(); ++i)
    s += (i ? ", " : "") + markdownText(ids[i]);
  return s + "\n";
}

} // namespace

namespace {
void writeHeader(std::ostringstream &out, const Comparison &c) {
  out << "## kernel-bench compare\n\n";
  out << "BASE: " << markdownText(c.baseDevice);
  if (c.baseReports > 1)
    out << " (" << c.baseReports << " reports: samples pooled, run-to-run "
        << "noise widens each row's threshold)";
  out << "; NEW: " << markdownText(c.newDevice) << ". Threshold "
      << percent(1 + c.options.threshold).substr(1);
  if (c.options.noiseFactor > 0) {
    char k[32];
    std::snprintf(k, sizeof k, "%g", c.options.noiseFactor);
    out << " (a row's band: at least " << k << " \u00d7 its noise";
    if (c.driftGeomean() &&
        c.options.anchoredNoiseFactor != c.options.noiseFactor) {
      std::snprintf(k, sizeof k, "%g", c.options.anchoredNoiseFactor);
      out << "; an anchored row's: " << k << " \u00d7";
    }
    if (std::any_of(c.rows.begin(), c.rows.end(),
                    [](const RowComparison &r) { return r.paired; })) {
      std::snprintf(k, sizeof k, "%g", c.options.pairedNoiseFactor);
      out << "; a paired row's: " << k << " \u00d7 its pairs' spread";
    }
    out << ")";
  }
  out << ", " << int(c.options.confidence * 100 + 0.5)
      << " % bootstrap CI of the "
      << "median ratio (" << c.options.resamples << " resamples).\n\n";
}

/// What anchoring did: the drift and how the rows were judged.
void writeDrift(std::ostringstream &out, const Comparison &c) {
  if (!c.options.anchors) {
    out << "Anchors off (--anchor none): every row is judged on its raw "
           "ratio new/base.\n\n";
    return;
  }
  std::optional<double> drift = c.driftGeomean();
  if (!drift)
    return;
  out << "Drift between the runs: " << percent(*drift) << " (geomean of "
      << c.count(Verdict::Anchor)
      << " ANCHOR row(s): a benchmark's reference kernel, the same object in "
         "both reports, timed beside its candidate). Rows with an anchor are "
         "judged on the anchored change, (new/base) / the anchor's "
         "(new/base)"
      << (c.options.pairedAnchors
              ? ", pair by pair where every report's rounds are intact (the "
                "median of candidate_i / reference_i per round)"
              : "")
      << "; the change column is the raw one.\n\n";
}

std::string verdictCell(const RowComparison &r) {
  std::string v = toString(r.verdict);
  return r.why.empty() ? v : v + " (" + r.why + ")";
}

std::string anchoredCell(const RowComparison &r) {
  if (r.verdict == Verdict::Anchor)
    return "drift";
  return r.drift ? percent(r.ratio) : "-";
}
} // namespace

std::string renderComparisonMarkdown(const Comparison &c) {
  std::ostringstream out;
  writeHeader(out, c);
  writeDrift(out, c);
  MarkdownTable table({"benchmark", "verdict", "base", "new", "change",
                       "anchored", "95% CI", "threshold"},
                      {false, false, true, true, true, true, true, true});
  for (const RowComparison &r : c.rows)
    table.addRow(
        {r.id, verdictCell(r), formatDuration(r.baseMedianNs),
         formatDuration(r.newMedianNs), percent(r.rawRatio), anchoredCell(r),
         percent(r.low) + " .. " + percent(r.high),
         "\u00b1" + percent(1 + r.threshold).substr(1) +
             (r.bandFrom == "threshold" ? "" : " (" + r.bandFrom + ")")});
  if (!c.rows.empty())
    out << table.render() << "\n";
  out << "**" << c.count(Verdict::Slower) << " slower, "
      << c.count(Verdict::Faster) << " faster, " << c.count(Verdict::Same)
      << " same, " << c.count(Verdict::Inconclusive) << " inconclusive";
  if (size_t anchors = c.count(Verdict::Anchor))
    out << ", " << anchors << " anchor" << (anchors == 1 ? "" : "s");
  out << "**";
  if (c.geomeanRatio)
    out << "; geomean of new/base" << (c.driftGeomean() ? " (anchored)" : "")
        << ": " << percent(*c.geomeanRatio);
  out << ".\n";
  if (!c.uncomparable.empty()) {
    out << "\nNot compared:\n";
    for (const Uncomparable &u : c.uncomparable)
      out << "- " << markdownText(u.id) << ": " << markdownText(u.why) << "\n";
  }
  if (!c.onlyInBase.empty() || !c.onlyInNew.empty())
    out << "\n";
  if (!c.onlyInBase.empty())
    out << listLine("only in BASE", c.onlyInBase);
  if (!c.onlyInNew.empty())
    out << listLine("only in NEW", c.onlyInNew);
  return out.str();
}

} // namespace kb::report

//===- workbench/report/html_format.cpp - report.html ---------------------===//
//
// One self-contained page: inline CSS and inline SVG, no script, no fonts,
// no network — it opens offline, from a CI artifact or an e-mail. Charts:
// candidate vs reference median per benchmark with Q1..Q3 whiskers, % of
// the measured copy peak, and each row's sample distribution (a strip plot
// of every sample). A report with thousands of rows draws the first
// kMaxDistributions distributions and says how many it left out.
//
//===----------------------------------------------------------------------===//
#include "workbench/report/html_page.h"
#include "workbench/report/program_rows.h"
#include "workbench/report/report_formats.h"
#include "workbench/report/mismatch_maps.h"
#include "workbench/report/roofline.h"
#include "workbench/report/report_rows.h"
#include "workbench/report/sweep_charts.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kb::report {

namespace {

constexpr size_t kMaxDistributions = 200;

std::string esc(const std::string &text) { return htmlEscape(text); }
std::string num(double v) { return svgNumber(v); }

constexpr double kPlotWidth = 520, kRowHeight = 18;
/// The chart labels' gutter: sized from the longest label (a fixed 220 px
/// cut the start off `main_dispatch_0_512x256x1 · candidate`, the labels
/// being right-aligned), between these limits; a label too long for the
/// widest gutter is cut at its end, whole in its tooltip.
constexpr double kMinLabelWidth = 120, kMaxLabelWidth = 440;
/// An upper bound on a glyph's advance in the charts' 11px sans-serif (the
/// average is about 6 px): a gutter sized with it never cuts a label.
constexpr double kLabelCharWidth = 6.6, kLabelPadding = 16;

size_t codePoints(const std::string &text) {
  size_t n = 0;
  for (unsigned char c : text)
    n += (c & 0xC0) != 0x80;
  return n;
}

/// The gutter that holds the longest of |labels|.
double labelWidthFor(const std::vector<std::string> &labels) {
  size_t longest = 0;
  for (const std::string &label : labels)
    longest = std::max(longest, codePoints(label));
  return std::clamp(double(longest) * kLabelCharWidth + kLabelPadding,
                    kMinLabelWidth, kMaxLabelWidth);
}

std::string svgOpen(double height, const std::string &label,
                    double labelWidth) {
  // The viewBox lets the chart scale down to a narrow window (the style's
  // max-width) instead of widening the page.
  const std::string width = num(labelWidth + kPlotWidth + 120);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
         "aria-label=\"" +
         esc(label) + "\" width=\"" + width + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + width + " " + num(height) + "\">\n";
}

std::string text(double x, double y, const std::string &s,
                 const char *anchor = "start") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         anchor + "\">" + esc(s) + "</text>\n";
}

/// A chart label right-aligned against the plot at |labelWidth|, whole in
/// its <title> (every label has one: the page's structure does not depend
/// on the names); one that does not fit is cut at its end ("…").
std::string label(double y, const std::string &s, double labelWidth) {
  // The epsilon keeps n x 6.6 / 6.6 from rounding below n.
  size_t fits = size_t((labelWidth - kLabelPadding) / kLabelCharWidth + 1e-6);
  std::string shown = s;
  if (codePoints(s) > fits) {
    shown.clear();
    size_t kept = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++kept == fits)
        break; // the last place goes to the ellipsis
      shown += s[i];
    }
    shown += "\u2026";
  }
  return "<text x=\"" + num(labelWidth - 8) + "\" y=\"" + num(y) +
         "\" text-anchor=\"end\"><title>" + esc(s) + "</title>" + esc(shown) +
         "</text>\n";
}

/// One horizontal bar with a Q1..Q3 whisker, scaled to |scaleNs|.
std::string timeBar(double y, const Timing &t, double scaleNs,
                    const char *color, double labelWidth) {
  double w = kPlotWidth / scaleNs;
  double x0 = labelWidth;
  std::string s = "<rect x=\"" + num(x0) + "\" y=\"" + num(y) + "\" width=\"" +
                  num(t.summary.median * w) + "\" height=\"7\" fill=\"" +
                  color + "\"/>\n";
  double q1 = x0 + t.summary.q1 * w, q3 = x0 + t.summary.q3 * w;
  double cy = y + 3.5;
  s += "<path d=\"M" + num(q1) + " " + num(cy) + "H" + num(q3) + "M" + num(q1) +
       " " + num(cy - 4) + "V" + num(cy + 4) + "M" + num(q3) + " " +
       num(cy - 4) + "V" + num(cy + 4) + "\" stroke=\"#111\"/>\n";
  s += text(q3 + 6, y + 7, formatMedianIqr(t.summary.median, t.summary.iqr));
  return s;
}

const Timing *firstTiming(const Variant &v) {
  for (const Timing &t : v.timings)
    if (!t.samples.empty())
      return &t;
  return nullptr;
}

const Timing *sameMode(const Variant &v, TimingMode mode) {
  for (const Timing &t : v.timings)
    if (t.mode == mode && !t.samples.empty())
      return &t;
  return nullptr;
}

/// One bar of chart 1: its label, its timing, whether it is the
/// reference, and the benchmark's scale.
struct TimeBar {
  std::string label;
  const Timing *timing;
  bool reference;
  double scaleNs;
  bool lastOfBenchmark;
};

/// |b|'s bars: its timed candidates, then its reference in the same mode,
/// on the benchmark's own scale (magnitudes differ by orders between
/// benchmarks).
std::vector<TimeBar> benchmarkBars(const Benchmark &b) {
  std::vector<TimeBar> bars;
  const Variant *reference = nullptr;
  for (const Variant &v : b.variants)
    if (v.role == VariantRole::Reference)
      reference = &v;
  for (const Variant &v : b.variants)
    if (v.role == VariantRole::Candidate)
      if (const Timing *t = firstTiming(v))
        bars.push_back({v.name, t, false, 0, false});
  if (bars.empty())
    return bars;
  if (reference)
    if (const Timing *t = sameMode(*reference, bars[0].timing->mode))
      bars.push_back({reference->name, t, true, 0, false});
  double scale = 0;
  for (const TimeBar &bar : bars)
    scale = std::max(scale, bar.timing->summary.q3);
  for (TimeBar &bar : bars)
    bar.scaleNs = scale > 0 ? scale * 1.05 : 1;
  bars[0].label = b.name + " \u00b7 " + bars[0].label;
  bars.back().lastOfBenchmark = true;
  return bars;
}

/// Chart 1: each benchmark's candidates and reference.
std::string timeChart(const BenchReport &report) {
  std::vector<TimeBar> bars;
  for (const Benchmark &b : report.benchmarks)
    for (TimeBar &bar : benchmarkBars(b))
      bars.push_back(std::move(bar));
  if (bars.empty())
    return "<p>No benchmark was timed.</p>\n";
  std::vector<std::string> labels;
  for (const TimeBar &bar : bars)
    labels.push_back(bar.label);
  double labelWidth = labelWidthFor(labels);
  std::ostringstream body;
  double y = 10;
  for (const TimeBar &bar : bars) {
    body << label(y + 8, bar.label, labelWidth);
    body << timeBar(y, *bar.timing, bar.scaleNs,
                    bar.reference ? kReferenceColor : kCandidateColor,
                    labelWidth);
    y += kRowHeight * (bar.lastOfBenchmark ? 1.5 : 1);
  }
  return svgOpen(y + 10, "median time per benchmark, candidate vs reference",
                 labelWidth) +
         body.str() + "</svg>\n";
}

/// Chart 2: % of the measured copy peak, 0..100 % (a bar above 100 % is
/// drawn to the edge in red: L2-resident data or a wrong byte count).
std::string peakChart(const std::vector<ReportRow> &rows) {
  std::vector<const ReportRow *> drawn;
  std::vector<std::string> labels;
  for (const ReportRow &row : rows)
    if (row.timed() && row.timing->derived.percentOfPeak) {
      drawn.push_back(&row);
      labels.push_back(row.id);
    }
  if (drawn.empty())
    return "<p>No % of peak: the copy-bandwidth probe did not run or no "
           "benchmark declares its bytes.</p>\n";
  double labelWidth = labelWidthFor(labels);
  std::ostringstream body;
  double y = 10;
  for (const ReportRow *row : drawn) {
    double p = *row->timing->derived.percentOfPeak;
    bool over = aboveMeasuredPeak(row->timing->derived);
    body << label(y + 11, row->id, labelWidth);
    body << "<rect x=\"" << num(labelWidth) << "\" y=\"" << num(y)
         << "\" width=\"" << num(kPlotWidth) << "\" height=\"14\" "
         << "fill=\"#f3f4f6\"/>\n";
    body << "<rect x=\"" << num(labelWidth) << "\" y=\"" << num(y)
         << "\" width=\"" << num(std::min(p, 100.0) / 100 * kPlotWidth)
         << "\" height=\"14\" fill=\"" << (over ? "#dc2626" : kCandidateColor)
         << "\"/>\n";
    body << text(labelWidth + kPlotWidth + 6, y + 11, num(p) + " %");
    y += kRowHeight;
  }
  return svgOpen(y + 10, "percent of measured peak bandwidth", labelWidth) +
         body.str() + "</svg>\n";
}

/// Chart 3: one strip plot per row: every sample as a dot, with the median
/// as a line; x from the row's min to max.
std::string distribution(const ReportRow &row) {
  const Timing &t = *row.timing;
  double lo = t.summary.min, hi = t.summary.max;
  double span = hi > lo ? hi - lo : std::max(hi * 0.01, 1.0);
  double x0 = 10, w = kPlotWidth, h = 40;
  auto xOf = [&](double ns) { return x0 + (ns - lo) / span * w; };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
       "aria-label=\"samples of "
    << esc(row.id) << "\" width=\"" << num(w + 140) << "\" height=\""
    << num(h + 20) << "\" viewBox=\"0 0 " << num(w + 140) << " " << num(h + 20)
    << "\">\n";
  s << "<line x1=\"" << num(x0) << "\" y1=\"" << num(h) << "\" x2=\""
    << num(x0 + w) << "\" y2=\"" << num(h) << "\" stroke=\"#111\"/>\n";
  for (size_t i = 0; i < t.samples.size(); ++i) {
    double jitter = 6 + double((i * 7919) % 23); // deterministic spread
    s << "<circle cx=\"" << num(xOf(t.samples[i].gpuNs)) << "\" cy=\""
      << num(jitter) << "\" r=\"2.5\" fill=\"" << kCandidateColor
      << "\" fill-opacity=\"0.6\"/>\n";
  }
  double m = xOf(t.summary.median);
  s << "<line x1=\"" << num(m) << "\" y1=\"2\" x2=\"" << num(m) << "\" y2=\""
    << num(h) << "\" stroke=\"#dc2626\" stroke-width=\"2\"/>\n";
  s << text(x0, h + 14, formatDuration(lo));
  s << text(x0 + w, h + 14, formatDuration(hi), "end");
  s << text(x0 + w + 8, 24, "median " + formatDuration(t.summary.median));
  s << "</svg>\n";
  return s.str();
}

/// The word's class: green, red, or grey for skipped.
const char *wordClass(const std::string &word) {
  if (word == "INCORRECT" || word == "ERROR" || word == "SANITIZER")
    return "bad";
  return word == "skipped" || word == "not checked" ? "skip" : "ok";
}

/// The cells from mode to speedup of a timed row (the columns of
/// report.md, with the terminal table's noise); "-" in each for none.
std::string timingCells(const Timing *t, std::optional<double> speedup,
                        bool suspicious) {
  if (!t)
    return "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>"
           "<td>-</td><td>-</td><td>-</td>";
  const Derived &d = t->derived;
  // One sample has no spread: "-", not a reassuring 0.00 %.
  std::string noise = "-";
  if (t->summary.count >= 2) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f%%", 100 * t->summary.relativeStdev);
    noise = text;
  }
  std::ostringstream s;
  s << "<td>" << toString(t->mode) << "</td><td class=\"n\">"
    << esc(formatMedianIqr(t->summary.median, t->summary.iqr))
    << "</td><td class=\"n\">" << t->samples.size() << "</td><td class=\"n\">"
    << noise << "</td><td class=\"n\">" << formatNumber(d.gflopPerSecond, 1)
    << "</td><td class=\"n\">" << formatNumber(d.gbPerSecond, 1)
    << "</td><td class=\"n\">" << formatNumber(d.percentOfPeak, 1)
    << "</td><td class=\"n\">" << formatNumber(speedup, 2)
    << (suspicious ? " (!)" : "") << "</td>";
  return s.str();
}

std::string tableRow(const std::string &benchmark, const std::string &variant,
                     const std::string &cells, const std::string &word,
                     const std::string &reason) {
  return "<tr><td>" + esc(benchmark) + "</td><td>" + esc(variant) + "</td>" +
         cells + "<td class=\"" + wordClass(word) + "\">" + esc(word) +
         (reason.empty() ? "" : ": " + esc(reason)) + "</td></tr>\n";
}

/// The table: report.md's columns and correctness words, with the
/// terminal table's noise; the whole program's rows after the benchmarks'
/// (a program's speedup is over its generated-only run).
std::string summaryTable(const BenchReport &report,
                         const std::vector<ReportRow> &rows) {
  std::ostringstream s;
  s << "<table>\n<tr><th>benchmark</th><th>variant</th><th>mode</th>"
       "<th>median &plusmn; IQR</th><th>samples</th><th>noise</th>"
       "<th>GFLOP/s</th><th>GB/s</th><th>% peak</th><th>vs ref</th>"
       "<th>correctness</th></tr>\n";
  for (const ReportRow &row : rows) {
    const Timing *t = row.timed() ? row.timing : nullptr;
    std::string cells = t ? timingCells(t, t->derived.speedupVsReference,
                                        t->derived.suspiciousSpeedup)
                          : timingCells(nullptr, std::nullopt, false);
    s << tableRow(row.benchmark->name, row.variant ? row.variant->name : "-",
                  cells, correctnessWord(row), row.benchmark->reason);
  }
  for (const ProgramRow &row : programRows(report))
    s << tableRow(row.name, row.variant,
                  timingCells(row.timing, row.speedup, false), row.statusWord(),
                  row.reason);
  s << "</table>\n";
  return s.str();
}

/// The charts below the table: time per benchmark, the sweeps against
/// their size, % of peak, the roofline, and each row's sample
/// distribution.
std::string charts(const BenchReport &report,
                   const std::vector<ReportRow> &rows) {
  std::ostringstream out;
  out << "<h2>Median time, candidate vs reference</h2>\n<p class=\"legend\">"
      << "<span style=\"background:" << kCandidateColor << "\"></span>candidate"
      << "<span style=\"background:" << kReferenceColor
      << "\"></span>reference; whiskers Q1&ndash;Q3; each benchmark on its "
         "own scale</p>\n<figure>"
      << timeChart(report) << "</figure>\n";
  out << sweepChartSection(rows);
  out << "<h2>% of measured peak bandwidth</h2>\n<figure>" << peakChart(rows)
      << "</figure>\n";
  out << rooflineSection(report);
  out << "<h2>Sample distributions</h2>\n";
  size_t drawn = 0, timed = 0;
  for (const ReportRow &row : rows) {
    if (!row.timed())
      continue;
    ++timed;
    if (drawn == kMaxDistributions)
      continue;
    ++drawn;
    out << "<figure><figcaption>" << esc(row.id) << " ("
        << row.timing->samples.size() << " samples)</figcaption>\n"
        << distribution(row) << "</figure>\n";
  }
  if (timed > drawn)
    out << "<p>" << (timed - drawn) << " more distributions not drawn (the "
        << "page draws the first " << kMaxDistributions
        << "); every sample is in bench.json.</p>\n";
  return out.str();
}

/// The page's first lines: the device, when, and its measured peaks.
std::string deviceParagraphs(const BenchReport &report) {
  std::ostringstream out;
  out << "<h1>kernel-bench results</h1>\n<p>";
  if (noDevice(report.device))
    out << esc(deviceHeading(report.device));
  else
    out << esc(report.device.name) << " (" << esc(report.device.driver) << " "
        << esc(report.device.driverVersion) << ")";
  out << ", " << esc(report.createdUtc);
  if (report.device.peakCopyGBps)
    out << ", measured copy peak "
        << formatNumber(report.device.peakCopyGBps, 1) << " GB/s";
  if (report.device.peakFmaGflops)
    out << ", measured FMA peak "
        << formatNumber(report.device.peakFmaGflops, 1) << " GFLOP/s";
  out << ".</p>\n";
  if (!noDevice(report.device))
    out << "<p>Device: " << esc(describeDeviceIdentity(report.device))
        << ".</p>\n";
  return out.str();
}

} // namespace

std::string renderHtml(const BenchReport &report) {
  std::vector<ReportRow> rows = reportRows(report);
  std::ostringstream out;
  out << htmlPageHead("kernel-bench: " + report.device.name);
  out << deviceParagraphs(report);
  if (std::vector<std::string> paired = pairedLines(report); !paired.empty()) {
    out << "<p>Paired with the baseline build (candidate / baseline, median "
           "of per-pair ratios, 95 % CI):</p>\n<ul>\n";
    for (const std::string &line : paired)
      out << "<li>" << esc(line) << "</li>\n";
    out << "</ul>\n";
  }
  if (std::vector<std::string> resources = resourceLines(report);
      !resources.empty()) {
    out << "<p>Resources (ptxas):</p>\n<ul>\n";
    for (const std::string &line : resources)
      out << "<li>" << esc(line) << "</li>\n";
    out << "</ul>\n";
  }
  if (report.interrupted)
    out << "<p class=\"bad\"><b>Interrupted:</b> the rows below are what "
           "finished.</p>\n";
  if (report.settings.quick)
    out << "<p>Quick settings (" << esc(report.settings.quickReason)
        << "): noise reported, not required.</p>\n";
  for (const std::string &w : report.environment.warnings)
    out << "<p class=\"bad\">warning: " << esc(w) << "</p>\n";
  for (const std::string &line : stoppedShortLines(report))
    out << "<p class=\"bad\">" << esc(line)
        << "; <code>compare</code> gives it no verdict</p>\n";
  if (std::vector<std::string> found = sanitizerLines(report, 20);
      !found.empty()) {
    out << "<p class=\"bad\">Sanitizer findings:</p>\n<ul>\n";
    for (const std::string &line : found)
      out << "<li>" << esc(line) << "</li>\n";
    out << "</ul>\n";
  }
  out << summaryTable(report, rows);
  out << mismatchMapSection(report, 16);
  out << charts(report, rows);
  out << "</body>\n</html>\n";
  return out.str();
}

} // namespace kb::report

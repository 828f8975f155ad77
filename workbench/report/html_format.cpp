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
#include "workbench/report/report_rows.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kb::report {

namespace {

constexpr size_t kMaxDistributions = 200;
constexpr const char *kCandidateColor = "#2563eb";
constexpr const char *kReferenceColor = "#9ca3af";

std::string esc(const std::string &text) { return htmlEscape(text); }
std::string num(double v) { return svgNumber(v); }

constexpr double kLabelWidth = 220, kPlotWidth = 520, kRowHeight = 18;

std::string svgOpen(double height, const std::string &label) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
         "aria-label=\"" +
         esc(label) + "\" width=\"" + num(kLabelWidth + kPlotWidth + 120) +
         "\" height=\"" + num(height) + "\">\n";
}

std::string text(double x, double y, const std::string &s,
                 const char *anchor = "start") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         anchor + "\">" + esc(s) + "</text>\n";
}

/// One horizontal bar with a Q1..Q3 whisker, scaled to |scaleNs|.
std::string timeBar(double y, const Timing &t, double scaleNs,
                    const char *color) {
  double w = kPlotWidth / scaleNs;
  double x0 = kLabelWidth;
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

/// Chart 1: each benchmark's candidates and reference, on the benchmark's
/// own scale (magnitudes differ by orders between benchmarks).
std::string timeChart(const BenchReport &report) {
  std::ostringstream body;
  double y = 10;
  for (const Benchmark &b : report.benchmarks) {
    std::vector<std::pair<const Variant *, const Timing *>> bars;
    const Variant *reference = nullptr;
    for (const Variant &v : b.variants)
      if (v.role == VariantRole::Reference)
        reference = &v;
    for (const Variant &v : b.variants)
      if (v.role == VariantRole::Candidate)
        if (const Timing *t = firstTiming(v))
          bars.push_back({&v, t});
    if (bars.empty())
      continue;
    if (reference)
      if (const Timing *t = sameMode(*reference, bars[0].second->mode))
        bars.push_back({reference, t});
    double scale = 0;
    for (auto &bar : bars)
      scale = std::max(scale, bar.second->summary.q3);
    scale = scale > 0 ? scale * 1.05 : 1;
    for (size_t i = 0; i < bars.size(); ++i) {
      const Variant &v = *bars[i].first;
      bool ref = v.role == VariantRole::Reference;
      body << text(kLabelWidth - 8, y + 8,
                   i == 0 ? b.name + " \u00b7 " + v.name : v.name, "end");
      body << timeBar(y, *bars[i].second, scale,
                      ref ? kReferenceColor : kCandidateColor);
      y += kRowHeight;
    }
    y += kRowHeight * 0.5;
  }
  if (y <= 10)
    return "<p>No benchmark was timed.</p>\n";
  return svgOpen(y + 10, "median time per benchmark, candidate vs reference") +
         body.str() + "</svg>\n";
}

/// Chart 2: % of the measured copy peak, 0..100 % (a bar above 100 % is
/// drawn to the edge in red: L2-resident data or a wrong byte count).
std::string peakChart(const std::vector<ReportRow> &rows) {
  std::ostringstream body;
  double y = 10;
  for (const ReportRow &row : rows) {
    if (!row.timed() || !row.timing->derived.percentOfPeak)
      continue;
    double p = *row.timing->derived.percentOfPeak;
    bool over = aboveMeasuredPeak(row.timing->derived);
    body << text(kLabelWidth - 8, y + 11, row.id, "end");
    body << "<rect x=\"" << num(kLabelWidth) << "\" y=\"" << num(y)
         << "\" width=\"" << num(kPlotWidth) << "\" height=\"14\" "
         << "fill=\"#f3f4f6\"/>\n";
    body << "<rect x=\"" << num(kLabelWidth) << "\" y=\"" << num(y)
         << "\" width=\"" << num(std::min(p, 100.0) / 100 * kPlotWidth)
         << "\" height=\"14\" fill=\"" << (over ? "#dc2626" : kCandidateColor)
         << "\"/>\n";
    body << text(kLabelWidth + kPlotWidth + 6, y + 11, num(p) + " %");
    y += kRowHeight;
  }
  if (y <= 10)
    return "<p>No % of peak: the copy-bandwidth probe did not run or no "
           "benchmark declares its bytes.</p>\n";
  return svgOpen(y + 10, "percent of measured peak bandwidth") + body.str() +
         "</svg>\n";
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
    << num(h + 20) << "\">\n";
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

/// A row of the whole program, after the benchmarks' (as in the terminal
/// table); its speedup is over the generated-only run.
std::string programRowHtml(const ProgramRow &row) {
  std::ostringstream s;
  std::string status = row.statusWord();
  const char *cls = row.status == BenchStatus::Ok        ? "ok"
                    : row.status == BenchStatus::Skipped ? "skip"
                                                         : "bad";
  s << "<tr><td>" << esc(row.name) << "</td><td>" << esc(row.variant)
    << "</td>";
  if (row.timing) {
    const Timing &t = *row.timing;
    s << "<td>" << toString(t.mode) << "</td><td class=\"n\">"
      << esc(formatMedianIqr(t.summary.median, t.summary.iqr))
      << "</td><td class=\"n\">" << t.samples.size() << "</td><td class=\"n\">"
      << formatNumber(t.derived.gbPerSecond, 1) << "</td><td class=\"n\">"
      << formatNumber(t.derived.percentOfPeak, 1) << "</td><td class=\"n\">"
      << formatNumber(row.speedup, 2) << "</td>";
  } else {
    s << "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>";
  }
  s << "<td class=\"" << cls << "\">" << esc(status)
    << (row.reason.empty() ? "" : ": " + esc(row.reason)) << "</td></tr>\n";
  return s.str();
}

std::string summaryTable(const BenchReport &report,
                         const std::vector<ReportRow> &rows) {
  std::ostringstream s;
  s << "<table>\n<tr><th>benchmark</th><th>variant</th><th>mode</th>"
       "<th>median &plusmn; IQR</th><th>samples</th><th>GB/s</th>"
       "<th>% peak</th><th>vs ref</th><th>status</th></tr>\n";
  for (const ReportRow &row : rows) {
    std::string status = row.verdict();
    std::string cls = status == "ok" ? "ok" : "bad";
    if (status == "skipped")
      cls = "skip";
    s << "<tr><td>" << esc(row.benchmark->name) << "</td><td>"
      << esc(row.variant ? row.variant->name : "-") << "</td>";
    if (row.timed()) {
      const Timing &t = *row.timing;
      s << "<td>" << toString(t.mode) << "</td><td class=\"n\">"
        << esc(formatMedianIqr(t.summary.median, t.summary.iqr))
        << "</td><td class=\"n\">" << t.samples.size()
        << "</td><td class=\"n\">" << formatNumber(t.derived.gbPerSecond, 1)
        << "</td><td class=\"n\">" << formatNumber(t.derived.percentOfPeak, 1)
        << "</td><td class=\"n\">"
        << formatNumber(t.derived.speedupVsReference, 2)
        << (t.derived.suspiciousSpeedup ? " (!)" : "") << "</td>";
    } else {
      s << "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>";
    }
    std::string reason = row.benchmark->reason;
    s << "<td class=\"" << cls << "\">" << esc(status)
      << (reason.empty() ? "" : ": " + esc(reason)) << "</td></tr>\n";
  }
  for (const ProgramRow &row : programRows(report))
    s << programRowHtml(row);
  s << "</table>\n";
  return s.str();
}

} // namespace

std::string renderHtml(const BenchReport &report) {
  std::vector<ReportRow> rows = reportRows(report);
  std::ostringstream out;
  out << htmlPageHead("kernel-bench: " + report.device.name);
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
  out << ".</p>\n";
  if (!noDevice(report.device))
    out << "<p>Device: " << esc(describeDeviceIdentity(report.device))
        << ".</p>\n";
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
  out << summaryTable(report, rows);
  out << "<h2>Median time, candidate vs reference</h2>\n<p class=\"legend\">"
      << "<span style=\"background:" << kCandidateColor << "\"></span>candidate"
      << "<span style=\"background:" << kReferenceColor
      << "\"></span>reference; whiskers Q1&ndash;Q3; each benchmark on its "
         "own scale</p>\n<figure>"
      << timeChart(report) << "</figure>\n";
  out << "<h2>% of measured peak bandwidth</h2>\n<figure>" << peakChart(rows)
      << "</figure>\n";
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
  out << "</body>\n</html>\n";
  return out.str();
}

} // namespace kb::report

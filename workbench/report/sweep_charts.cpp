//===- workbench/report/sweep_charts.cpp - Results against the size -------===//
#include "workbench/report/sweep_charts.h"

#include "workbench/report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kb::report {

namespace {

/// One variant's points, in swept order.
struct Series {
  std::string variant;
  bool reference = false;
  std::vector<std::pair<int64_t, const Timing *>> points;
};

/// The points of one swept kernel at one value of its other swept
/// constants, in one timing mode (the first one timed).
struct SweepGroup {
  std::string kernel;
  std::string fixed; // the other swept constants, `m=64`; empty: none
  std::string axis;  // the constant drawn along x
  TimingMode mode = TimingMode::Cold;
  std::vector<Series> series;
  size_t leftOut = 0; // points at a size <= 0, which a log axis cannot show
};

enum class Metric { Time, GBps, GFlops };

const char *metricId(Metric m) {
  return m == Metric::Time ? "time" : m == Metric::GBps ? "gbps" : "gflops";
}

const char *metricTitle(Metric m) {
  return m == Metric::Time   ? "median time per dispatch"
         : m == Metric::GBps ? "GB/s"
                             : "GFLOP/s";
}

/// |t|'s median in |m| with its noise band (from Q1 and Q3); false when
/// the benchmark has no such figure (no bytes or FLOPs known).
bool valueOf(const Timing &t, Metric m, double &value, double &lo, double &hi) {
  const Summary &s = t.summary;
  if (m == Metric::Time) {
    // A log axis has no 0: a quartile that is (a timer's resolution) is
    // drawn at the median.
    value = s.median, lo = s.q1 > 0 ? s.q1 : s.median;
    hi = std::max(s.q3, s.median);
    return s.median > 0;
  }
  std::optional<double> rate =
      m == Metric::GBps ? t.derived.gbPerSecond : t.derived.gflopPerSecond;
  if (!rate || *rate <= 0 || s.q1 <= 0 || s.q3 <= 0)
    return false;
  // A rate is work / time: the slow quartile bounds it from below.
  value = *rate, lo = *rate * s.median / s.q3, hi = *rate * s.median / s.q1;
  return true;
}

Series &seriesOf(SweepGroup &group, const ReportRow &row) {
  for (Series &s : group.series)
    if (s.variant == row.variant->name)
      return s;
  group.series.push_back(
      {row.variant->name, row.variant->role == VariantRole::Reference, {}});
  return group.series.back();
}

std::vector<SweepGroup> sweepGroups(const std::vector<ReportRow> &rows) {
  std::vector<SweepGroup> groups;
  for (const ReportRow &row : rows) {
    const bench::SweepPoint &point = row.benchmark->sweep;
    if (!row.timed() || !row.variant || point.empty())
      continue;
    std::string fixed;
    for (size_t i = 0; i + 1 < point.values.size(); ++i)
      fixed += (fixed.empty() ? "" : " ") + point.values[i].first + "=" +
               std::to_string(point.values[i].second);
    const auto &[axis, x] = point.values.back();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto &g) {
      return g.kernel == point.kernel && g.fixed == fixed && g.axis == axis;
    });
    if (it == groups.end()) {
      groups.push_back(SweepGroup{point.kernel, fixed, axis, row.timing->mode});
      it = groups.end() - 1;
    }
    if (row.timing->mode != it->mode)
      continue;
    if (x <= 0)
      ++it->leftOut;
    else
      seriesOf(*it, row).points.push_back({x, row.timing});
  }
  for (SweepGroup &g : groups)
    for (Series &s : g.series)
      std::sort(s.points.begin(), s.points.end(),
                [](const auto &a, const auto &b) { return a.first < b.first; });
  return groups;
}

std::string num(double v) { return svgNumber(v); }

/// 1024 -> "1K", 16777216 -> "16M": a size as the x axis shows it.
std::string compactSize(int64_t v) {
  const char *units[] = {"G", "M", "K"};
  const int64_t scales[] = {int64_t(1) << 30, int64_t(1) << 20, 1024};
  for (int i = 0; i < 3; ++i)
    if (v != 0 && v % scales[i] == 0)
      return std::to_string(v / scales[i]) + units[i];
  return std::to_string(v);
}

std::string valueText(double v, Metric m) {
  if (m == Metric::Time)
    return formatDuration(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// A logarithmic axis from |lo| to |hi| (both > 0) onto |from|..|to|.
struct LogScale {
  double lo, hi, from, to;
  double operator()(double v) const {
    double span = std::log(hi) - std::log(lo);
    double f = span > 0 ? (std::log(v) - std::log(lo)) / span : 0.5;
    return from + f * (to - from);
  }
};

/// Ticks at 1, 2 and 5 times the powers of ten within [lo, hi].
std::vector<double> logTicks(double lo, double hi) {
  std::vector<double> ticks;
  for (double decade = std::pow(10, std::floor(std::log10(lo)));
       decade <= hi && ticks.size() < 32; decade *= 10)
    for (double step : {1.0, 2.0, 5.0})
      if (decade * step >= lo && decade * step <= hi)
        ticks.push_back(decade * step);
  return ticks;
}

constexpr double kWidth = 640, kHeight = 240, kLeft = 72, kRight = 16,
                 kTop = 24, kBottom = 44;

const char *seriesColor(const Series &s, size_t candidateIndex) {
  static const char *const kMore[] = {"#16a34a", "#d97706", "#9333ea",
                                      "#dc2626"};
  if (s.reference)
    return kReferenceColor;
  return candidateIndex == 0 ? kCandidateColor
                             : kMore[(candidateIndex - 1) % 4];
}

/// The frame: y ticks and grid, x ticks at the swept values, axis titles.
std::string axes(const SweepGroup &g, Metric m, const LogScale &x,
                 const LogScale &y, const std::vector<int64_t> &xs) {
  std::ostringstream s;
  for (double tick : logTicks(y.lo, y.hi)) {
    s << "<path d=\"M" << num(kLeft) << " " << num(y(tick)) << "H"
      << num(kWidth - kRight) << "\" stroke=\"#e5e7eb\"/>\n<text x=\""
      << num(kLeft - 6) << "\" y=\"" << num(y(tick) + 4)
      << "\" text-anchor=\"end\">" << htmlEscape(valueText(tick, m))
      << "</text>\n";
  }
  // Every swept value when they fit, else every other one.
  size_t every = xs.size() > 12 ? 2 : 1;
  for (size_t i = 0; i < xs.size(); i += every)
    s << "<text x=\"" << num(x(double(xs[i]))) << "\" y=\""
      << num(kHeight - kBottom + 16) << "\" text-anchor=\"middle\">"
      << compactSize(xs[i]) << "</text>\n";
  s << "<path d=\"M" << num(kLeft) << " " << num(kTop) << "V"
    << num(kHeight - kBottom) << "H" << num(kWidth - kRight)
    << "\" stroke=\"#111\" fill=\"none\"/>\n<text x=\""
    << num((kLeft + kWidth - kRight) / 2) << "\" y=\"" << num(kHeight - 6)
    << "\" text-anchor=\"middle\">" << htmlEscape(g.axis)
    << " (log scale)</text>\n<text x=\"4\" y=\"12\">" << metricTitle(m)
    << " (log scale)</text>\n";
  return s.str();
}

/// One variant: its noise band, its line and a point per swept value.
std::string seriesMarks(const Series &series, const char *color, Metric m,
                        const LogScale &x, const LogScale &y) {
  std::string line, upper, lower, points;
  for (const auto &[value, timing] : series.points) {
    double v = 0, lo = 0, hi = 0;
    if (!valueOf(*timing, m, v, lo, hi))
      continue;
    std::string px = num(x(double(value)));
    line += (line.empty() ? "M" : "L") + px + " " + num(y(v));
    upper += (upper.empty() ? "M" : "L") + px + " " + num(y(hi));
    lower = "L" + px + " " + num(y(lo)) + lower;
    points += "<circle class=\"sweep-point\" data-variant=\"" +
              htmlEscape(series.variant) + "\" data-metric=\"" + metricId(m) +
              "\" data-x=\"" + std::to_string(value) + "\" cx=\"" + px +
              "\" cy=\"" + num(y(v)) + "\" r=\"3\" fill=\"" + color +
              "\"><title>" + htmlEscape(series.variant) + " at " +
              std::to_string(value) + ": " + valueText(v, m) + " (Q1..Q3 " +
              valueText(lo, m) + " .. " + valueText(hi, m) +
              ")</title></circle>\n";
  }
  if (line.empty())
    return "";
  return "<path class=\"noise-band\" d=\"" + upper + lower + "Z\" fill=\"" +
         color + "\" fill-opacity=\"0.2\" stroke=\"none\"/>\n<path d=\"" +
         line + "\" stroke=\"" + color + "\" fill=\"none\"/>\n" + points;
}

/// The y range of |g|'s figures in |m|, bands included; false when none.
bool yRange(const SweepGroup &g, Metric m, double &lo, double &hi) {
  lo = INFINITY, hi = 0;
  for (const Series &s : g.series)
    for (const auto &[value, timing] : s.points) {
      double v = 0, l = 0, h = 0;
      if (valueOf(*timing, m, v, l, h))
        lo = std::min({lo, l, v}), hi = std::max({hi, h, v});
    }
  if (!(hi > 0) || !(lo > 0))
    return false;
  // Some room above and below, and a decade at least between them.
  lo /= 1.25, hi *= 1.25;
  if (hi / lo < 10) {
    double middle = std::sqrt(lo * hi);
    lo = std::min(lo, middle / std::sqrt(10.0));
    hi = std::max(hi, middle * std::sqrt(10.0));
  }
  return true;
}

/// One panel: |g|'s variants in |m| against the swept constant; empty
/// when no point has the figure.
std::string panel(const SweepGroup &g, Metric m) {
  double ylo = 0, yhi = 0;
  if (!yRange(g, m, ylo, yhi))
    return "";
  std::vector<int64_t> xs;
  for (const Series &s : g.series)
    for (const auto &point : s.points)
      if (std::find(xs.begin(), xs.end(), point.first) == xs.end())
        xs.push_back(point.first);
  std::sort(xs.begin(), xs.end());
  double xlo = std::max<double>(double(xs.front()), 1);
  double xhi = std::max<double>(double(xs.back()), xlo * 2);
  LogScale x{xlo / 1.2, xhi * 1.2, kLeft, kWidth - kRight};
  LogScale y{ylo, yhi, kHeight - kBottom, kTop};
  std::string label = g.kernel + ": " + metricTitle(m) + " against " + g.axis;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
                  "class=\"sweep-panel\" data-metric=\"" +
                  std::string(metricId(m)) + "\" aria-label=\"" +
                  htmlEscape(label) + "\" width=\"" + num(kWidth) +
                  "\" height=\"" + num(kHeight) + "\" viewBox=\"0 0 " +
                  num(kWidth) + " " + num(kHeight) + "\">\n<title>" +
                  htmlEscape(label) + "</title>\n";
  s += axes(g, m, x, y, xs);
  size_t candidates = 0;
  for (const Series &series : g.series)
    s += seriesMarks(series,
                     seriesColor(series, series.reference ? 0 : candidates++),
                     m, x, y);
  return s + "</svg>\n";
}

std::string legend(const SweepGroup &g) {
  std::string s = "<p class=\"legend\">";
  size_t candidates = 0;
  for (const Series &series : g.series)
    s += std::string("<span style=\"background:") +
         seriesColor(series, series.reference ? 0 : candidates++) +
         "\"></span>" + htmlEscape(series.variant);
  s += "; " + std::string(toString(g.mode)) + " timings; bands Q1&ndash;Q3";
  if (g.leftOut)
    s += "; " + std::to_string(g.leftOut) + " point(s) at " +
         htmlEscape(g.axis) + " &lt;= 0 left out (log axis)";
  return s + "</p>\n";
}

} // namespace

std::string sweepLabel(const Benchmark &benchmark) {
  std::string label;
  for (const auto &[name, value] : benchmark.sweep.values)
    label += (label.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return label;
}

std::string sweepChartSection(const std::vector<ReportRow> &rows) {
  std::vector<SweepGroup> groups = sweepGroups(rows);
  if (groups.empty())
    return "";
  std::ostringstream out;
  out << "<h2>Against the problem size</h2>\n";
  for (const SweepGroup &g : groups) {
    out << "<figure class=\"sweep-chart\" data-kernel=\""
        << htmlEscape(g.kernel) << "\"><figcaption>" << htmlEscape(g.kernel)
        << (g.fixed.empty() ? "" : " at " + htmlEscape(g.fixed)) << " against "
        << htmlEscape(g.axis) << "</figcaption>\n"
        << legend(g);
    for (Metric m : {Metric::Time, Metric::GBps, Metric::GFlops})
      out << panel(g, m);
    out << "</figure>\n";
  }
  return out.str();
}

} // namespace kb::report

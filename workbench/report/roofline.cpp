//===- workbench/report/roofline.cpp - Each benchmark under the roofline --===//
#include "workbench/report/roofline.h"

#include "workbench/report/html_page.h"
#include "workbench/report/report_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kb::report {

namespace {

/// A row on the roofline: its intensity and achieved GFLOP/s.
struct Point {
  std::string id;
  bool reference = false;
  double intensity = 0, gflops = 0, percent = 0;
  std::string bound;
};

bool positive(double v) { return std::isfinite(v) && v > 0; }

/// The rows with a bound whose figures a log axis can place (a report read
/// back is not recomputed: its figures are checked here).
std::vector<Point> points(const BenchReport &report) {
  std::vector<Point> out;
  for (const ReportRow &row : reportRows(report)) {
    if (!row.timed() || row.timing->derived.bound.empty() ||
        !row.variant->flops || !row.variant->bytesMoved ||
        *row.variant->bytesMoved == 0)
      continue;
    const Derived &d = row.timing->derived;
    Point p{row.id,
            row.variant->role == VariantRole::Reference,
            *row.variant->flops / double(*row.variant->bytesMoved),
            d.gflopPerSecond.value_or(0),
            d.percentOfRoofline.value_or(0),
            d.bound};
    if (positive(p.intensity) && positive(p.gflops))
      out.push_back(std::move(p));
  }
  return out;
}

std::string number(double v, const char *format = "%.3g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

/// Log-scale axes over [lo, hi] (powers of ten around the data).
struct LogAxis {
  double lo, hi, x0, length;
  double at(double v) const {
    return x0 + (std::log10(v) - std::log10(lo)) /
                    (std::log10(hi) - std::log10(lo)) * length;
  }
};

LogAxis axisAround(double lo, double hi, double x0, double length) {
  lo = std::pow(10, std::floor(std::log10(lo)));
  hi = std::pow(10, std::ceil(std::log10(hi)));
  if (hi <= lo)
    hi = lo * 10;
  return {lo, hi, x0, length};
}

/// Tick labels of |a| at each power of ten; |place| maps a value to its
/// coordinate along the axis.
template <typename Place>
void ticks(std::ostringstream &s, const LogAxis &a, bool horizontal,
           double other, Place place) {
  // At most a few dozen decades: an axis from a hostile report is bounded.
  int decades = 0;
  for (double v = a.lo; v <= a.hi * 1.0001 && decades++ < 40; v *= 10) {
    double p = place(v);
    if (horizontal)
      s << "<text x=\"" << svgNumber(p) << "\" y=\"" << svgNumber(other + 14)
        << "\" text-anchor=\"middle\">" << number(v, "%g") << "</text>\n";
    else
      s << "<text x=\"" << svgNumber(other - 4) << "\" y=\"" << svgNumber(p + 4)
        << "\" text-anchor=\"end\">" << number(v, "%g") << "</text>\n";
  }
}

std::string chart(const std::vector<Point> &pts, double peakGBps,
                  double peakGflops) {
  const double left = 70, top = 10, w = 560, h = 300;
  double ridge = peakGflops / peakGBps;
  double xlo = ridge, xhi = ridge, ylo = peakGflops, yhi = peakGflops;
  for (const Point &p : pts) {
    xlo = std::min(xlo, p.intensity);
    xhi = std::max(xhi, p.intensity);
    ylo = std::min(ylo, p.gflops);
    yhi = std::max(yhi, p.gflops); // above the ceiling is still drawn
  }
  LogAxis x = axisAround(xlo, xhi, left, w);
  LogAxis yUp = axisAround(ylo, yhi, 0, h);
  auto y = [&](double v) { return top + h - yUp.at(v); };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
       "class=\"roofline\" aria-label=\"roofline\" width=\""
    << svgNumber(left + w + 20) << "\" height=\"" << svgNumber(top + h + 40)
    << "\" viewBox=\"0 0 " << svgNumber(left + w + 20) << " "
    << svgNumber(top + h + 40) << "\">\n";
  s << "<rect x=\"" << svgNumber(left) << "\" y=\"" << svgNumber(top)
    << "\" width=\"" << svgNumber(w) << "\" height=\"" << svgNumber(h)
    << "\" fill=\"none\" stroke=\"#d1d5db\"/>\n";
  // The memory ceiling up to the ridge point, then the compute ceiling.
  double x0 = x.lo, yAtX0 = std::max(x0 * peakGBps, yUp.lo);
  double xStart = yAtX0 / peakGBps;
  s << "<polyline class=\"ceiling\" fill=\"none\" stroke=\"#111\" "
       "stroke-width=\"2\" points=\""
    << svgNumber(x.at(xStart)) << "," << svgNumber(y(yAtX0)) << " "
    << svgNumber(x.at(ridge)) << "," << svgNumber(y(peakGflops)) << " "
    << svgNumber(x.at(x.hi)) << "," << svgNumber(y(peakGflops))
    << "\"><title>copy peak " << number(peakGBps) << " GB/s, FMA peak "
    << number(peakGflops) << " GFLOP/s, ridge at " << number(ridge)
    << " FLOP/byte</title></polyline>\n";
  for (const Point &p : pts)
    s << "<circle class=\"roofline-point\" data-id=\"" << htmlEscape(p.id)
      << "\" cx=\"" << svgNumber(x.at(p.intensity)) << "\" cy=\""
      << svgNumber(y(std::max(p.gflops, yUp.lo))) << "\" r=\"4\" fill=\""
      << (p.reference ? "#9ca3af" : "#2563eb") << "\"><title>"
      << htmlEscape(p.id) << ": " << number(p.intensity) << " FLOP/byte, "
      << number(p.gflops) << " GFLOP/s, " << htmlEscape(p.bound) << "-bound, "
      << number(p.percent, "%.0f") << "% of the roofline</title></circle>\n";
  ticks(s, x, true, top + h, [&](double v) { return x.at(v); });
  ticks(s, yUp, false, left, y);
  s << "<text x=\"" << svgNumber(left + 4) << "\" y=\"" << svgNumber(top + 12)
    << "\">GFLOP/s</text>\n";
  s << "<text x=\"" << svgNumber(left + w / 2) << "\" y=\""
    << svgNumber(top + h + 32)
    << "\" text-anchor=\"middle\">FLOP per byte</text>\n</svg>\n";
  return s.str();
}

} // namespace

std::vector<std::string> rooflineLines(const BenchReport &report,
                                       size_t maxShown) {
  std::vector<std::string> lines;
  std::vector<Point> pts = points(report);
  for (const Point &p : pts) {
    if (lines.size() == maxShown) {
      lines.push_back(std::to_string(pts.size() - maxShown) +
                      " more rows (report.html draws them, bench.json has "
                      "their figures)");
      break;
    }
    double ceiling = p.percent > 0 ? p.gflops / (p.percent / 100) : 0;
    lines.push_back(p.id + ": " + number(p.intensity) + " FLOP/byte, " +
                    p.bound + "-bound: " + number(p.percent, "%.0f") +
                    "% of the roofline (" + number(p.gflops) + " of " +
                    number(ceiling) + " GFLOP/s)");
  }
  return lines;
}

std::string rooflineSection(const BenchReport &report) {
  std::vector<Point> pts = points(report);
  if (pts.empty() || !report.device.peakCopyGBps ||
      !report.device.peakFmaGflops || !positive(*report.device.peakCopyGBps) ||
      !positive(*report.device.peakFmaGflops))
    return "";
  std::ostringstream out;
  out << "<h2>Roofline</h2>\n<p class=\"legend\">Achieved GFLOP/s against "
         "FLOPs per byte (both axes log); the ceilings are the measured copy "
         "peak ("
      << number(*report.device.peakCopyGBps) << " GB/s) and FMA peak ("
      << number(*report.device.peakFmaGflops)
      << " GFLOP/s)<span style=\"background:#2563eb\"></span>candidate"
         "<span style=\"background:#9ca3af\"></span>reference</p>\n<figure>"
      << chart(pts, *report.device.peakCopyGBps, *report.device.peakFmaGflops)
      << "</figure>\n";
  return out.str();
}

} // namespace kb::report

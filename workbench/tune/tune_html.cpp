//===- workbench/tune/tune_html.cpp - tune.html ---------------------------===//
//
// Every chart summarizes groups of configurations (those with one value of
// a parameter, or one pair of values of the first two) as one cell: the
// fastest of them measured at the final level (a halving search measures
// most configurations only briefly, and a brief median is not comparable to
// a full one); else a brief one; else why none has a time: all failed
// (their status), or none was measured (the constraints or the sample left
// them out).
//
//===----------------------------------------------------------------------===//
#include "workbench/tune/tune_html.h"

#include "workbench/report/html_page.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace kb::workbench {

namespace {

using report::htmlEscape;
using report::svgNumber;
using MStatus = TuneMeasurement::Status;

enum class CellKind { Ok, Brief, Failed, Unmeasured };

struct Cell {
  CellKind kind = CellKind::Unmeasured;
  double ns = 0;       // Ok and Brief
  std::string status;  // Failed: the shared status, else "failed"
  std::string config;  // Ok and Brief: the configuration of |ns|
  size_t measured = 0; // configurations of the group measured
};

/// The level every configuration in the ranking's lead was measured at.
int finalLevel(const TuneSearchResult &result) {
  int level = -1;
  for (const TuneResult &r : result.results)
    if (r.measurement.status == MStatus::Ok)
      level = std::max(level, r.measurement.level);
  return level;
}

/// The cell of the configurations whose values include every one of |fix|.
Cell summarize(const TuneSearchResult &result, const TuneValues &fix,
               int level) {
  Cell cell;
  std::set<std::string> statuses;
  for (const TuneResult &r : result.results) {
    bool matches = std::all_of(fix.begin(), fix.end(), [&](const auto &kv) {
      auto it = r.values.find(kv.first);
      return it != r.values.end() && it->second == kv.second;
    });
    if (!matches)
      continue;
    ++cell.measured;
    const TuneMeasurement &m = r.measurement;
    if (m.status != MStatus::Ok) {
      statuses.insert(toString(m.status));
      continue;
    }
    CellKind kind = m.level == level ? CellKind::Ok : CellKind::Brief;
    bool better = cell.kind == CellKind::Failed ||
                  cell.kind == CellKind::Unmeasured ||
                  (kind == CellKind::Ok && cell.kind == CellKind::Brief) ||
                  (kind == cell.kind && m.medianNs < cell.ns);
    if (better) {
      cell.kind = kind;
      cell.ns = m.medianNs;
      cell.config = configurationKey(r.values);
    }
  }
  if (cell.kind == CellKind::Unmeasured && !statuses.empty()) {
    cell.kind = CellKind::Failed;
    cell.status = statuses.size() == 1 ? *statuses.begin() : "failed";
  }
  return cell;
}

const char *className(CellKind kind) {
  switch (kind) {
  case CellKind::Ok:
    return "ok";
  case CellKind::Brief:
    return "brief";
  case CellKind::Failed:
    return "failed";
  case CellKind::Unmeasured:
    return "unmeasured";
  }
  return "unmeasured";
}

/// What a cell says in words: its time, or why it has none.
std::string describe(const Cell &cell) {
  switch (cell.kind) {
  case CellKind::Ok:
    return formatTuneNs(cell.ns) + " (" + cell.config + ")";
  case CellKind::Brief:
    return "measured briefly only: " + formatTuneNs(cell.ns) + " (" +
           cell.config + ")";
  case CellKind::Failed:
    return "every configuration " + cell.status + " (" +
           std::to_string(cell.measured) + ")";
  case CellKind::Unmeasured:
    return "not measured (left out by the constraints or the search)";
  }
  return "";
}

/// The short label drawn in a chart for a cell without a full time.
std::string shortLabel(const Cell &cell) {
  if (cell.kind == CellKind::Brief)
    return "brief " + formatTuneNs(cell.ns);
  if (cell.kind == CellKind::Failed)
    return cell.status;
  return "not measured";
}

std::vector<int64_t> sortedValues(const TuneParameter &p) {
  std::vector<int64_t> values = p.values;
  std::sort(values.begin(), values.end());
  return values;
}

std::string text(double x, double y, const std::string &s,
                 const char *anchor = "middle", const char *fill = "#111") {
  return "<text x=\"" + svgNumber(x) + "\" y=\"" + svgNumber(y) +
         "\" text-anchor=\"" + anchor + "\" fill=\"" + fill + "\">" +
         htmlEscape(s) + "</text>\n";
}

std::string rect(const char *cls, double x, double y, double w, double h,
                 const std::string &fill, const std::string &title,
                 const std::string &extra = "") {
  return "<rect class=\"" + std::string(cls) + "\" x=\"" + svgNumber(x) +
         "\" y=\"" + svgNumber(y) + "\" width=\"" + svgNumber(w) +
         "\" height=\"" + svgNumber(h) + "\" fill=\"" + fill + "\"" + extra +
         "><title>" + htmlEscape(title) + "</title></rect>\n";
}

constexpr double kColumn = 96, kPlotHeight = 150, kLeft = 80, kTop = 24;
constexpr const char *kBarColor = "#2563eb";
constexpr const char *kBestColor = "#16a34a";
constexpr const char *kFailedFill = "#fecaca";
constexpr const char *kFailedText = "#991b1b";
constexpr const char *kBriefFill = "#d1d5db";
constexpr const char *kMissingText = "#6b7280";

/// One parameter: a column per value (ascending) of the best time among
/// the configurations with that value; the fastest column green.
std::string parameterChart(const TuneParameter &p,
                           const TuneSearchResult &result, int level) {
  std::vector<int64_t> values = sortedValues(p);
  std::vector<Cell> cells;
  double scale = 0, best = 0;
  for (int64_t v : values) {
    cells.push_back(summarize(result, {{p.name, v}}, level));
    const Cell &c = cells.back();
    if (c.kind == CellKind::Ok || c.kind == CellKind::Brief)
      scale = std::max(scale, c.ns);
    if (c.kind == CellKind::Ok && (best == 0 || c.ns < best))
      best = c.ns;
  }
  scale = scale > 0 ? scale * 1.1 : 1;
  double width = kLeft + kColumn * values.size() + 20;
  double base = kTop + kPlotHeight;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tune-chart\" "
       "data-parameter=\""
    << htmlEscape(p.name) << "\" role=\"img\" aria-label=\"best time against "
    << htmlEscape(p.name) << "\" width=\"" << svgNumber(width) << "\" height=\""
    << svgNumber(base + 44) << "\">\n";
  s << "<path d=\"M" << svgNumber(kLeft) << " " << svgNumber(kTop) << "V"
    << svgNumber(base) << "H" << svgNumber(width - 10)
    << "\" stroke=\"#111\" fill=\"none\"/>\n";
  for (double f : {0.0, 0.5, 1.0})
    s << text(kLeft - 6, base - f * kPlotHeight / 1.1 + 4,
              f == 0 ? "0" : formatTuneNs(f * scale / 1.1), "end");
  for (size_t i = 0; i < values.size(); ++i) {
    const Cell &c = cells[i];
    double x = kLeft + kColumn * i;
    std::string title =
        p.name + "=" + std::to_string(values[i]) + ": " + describe(c);
    if (c.kind == CellKind::Ok || c.kind == CellKind::Brief) {
      double h = c.ns / scale * kPlotHeight;
      const char *fill = c.kind == CellKind::Brief ? kBriefFill
                         : c.ns == best            ? kBestColor
                                                   : kBarColor;
      s << rect(c.kind == CellKind::Ok ? "bar ok" : "bar brief", x + 18,
                base - h, kColumn - 36, h, fill, title);
      s << text(x + kColumn / 2, base - h - 4,
                c.kind == CellKind::Ok ? formatTuneNs(c.ns) : shortLabel(c));
    } else {
      bool failed = c.kind == CellKind::Failed;
      s << rect(failed ? "bar failed" : "bar unmeasured", x + 18, base - 16,
                kColumn - 36, 16, failed ? kFailedFill : "#fff", title,
                failed ? "" : " stroke=\"#9ca3af\" stroke-dasharray=\"3 2\"");
      s << text(x + kColumn / 2, base - 20, shortLabel(c), "middle",
                failed ? kFailedText : kMissingText);
    }
    s << text(x + kColumn / 2, base + 16, std::to_string(values[i]));
  }
  s << text(kLeft + kColumn * values.size() / 2, base + 36, p.name);
  s << "</svg>\n";
  return s.str();
}

/// Fast dark blue to slow pale blue, |t| in 0..1.
std::string heatColor(double t) {
  const int fast[3] = {0x1e, 0x3a, 0x8a}, slow[3] = {0xdb, 0xea, 0xfe};
  char buf[8];
  int c[3];
  for (int i = 0; i < 3; ++i)
    c[i] = static_cast<int>(fast[i] + t * (slow[i] - fast[i]) + 0.5);
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c[0], c[1], c[2]);
  return buf;
}

constexpr double kCellW = 104, kCellH = 34;

/// The time scale (when any cell has a full time) and the other kinds.
std::string heatmapLegend(double y, bool any, double lo, double hi) {
  std::ostringstream s;
  if (any) {
    s << "<defs><linearGradient id=\"tune-heat\"><stop offset=\"0\" "
         "stop-color=\""
      << heatColor(0) << "\"/><stop offset=\"1\" stop-color=\"" << heatColor(1)
      << "\"/></linearGradient></defs>\n";
    s << "<rect class=\"legend\" x=\"" << svgNumber(kLeft) << "\" y=\""
      << svgNumber(y) << "\" width=\"200\" height=\"12\" "
      << "fill=\"url(#tune-heat)\"/>\n";
    s << text(kLeft, y + 26, formatTuneNs(lo) + " (fastest)", "start");
    s << text(kLeft + 200, y + 26, formatTuneNs(hi), "end");
  } else {
    s << text(kLeft, y + 10, "no pair of values has a full time", "start");
  }
  double x = kLeft + 230;
  for (auto [fill, label] :
       {std::pair{kFailedFill, "failed / incorrect / error"},
        std::pair{kBriefFill, "measured briefly only"},
        std::pair{"#fff", "not measured"}}) {
    s << "<rect x=\"" << svgNumber(x) << "\" y=\"" << svgNumber(y)
      << "\" width=\"12\" height=\"12\" fill=\"" << fill
      << "\" stroke=\"#9ca3af\"/>\n";
    s << text(x + 16, y + 10, label, "start");
    x += 190;
  }
  return s.str();
}

/// The first two parameters: a cell per pair of values, coloured by the
/// best time over the other parameters; each cell's time as text.
std::string heatmap(const TuneParameter &px, const TuneParameter &py,
                    const TuneSearchResult &result, int level) {
  std::vector<int64_t> xs = sortedValues(px), ys = sortedValues(py);
  std::vector<std::vector<Cell>> cells(ys.size());
  double lo = 0, hi = 0;
  bool any = false;
  for (size_t r = 0; r < ys.size(); ++r)
    for (int64_t x : xs) {
      cells[r].push_back(
          summarize(result, {{px.name, x}, {py.name, ys[r]}}, level));
      const Cell &c = cells[r].back();
      if (c.kind != CellKind::Ok)
        continue;
      lo = any ? std::min(lo, c.ns) : c.ns;
      hi = any ? std::max(hi, c.ns) : c.ns;
      any = true;
    }
  double gridBottom = kTop + 20 + kCellH * ys.size();
  double width = std::max(kLeft + kCellW * xs.size() + 20, kLeft + 820);
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tune-heatmap\" "
       "role=\"img\" aria-label=\"best time by "
    << htmlEscape(px.name) << " and " << htmlEscape(py.name) << "\" width=\""
    << svgNumber(width) << "\" height=\"" << svgNumber(gridBottom + 56)
    << "\">\n";
  s << text(kLeft + kCellW * xs.size() / 2, kTop - 8, px.name);
  s << text(kLeft - 8, kTop + 14, py.name + " \u2193", "end");
  for (size_t i = 0; i < xs.size(); ++i)
    s << text(kLeft + kCellW * (i + 0.5), kTop + 14, std::to_string(xs[i]));
  for (size_t r = 0; r < ys.size(); ++r) {
    double y = kTop + 20 + kCellH * r;
    s << text(kLeft - 8, y + kCellH / 2 + 4, std::to_string(ys[r]), "end");
    for (size_t i = 0; i < xs.size(); ++i) {
      const Cell &c = cells[r][i];
      double x = kLeft + kCellW * i;
      double t = hi > lo ? (c.ns - lo) / (hi - lo) : 0;
      std::string cls = std::string("cell ") + className(c.kind);
      std::string fill = c.kind == CellKind::Ok       ? heatColor(t)
                         : c.kind == CellKind::Brief  ? kBriefFill
                         : c.kind == CellKind::Failed ? kFailedFill
                                                      : "#fff";
      std::string title = px.name + "=" + std::to_string(xs[i]) + " " +
                          py.name + "=" + std::to_string(ys[r]) + ": " +
                          describe(c);
      s << rect(cls.c_str(), x + 1, y + 1, kCellW - 2, kCellH - 2, fill, title,
                " stroke=\"#9ca3af\"" +
                    std::string(c.kind == CellKind::Unmeasured
                                    ? " stroke-dasharray=\"3 2\""
                                    : ""));
      const char *ink =
          c.kind == CellKind::Ok
              ? (t < 0.5 ? "#fff" : "#111")
              : (c.kind == CellKind::Failed ? kFailedText : kMissingText);
      s << text(x + kCellW / 2, y + kCellH / 2 + 4,
                c.kind == CellKind::Ok ? formatTuneNs(c.ns) : shortLabel(c),
                "middle", ink);
    }
  }
  s << heatmapLegend(gridBottom + 14, any, lo, hi);
  s << "</svg>\n";
  return s.str();
}

std::string header(const TuneRunInfo &info, const TuneSearchResult &result) {
  std::ostringstream s;
  s << "<h1>kernel-bench tune: " << htmlEscape(info.kernel) << "</h1>\n";
  s << "<p>Device: " << htmlEscape(info.deviceName) << " ("
    << htmlEscape(info.backend) << ", target " << htmlEscape(info.target)
    << "); identity: " << htmlEscape(info.deviceIdentity) << ".</p>\n";
  s << "<p>Strategy: " << toString(info.strategy) << "; "
    << result.results.size() << " configurations measured of "
    << info.candidates << " candidates (" << info.spaceSize
    << " in the [tune] space, before the constraints and the launch-shape "
       "check); "
    << info.measured << " measurements made, the others from the tune cache; "
    << svgNumber(info.seconds) << " s.</p>\n";
  if (result.best) {
    const TuneResult &best = result.results[*result.best];
    s << "<p class=\"best\">Best: <b>"
      << htmlEscape(configurationKey(best.values)) << "</b>, "
      << htmlEscape(formatTuneNs(best.measurement.medianNs))
      << " per dispatch (median";
    if (!best.measurement.sizes.empty())
      s << ", the sum over " << best.measurement.sizes.size()
        << " problem sizes";
    s << ").</p>\n";
  } else {
    s << "<p class=\"best\"><b>No configuration passed</b>: every one failed "
         "to build, was incorrect or faulted (below).</p>\n";
  }
  return s.str();
}

/// One configuration's row of the top tables; |rank| empty for a brief one.
std::string topRow(const std::string &rank, const TuneResult &r) {
  const TuneMeasurement &m = r.measurement;
  char gb[32] = "-", occ[16] = "-";
  if (m.gbPerSecond)
    std::snprintf(gb, sizeof gb, "%.2f", *m.gbPerSecond);
  if (m.occupancy)
    std::snprintf(occ, sizeof occ, "%.0f%%", 100 * *m.occupancy);
  std::ostringstream s;
  s << "<tr>";
  if (!rank.empty())
    s << "<td class=\"n\">" << rank << "</td>";
  s << "<td class=\"cfg\">" << htmlEscape(configurationKey(r.values))
    << "</td><td class=\"n\">" << htmlEscape(formatTuneNs(m.medianNs))
    << "</td><td class=\"n\">" << htmlEscape(formatTuneNoise(m))
    << "</td><td class=\"n\">" << gb << "</td><td class=\"n\">"
    << (m.registers ? std::to_string(*m.registers) : "-")
    << "</td><td class=\"n\">" << htmlEscape(occ) << "</td><td class=\"n\">"
    << levelSamples(m.level) << "</td></tr>\n";
  return s.str();
}

constexpr const char *kTopColumns =
    "<th>configuration</th><th>median</th><th>noise</th><th>GB/s</th>"
    "<th>regs</th><th>occupancy</th><th>samples</th></tr>\n";

/// The ranking (measured fully), then the briefly measured ones in a table
/// of their own, unranked: a median of a few samples is no rank.
std::string topTable(const RankedTuneResults &ranked, size_t top) {
  std::ostringstream s;
  s << "<table class=\"top\">\n<tr><th>rank</th>" << kTopColumns;
  for (size_t i = 0; i < ranked.ok.size() && i < top; ++i)
    s << topRow(std::to_string(i + 1), *ranked.ok[i]);
  s << "</table>\n";
  if (ranked.ok.size() > top)
    s << "<p>" << ranked.ok.size() - top
      << " more passing configurations are in tune.json.</p>\n";
  if (ranked.brief.empty())
    return s.str();
  s << "<p>Measured briefly (fewer samples: not ranked with the above), "
       "by how far each got, then fastest first:</p>\n<table "
       "class=\"brief\">\n<tr>"
    << kTopColumns;
  for (size_t i = 0; i < ranked.brief.size() && i < top; ++i)
    s << topRow("", *ranked.brief[i]);
  s << "</table>\n";
  if (ranked.brief.size() > top)
    s << "<p>" << ranked.brief.size() - top
      << " more briefly measured configurations are in tune.json.</p>\n";
  return s.str();
}

std::string failedList(const RankedTuneResults &ranked) {
  if (ranked.failed.empty())
    return "<p>No configuration failed.</p>\n";
  std::ostringstream s;
  s << "<table class=\"failed\">\n<tr><th>configuration</th><th>status</th>"
       "<th>reason</th></tr>\n";
  for (const TuneResult *r : ranked.failed) {
    const std::string &message = r->measurement.message;
    s << "<tr><td class=\"cfg\">" << htmlEscape(configurationKey(r->values))
      << "</td><td class=\"bad\">" << toString(r->measurement.status)
      << "</td><td>";
    // The first line is the reason; a compiler's whole output stays one
    // click away (a <details> needs no script).
    if (message.find('\n') == std::string::npos)
      s << htmlEscape(message.empty() ? "-" : message);
    else
      s << "<details><summary>" << htmlEscape(firstMessageLine(message))
        << "</summary><pre>" << htmlEscape(message.substr(0, 20000))
        << "</pre></details>";
    s << "</td></tr>\n";
  }
  s << "</table>\n";
  return s.str();
}

} // namespace

std::string renderTuneHtml(const TuneRunInfo &info, const TuneSpace &space,
                           const TuneSearchResult &result, size_t top) {
  RankedTuneResults ranked = rankTuneResults(result);
  int level = finalLevel(result);
  std::ostringstream out;
  out << report::htmlPageHead("kernel-bench tune: " + info.kernel + " on " +
                              info.deviceName);
  out << header(info, result);
  out << "<h2>Top configurations</h2>\n" << topTable(ranked, top);
  out << "<h2>Time against each parameter</h2>\n<p>Each column: the best "
         "(minimum) median over the other parameters' values, of the "
         "configurations measured fully; the fastest value in green. A value "
         "whose configurations all failed, or that none measured, is marked "
         "so.</p>\n";
  for (const TuneParameter &p : space.parameters)
    out << "<figure><figcaption>" << htmlEscape(p.name) << "</figcaption>\n"
        << parameterChart(p, result, level) << "</figure>\n";
  if (space.parameters.size() >= 2) {
    const TuneParameter &px = space.parameters[0], &py = space.parameters[1];
    out << "<h2>Heatmap: " << htmlEscape(px.name) << " &times; "
        << htmlEscape(py.name) << "</h2>\n<p>Each cell: the best median";
    if (space.parameters.size() > 2)
      out << " over the other parameters' values (the first two parameters "
             "by name are drawn)";
    out << "; darker is faster. Hover a cell for its configuration.</p>\n"
        << "<figure>" << heatmap(px, py, result, level) << "</figure>\n";
  }
  out << "<h2>Failed configurations</h2>\n" << failedList(ranked);
  out << "</body>\n</html>\n";
  return out.str();
}

} // namespace kb::workbench

//===- workbench/report/mismatch_maps.cpp - Where a wrong output is wrong -===//
#include "workbench/report/mismatch_maps.h"

#include "workbench/report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kb::report {

namespace {

using module::MismatchMap;

/// Tiles per side of the terminal's count (a strip gets more: it has one
/// side).
constexpr uint64_t kTiles = 8, kStripTiles = 16;
constexpr size_t kTilesShown = 4;

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

struct MapOf {
  const Benchmark *benchmark;
  const Variant *variant;
  const OutputMap *map;
};

std::vector<MapOf> wrongMaps(const BenchReport &report) {
  std::vector<MapOf> maps;
  for (const Benchmark &b : report.benchmarks)
    for (const Variant &v : b.variants)
      for (const OutputMap &m : v.correctness.mismatchMaps)
        if (m.map.wrongCount)
          maps.push_back({&b, &v, &m});
  return maps;
}

/// "per tile of 16 x 16: (7, 7) 256, (0, 3) 2, +3 more tiles".
std::string tileCounts(const MismatchMap &m) {
  bool strip = m.rows == 1;
  uint64_t cellsPerTileRow = ceilDiv(m.cellRows, kTiles);
  uint64_t cellsPerTileCol = ceilDiv(m.cellCols, strip ? kStripTiles : kTiles);
  uint64_t tileCols = ceilDiv(m.cellCols, cellsPerTileCol);
  std::vector<std::pair<uint64_t, uint64_t>> tiles; // (count, tile index)
  std::vector<uint64_t> counts(ceilDiv(m.cellRows, cellsPerTileRow) * tileCols);
  for (uint64_t r = 0; r < m.cellRows; ++r)
    for (uint64_t c = 0; c < m.cellCols; ++c)
      counts[(r / cellsPerTileRow) * tileCols + c / cellsPerTileCol] +=
          m.wrong[r * m.cellCols + c];
  for (uint64_t t = 0; t < counts.size(); ++t)
    if (counts[t])
      tiles.push_back({counts[t], t});
  std::stable_sort(tiles.begin(), tiles.end(),
                   [](auto &a, auto &b) { return a.first > b.first; });
  uint64_t tileRowsEl = cellsPerTileRow * m.rowsPerCell;
  uint64_t tileColsEl = cellsPerTileCol * m.colsPerCell;
  std::string text = strip ? "per " + std::to_string(tileColsEl) + " elements:"
                           : "per tile of " + std::to_string(tileRowsEl) +
                                 " x " + std::to_string(tileColsEl) + ":";
  for (size_t i = 0; i < tiles.size() && i < kTilesShown; ++i) {
    uint64_t t = tiles[i].second;
    std::string where = strip ? "[" + std::to_string(t) + "]"
                              : "(" + std::to_string(t / tileCols) + ", " +
                                    std::to_string(t % tileCols) + ")";
    text += (i ? ", " : " ") + where + " " + std::to_string(tiles[i].first);
  }
  if (tiles.size() > kTilesShown)
    text += ", +" + std::to_string(tiles.size() - kTilesShown) + " more tiles";
  return text;
}

std::string cellRange(uint64_t cell, uint64_t perCell, uint64_t limit) {
  uint64_t first = cell * perCell;
  uint64_t last = std::min(limit, first + perCell) - 1;
  return first == last ? std::to_string(first)
                       : std::to_string(first) + "-" + std::to_string(last);
}

/// The fill of a wrong cell: red, darker the larger its error against the
/// map's largest (log scale: one wrong tile by 1e-3 beside one by 1e3 both
/// show); purple where a NaN or an infinity is wrong.
std::string cellFill(double error, double largest) {
  if (error < 0)
    return "#6b21a8";
  double share = largest > 0 ? std::log1p(error) / std::log1p(largest) : 1;
  char buf[48];
  std::snprintf(buf, sizeof buf, "rgba(185,28,28,%.2f)",
                0.35 + 0.65 * std::clamp(share, 0.0, 1.0));
  return buf;
}

std::string errorText(double error) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", error);
  return buf;
}

std::string heatMap(const MismatchMap &m, const std::string &label) {
  bool strip = m.rows == 1;
  double cell =
      strip ? std::clamp(768.0 / double(m.cellCols), 2.0, 12.0)
            : std::clamp(512.0 / double(std::max(m.cellRows, m.cellCols)), 2.0,
                         12.0);
  double w = cell * double(m.cellCols), h = strip ? 24 : cell * m.cellRows;
  double cellH = strip ? h : cell;
  double largest = 0;
  for (double e : m.maxError)
    largest = std::max(largest, e);
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
       "class=\"mismatch-map\" aria-label=\""
    << htmlEscape(label) << "\" width=\"" << svgNumber(w) << "\" height=\""
    << svgNumber(h) << "\" viewBox=\"0 0 " << svgNumber(w) << " "
    << svgNumber(h) << "\">\n<rect class=\"right\" width=\"" << svgNumber(w)
    << "\" height=\"" << svgNumber(h)
    << "\" fill=\"#dcfce7\" stroke=\"#9ca3af\" stroke-width=\"0.5\"/>\n";
  for (uint64_t r = 0; r < m.cellRows; ++r)
    for (uint64_t c = 0; c < m.cellCols; ++c) {
      size_t i = r * m.cellCols + c;
      if (!m.wrong[i])
        continue;
      s << "<rect class=\"wrong\" data-cell=\"" << r << "," << c << "\" x=\""
        << svgNumber(c * cell) << "\" y=\"" << svgNumber(r * cellH)
        << "\" width=\"" << svgNumber(cell) << "\" height=\""
        << svgNumber(cellH) << "\" fill=\"" << cellFill(m.maxError[i], largest)
        << "\"><title>"
        << (strip ? "elements "
                  : "rows " + cellRange(r, m.rowsPerCell, m.rows) + ", cols ")
        << cellRange(c, m.colsPerCell, m.cols) << ": " << m.wrong[i]
        << " wrong, largest |error| "
        << (m.maxError[i] < 0 ? std::string("NaN or infinity")
                              : errorText(m.maxError[i]))
        << "</title></rect>\n";
    }
  s << "</svg>";
  return s.str();
}

std::string subject(const MapOf &m) {
  return m.benchmark->name + ": " + m.variant->name + ": output " +
         m.map->output + " (inputs " + m.map->inputs + ")";
}

std::string summary(const MismatchMap &m) {
  uint64_t elements = m.rows * m.cols;
  return std::to_string(m.wrongCount) + " wrong of " +
         std::to_string(elements) + ", " + m.describeBox();
}

} // namespace

std::string whereWrong(const module::MismatchMap &map) {
  return summary(map) + "; " + tileCounts(map);
}

std::vector<std::string> mismatchMapLines(const BenchReport &report,
                                          size_t maxShown) {
  std::vector<std::string> lines;
  std::vector<MapOf> maps = wrongMaps(report);
  for (size_t i = 0; i < maps.size() && i < maxShown; ++i) {
    const OutputMap &o = *maps[i].map;
    lines.push_back(subject(maps[i]) + ": " + whereWrong(o.map) +
                    (o.note.empty() ? "" : " (" + o.note + ")"));
  }
  if (maps.size() > maxShown)
    lines.push_back(std::to_string(maps.size() - maxShown) +
                    " more wrong outputs (bench.json has their maps)");
  return lines;
}

std::string mismatchMapSection(const BenchReport &report, size_t maxShown) {
  std::vector<MapOf> maps = wrongMaps(report);
  if (maps.empty())
    return "";
  std::ostringstream out;
  out << "<h2>Where the outputs differ</h2>\n<p class=\"legend\">"
      << "<span style=\"background:#dcfce7\"></span>right"
      << "<span style=\"background:rgb(185,28,28)\"></span>wrong (darker: a "
         "larger error)<span style=\"background:#6b21a8\"></span>NaN or "
         "infinity wrong; each cell a block of elements, rows down, columns "
         "across; hover a cell for its elements</p>\n";
  for (size_t i = 0; i < maps.size() && i < maxShown; ++i) {
    const OutputMap &o = *maps[i].map;
    const MismatchMap &m = o.map;
    out << "<figure><figcaption>" << htmlEscape(subject(maps[i])) << ": "
        << htmlEscape(summary(m)) << "; each cell " << m.rowsPerCell << " x "
        << m.colsPerCell << " elements"
        << (o.note.empty() ? "" : " (" + htmlEscape(o.note) + ")")
        << "</figcaption>\n"
        << heatMap(m, subject(maps[i])) << "</figure>\n";
  }
  if (maps.size() > maxShown)
    out << "<p>" << (maps.size() - maxShown)
        << " more wrong outputs; bench.json has their maps.</p>\n";
  return out.str();
}

} // namespace kb::report

//===- runtime/module/mismatch_map.cpp - Where an output is wrong ---------===//
#include "runtime/module/mismatch_map.h"

#include <algorithm>
#include <cmath>

namespace kb::module {

namespace {
uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

std::string range(uint64_t first, uint64_t last) {
  return first == last ? std::to_string(first)
                       : std::to_string(first) + "-" + std::to_string(last);
}
} // namespace

MismatchMap MismatchMap::create(uint64_t elementCount,
                                const std::vector<uint64_t> &shape,
                                std::string *why) {
  MismatchMap map;
  uint64_t product = 1;
  bool overflow = false;
  for (uint64_t d : shape)
    overflow |= __builtin_mul_overflow(product, d, &product);
  if (!overflow && product == elementCount && shape.size() > 1) {
    map.shape = shape;
    map.cols = shape.back();
    map.rows = elementCount / std::max<uint64_t>(map.cols, 1);
  } else {
    if (!shape.empty() && (overflow || product != elementCount) && why)
      *why =
          "the declared shape holds " +
          (overflow ? std::string("more than 2^64") : std::to_string(product)) +
          " elements and the output " + std::to_string(elementCount) +
          "; shown as one row";
    map.shape = {elementCount};
    map.cols = elementCount;
  }
  uint64_t maxCols = map.rows == 1 ? kMaxStripCells : kMaxCells;
  map.rowsPerCell = std::max<uint64_t>(1, ceilDiv(map.rows, kMaxCells));
  map.colsPerCell = std::max<uint64_t>(1, ceilDiv(map.cols, maxCols));
  map.cellRows = ceilDiv(map.rows, map.rowsPerCell);
  map.cellCols = ceilDiv(map.cols, map.colsPerCell);
  map.wrong.assign(map.cellRows * map.cellCols, 0);
  map.maxError.assign(map.wrong.size(), 0);
  return map;
}

void MismatchMap::add(uint64_t index, double error) {
  if (cols == 0)
    return;
  uint64_t row = index / cols, col = index % cols;
  if (row >= rows)
    return;
  size_t cell = (row / rowsPerCell) * cellCols + col / colsPerCell;
  if (!std::isfinite(error)) // an f64 difference too large for a double
    error = -1;
  ++wrong[cell];
  double &worst = maxError[cell];
  worst = error < 0 || worst < 0 ? -1 : std::max(worst, error);
  if (wrongCount++ == 0) {
    top = bottom = row;
    left = right = col;
    return;
  }
  top = std::min(top, row);
  bottom = std::max(bottom, row);
  left = std::min(left, col);
  right = std::max(right, col);
}

std::string MismatchMap::describeBox() const {
  if (rows == 1)
    return "elements " + range(left, right) + " of " + std::to_string(cols);
  std::string dims;
  for (uint64_t d : shape)
    dims += (dims.empty() ? "" : " x ") + std::to_string(d);
  // Rows of a 3- or 4-D shape are its leading dimensions folded.
  std::string folded =
      shape.size() > 2 ? " (the first " + std::to_string(shape.size() - 1) +
                             " dimensions as " + std::to_string(rows) + " rows)"
                       : "";
  return "rows " + range(top, bottom) + ", cols " + range(left, right) +
         " of " + dims + folded;
}

} // namespace kb::module

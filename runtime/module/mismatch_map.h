//===- runtime/module/mismatch_map.h - Where an output is wrong -----------===//
//
// A list of the first wrong indices says that an output is wrong, not where:
// a wrong last tile of a matmul, a missing tail or an off-by-one row shows as
// a shape only when the wrong elements are seen on the output's own grid.
// The map sees an output of R x C elements (its declared shape, the last
// dimension as columns and the others folded into rows; one row when no shape
// is declared) through at most kMaxCells x kMaxCells cells, each covering a
// block of elements, and counts the wrong elements of each cell and keeps the
// largest |candidate - reference| among them. It also keeps the bounding box
// of the wrong elements, in element coordinates.
//
// Built by compareElements (compare.h) when asked for, from the same
// per-element verdicts: a cell is wrong exactly when an element in it failed
// the comparison.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_MISMATCH_MAP_H_
#define KB_RUNTIME_MODULE_MISMATCH_MAP_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kb::module {

struct MismatchMap {
  /// Cells per side, at most: a 64 x 64 map shows a 16-element tile of a
  /// 1024 x 1024 output as one cell, and stays small in bench.json.
  static constexpr uint64_t kMaxCells = 64;
  /// Cells of a one-row map (a strip).
  static constexpr uint64_t kMaxStripCells = 256;

  /// The output as the map sees it: |shape| as declared (row-major, last
  /// dimension fastest), or the element count alone.
  std::vector<uint64_t> shape;
  uint64_t rows = 1, cols = 0; // the element grid
  uint64_t rowsPerCell = 1, colsPerCell = 1;
  uint64_t cellRows = 1, cellCols = 0;
  /// Per cell, row-major (cellRows x cellCols): the wrong elements, and the
  /// largest |candidate - reference| among them; -1 where a NaN or an
  /// infinity is among the wrong ones (no distance measures those, and JSON
  /// holds no infinity).
  std::vector<uint64_t> wrong;
  std::vector<double> maxError;
  uint64_t wrongCount = 0;
  /// The wrong elements' bounding box, inclusive (valid when wrongCount).
  uint64_t top = 0, bottom = 0, left = 0, right = 0;

  /// An empty map of |elementCount| elements seen as |shape| (empty: one
  /// row). A shape whose product is not |elementCount| is not used; |why|
  /// then says so.
  static MismatchMap create(uint64_t elementCount,
                            const std::vector<uint64_t> &shape,
                            std::string *why = nullptr);

  /// Element |index| is wrong by |error| (negative: NaN or infinity).
  void add(uint64_t index, double error);

  /// "rows 112-127, cols 112-127 of 128 x 128" (or "elements 4000-4095 of
  /// 4096" for one row).
  std::string describeBox() const;
};

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_MISMATCH_MAP_H_

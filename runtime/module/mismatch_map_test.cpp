//===- runtime/module/mismatch_map_test.cpp - Where an output is wrong ----===//
#include "runtime/module/compare.h"
#include "runtime/module/mismatch_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace kb::module {
namespace {

std::vector<uint8_t> bytes(const std::vector<float> &values) {
  std::vector<uint8_t> out(values.size() * sizeof(float));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A 128 x 128 matmul whose last 16 x 16 tile is wrong: on a 64 x 64 map
// (2 x 2 elements a cell) the wrong cells are exactly that tile's 8 x 8.
TEST(MismatchMap, AWrongLastTileIsItsCellsAndItsBox) {
  const uint64_t n = 128;
  std::vector<float> reference(n * n, 1.0f), candidate = reference;
  for (uint64_t r = 112; r < n; ++r)
    for (uint64_t c = 112; c < n; ++c)
      candidate[r * n + c] = 3.0f;
  MismatchMap map = MismatchMap::create(n * n, {n, n});
  Comparison cmp = compareElements(ElementType::F32, bytes(reference),
                                   bytes(candidate), {}, 8, &map);
  EXPECT_EQ(cmp.mismatchCount, 256u);
  EXPECT_EQ(map.wrongCount, 256u);
  ASSERT_EQ(map.cellRows, 64u);
  ASSERT_EQ(map.cellCols, 64u);
  for (uint64_t r = 0; r < 64; ++r)
    for (uint64_t c = 0; c < 64; ++c) {
      bool inTile = r >= 56 && c >= 56;
      EXPECT_EQ(map.wrong[r * 64 + c], inTile ? 4u : 0u) << r << "," << c;
      EXPECT_EQ(map.maxError[r * 64 + c], inTile ? 2.0 : 0.0);
    }
  EXPECT_EQ(map.describeBox(), "rows 112-127, cols 112-127 of 128 x 128");
}

// No shape, or one that does not hold the output: one row of at most 256
// cells, and the reason the shape went unused.
TEST(MismatchMap, WithoutAShapeTheOutputIsAStrip) {
  std::string why;
  MismatchMap map = MismatchMap::create(4096, {60, 60}, &why);
  EXPECT_EQ(why, "the declared shape holds 3600 elements and the output "
                 "4096; shown as one row");
  EXPECT_EQ(map.rows, 1u);
  EXPECT_EQ(map.cellCols, 256u);
  EXPECT_EQ(map.colsPerCell, 16u);
  map.add(4095, 0.5);
  map.add(4000, -1);
  EXPECT_EQ(map.wrong[255], 1u);
  EXPECT_EQ(map.maxError[250], -1.0); // a NaN is wrong by no distance
  EXPECT_EQ(map.describeBox(), "elements 4000-4095 of 4096");

  MismatchMap small = MismatchMap::create(10, {});
  EXPECT_EQ(small.cellCols, 10u);
  EXPECT_EQ(small.colsPerCell, 1u);
}

// Leading dimensions fold into rows; a NaN where the reference has a
// number marks its cell as non-finite.
TEST(MismatchMap, LeadingDimensionsFoldIntoRows) {
  MismatchMap map = MismatchMap::create(2 * 3 * 4, {2, 3, 4});
  EXPECT_EQ(map.rows, 6u);
  EXPECT_EQ(map.cols, 4u);
  std::vector<float> reference(24, 0.0f), candidate = reference;
  candidate[23] = std::numeric_limits<float>::quiet_NaN();
  compareElements(ElementType::F32, bytes(reference), bytes(candidate), {}, 8,
                  &map);
  EXPECT_EQ(map.wrong[23], 1u);
  EXPECT_EQ(map.maxError[23], -1.0);
  EXPECT_EQ(map.describeBox(), "rows 5, cols 3 of 2 x 3 x 4 (the first 2 "
                               "dimensions as 6 rows)");
  // A shape too large for 64 bits is said so, not as 0 elements.
  std::string why;
  MismatchMap huge =
      MismatchMap::create(8192, {uint64_t(1) << 40, uint64_t(1) << 40}, &why);
  EXPECT_EQ(huge.rows, 1u);
  EXPECT_EQ(why, "the declared shape holds more than 2^64 elements and the "
                 "output 8192; shown as one row");
}

} // namespace
} // namespace kb::module

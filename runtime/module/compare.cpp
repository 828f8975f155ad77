//===- runtime/module/compare.cpp - Candidate vs reference outputs --------===//
#include "runtime/module/compare.h"

#include "runtime/module/element_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kb::module {

namespace {
/// The bits of a float element as an integer ordered like the values
/// (sign-magnitude to two's complement), so that the distance between two
/// is their distance in units in the last place.
int64_t orderedBits(ElementType type, const uint8_t *p) {
  uint64_t bits = 0;
  uint32_t size = byteSize(type);
  std::memcpy(&bits, p, size); // little-endian hosts
  uint64_t sign = uint64_t(1) << (8 * size - 1);
  int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return bits & sign ? -magnitude : magnitude;
}

bool withinUlp(ElementType type, const uint8_t *r, const uint8_t *c,
               uint32_t ulp) {
  if (ulp == 0 || !isFloat(type))
    return false;
  int64_t a = orderedBits(type, r), b = orderedBits(type, c);
  uint64_t distance =
      a > b ? uint64_t(a) - uint64_t(b) : uint64_t(b) - uint64_t(a);
  return distance <= ulp;
}
} // namespace

Comparison compareElements(ElementType type,
                           const std::vector<uint8_t> &reference,
                           const std::vector<uint8_t> &candidate,
                           Tolerance tolerance, size_t maxReported,
                           MismatchMap *map) {
  Comparison result;
  uint32_t size = byteSize(type);
  uint64_t n = std::min(reference.size(), candidate.size()) / size;
  result.elementCount = n;
  bool exactInts = !isFloat(type) && tolerance.abs == 0 && tolerance.rel == 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t *r = reference.data() + i * size;
    const uint8_t *c = candidate.data() + i * size;
    bool match;
    double rv = readElement(type, r), cv = readElement(type, c);
    if (exactInts) {
      // Bytes, not doubles: 64-bit integers do not round-trip through double.
      match = std::memcmp(r, c, size) == 0;
    } else if (std::isnan(rv) || std::isnan(cv)) {
      match = std::isnan(rv) && std::isnan(cv);
    } else if (std::isinf(rv) || std::isinf(cv)) {
      match = rv == cv;
    } else {
      double err = std::fabs(cv - rv);
      result.maxAbsError = std::max(result.maxAbsError, err);
      match = err <= tolerance.abs + tolerance.rel * std::fabs(rv) ||
              withinUlp(type, r, c, tolerance.ulp);
    }
    if (!match) {
      ++result.mismatchCount;
      if (result.firstMismatches.size() < maxReported)
        result.firstMismatches.push_back({i, rv, cv});
      if (map) // add() marks a NaN or an infinite distance as such
        map->add(i, std::fabs(cv - rv));
    }
  }
  return result;
}

} // namespace kb::module

//===- runtime/module/compare.cpp - Candidate vs reference outputs --------===//
#include "runtime/module/compare.h"

#include "runtime/module/element_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kb::module {

Tolerance defaultTolerance(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return {1e-12, 1e-10};
  case ElementType::F32:
    return {1e-5, 1e-4};
  case ElementType::F16:
    return {1e-3, 1e-2};
  case ElementType::BF16:
    return {1e-2, 2e-2};
  default:
    return {0, 0};
  }
}

Comparison compareElements(ElementType type,
                           const std::vector<uint8_t> &reference,
                           const std::vector<uint8_t> &candidate,
                           Tolerance tolerance, size_t maxReported) {
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
      match = err <= tolerance.abs + tolerance.rel * std::fabs(rv);
    }
    if (!match) {
      ++result.mismatchCount;
      if (result.firstMismatches.size() < maxReported)
        result.firstMismatches.push_back({i, rv, cv});
    }
  }
  return result;
}

} // namespace kb::module

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

/// Whether the elements of |type| at |r| and |c| agree within |tolerance|;
/// their values into |rv| and |cv|, the finite error into |result|.
bool matches(ElementType type, const uint8_t *r, const uint8_t *c,
             const Tolerance &tolerance, double &rv, double &cv,
             Comparison &result) {
  rv = readElement(type, r);
  cv = readElement(type, c);
  if (!isFloat(type) && tolerance.abs == 0 && tolerance.rel == 0)
    // Bytes, not doubles: 64-bit integers do not round-trip through double.
    return std::memcmp(r, c, byteSize(type)) == 0;
  if (std::isnan(rv) || std::isnan(cv))
    return std::isnan(rv) && std::isnan(cv);
  if (std::isinf(rv) || std::isinf(cv))
    return rv == cv;
  double err = std::fabs(cv - rv);
  result.maxAbsError = std::max(result.maxAbsError, err);
  return err <= tolerance.abs + tolerance.rel * std::fabs(rv) ||
         withinUlp(type, r, c, tolerance.ulp);
}

/// Counts a mismatch of element |i| (|member| of it, for structs).
void addMismatch(uint64_t i, double rv, double cv, std::string member,
                 size_t maxReported, Comparison &result, MismatchMap *map) {
  ++result.mismatchCount;
  if (result.firstMismatches.size() < maxReported)
    result.firstMismatches.push_back({i, rv, cv, std::move(member)});
  if (map) // add() marks a NaN or an infinite distance as such
    map->add(i, std::fabs(cv - rv));
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
  for (uint64_t i = 0; i < n; ++i) {
    double rv = 0, cv = 0;
    if (!matches(type, reference.data() + i * size, candidate.data() + i * size,
                 tolerance, rv, cv, result))
      addMismatch(i, rv, cv, "", maxReported, result, map);
  }
  return result;
}

Comparison
compareStructs(const StructLayout &layout,
               const std::vector<uint8_t> &reference,
               const std::vector<uint8_t> &candidate,
               std::initializer_list<const ToleranceOverride *> layers,
               size_t maxReported, MismatchMap *map) {
  Comparison result;
  if (layout.stride == 0)
    return result;
  uint64_t n = std::min(reference.size(), candidate.size()) / layout.stride;
  result.elementCount = n;
  std::vector<Tolerance> tolerances;
  for (const StructMember &m : layout.members)
    tolerances.push_back(resolveTolerance(m.type, layers));
  // A struct is one element: counted (and mapped) once however many of
  // its members are wrong, each wrong member reported by name.
  for (uint64_t i = 0; i < n; ++i) {
    double worst = -1;
    for (size_t k = 0; k < layout.members.size(); ++k) {
      const StructMember &m = layout.members[k];
      uint32_t size = byteSize(m.type);
      for (uint32_t e = 0; e < m.count * m.components; ++e) {
        uint64_t at = i * layout.stride + m.offset +
                      (e / m.components) * m.arrayStride +
                      (e % m.components) * size;
        double rv = 0, cv = 0;
        if (matches(m.type, reference.data() + at, candidate.data() + at,
                    tolerances[k], rv, cv, result))
          continue;
        double diff = std::fabs(cv - rv);
        worst = std::isnan(diff) ? diff : std::max(worst, diff);
        std::string name =
            m.name.empty() ? "member " + std::to_string(k) : m.name;
        if (m.count * m.components > 1)
          name += "[" + std::to_string(e) + "]";
        if (result.firstMismatches.size() < maxReported)
          result.firstMismatches.push_back({i, rv, cv, std::move(name)});
      }
    }
    if (worst != -1) {
      ++result.mismatchCount;
      if (map)
        map->add(i, worst);
    }
  }
  return result;
}

} // namespace kb::module

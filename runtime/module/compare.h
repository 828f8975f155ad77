//===- runtime/module/compare.h - Candidate vs reference outputs ----------===//
//
// Element-wise comparison with per-type tolerances (tolerance.h): an element
// matches when |candidate - reference| <= abs + rel * |reference|, or when
// the two are within `ulp` units in the last place; NaN matches only NaN at
// the same index, an infinity only the same infinity. Defaults, used when
// nothing sets a tolerance:
//
//   f64 abs 1e-12 rel 1e-10    f32 abs 1e-5 rel 1e-4
//   f16 abs 1e-3  rel 1e-2     bf16 abs 1e-2 rel 2e-2    integers: exact
//
// (float tolerances allow for FMA contraction and reassociation between a
// handwritten kernel and the compiler's; tighten them per output.) Outputs
// of structs compare member by member, each with its member type's.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_COMPARE_H_
#define KB_RUNTIME_MODULE_COMPARE_H_

#include "common/kernel_abi.h"
#include "runtime/module/mismatch_map.h"
#include "runtime/module/tolerance.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kb::module {

struct Mismatch {
  uint64_t index = 0;
  double reference = 0;
  double candidate = 0;
  /// A struct output's member ("vel[1]": component 1 of `vel`); empty for
  /// arrays of scalars. |index| is then the struct element's.
  std::string member;
};

struct Comparison {
  uint64_t elementCount = 0;
  uint64_t mismatchCount = 0;
  std::vector<Mismatch> firstMismatches; // at most |maxReported|, in order
  double maxAbsError = 0;
  bool ok() const { return mismatchCount == 0; }
};

/// Compares two equally sized element arrays of |type|; with |map|, also
/// marks every wrong element on it (MismatchMap::create of the count).
Comparison compareElements(ElementType type,
                           const std::vector<uint8_t> &reference,
                           const std::vector<uint8_t> &candidate,
                           Tolerance tolerance, size_t maxReported = 8,
                           MismatchMap *map = nullptr);

/// Compares two equally sized arrays of |layout| structs member by member:
/// each component as its member's type, within the tolerance |layers|
/// resolve for that type (resolveTolerance), padding not compared. With
/// |map| (of the struct count), marks each wrong struct once.
Comparison
compareStructs(const StructLayout &layout,
               const std::vector<uint8_t> &reference,
               const std::vector<uint8_t> &candidate,
               std::initializer_list<const ToleranceOverride *> layers,
               size_t maxReported = 8, MismatchMap *map = nullptr);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_COMPARE_H_

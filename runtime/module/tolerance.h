//===- runtime/module/tolerance.h - How close a candidate must be ---------===//
//
// An element matches its reference when |candidate - reference| <= abs +
// rel * |reference|, or (with ulp > 0) when the two are at most `ulp` units
// in the last place apart in the element's own type. Tolerances come in
// layers, each overriding what the one before set: the element type's
// default (compare.h), the module's per-output tolerances, a kernel's
// `[tolerance]` and its `[tolerance.outputs.NAME]` (kernels/README.md).
//
// A reduction over n floats accumulates rounding error that grows with
// sqrt(n) (random-walk rounding), so a declared reduction length scales the
// float abs and rel tolerances by sqrt(n): long sums and atomics in another
// order than the reference's are not flagged falsely. Integers stay exact.
//
// Its own header (not compare.h, not a workbench header) so that the
// kernel.toml model and the bench settings can both carry it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_TOLERANCE_H_
#define KB_RUNTIME_MODULE_TOLERANCE_H_

#include "common/kernel_abi.h"

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace kb::module {

struct Tolerance {
  double abs = 0;
  double rel = 0;
  uint32_t ulp = 0; // 0: no ULP criterion
};

/// One layer of tolerances; an unset field keeps the layer below.
struct ToleranceOverride {
  std::optional<double> abs, rel;
  std::optional<uint32_t> ulp;
  /// The number of elements each output element sums (>= 1).
  std::optional<double> reductionLength;
  bool empty() const { return !abs && !rel && !ulp && !reductionLength; }
};

/// The element type's default tolerance (compare.h lists them).
Tolerance defaultTolerance(ElementType type);

/// The default of |type| with |layers| applied in order (null entries are
/// skipped), then the float tolerances scaled by sqrt(reduction length) of
/// the last layer that sets one.
Tolerance
resolveTolerance(ElementType type,
                 std::initializer_list<const ToleranceOverride *> layers);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_TOLERANCE_H_

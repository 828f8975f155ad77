//===- runtime/module/tolerance.cpp - How close a candidate must be -------===//
#include "runtime/module/tolerance.h"

#include "runtime/module/element_io.h"

#include <algorithm>
#include <cmath>

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

Tolerance
resolveTolerance(ElementType type,
                 std::initializer_list<const ToleranceOverride *> layers) {
  Tolerance tolerance = defaultTolerance(type);
  double length = 1;
  for (const ToleranceOverride *layer : layers) {
    if (!layer)
      continue;
    tolerance.abs = layer->abs.value_or(tolerance.abs);
    tolerance.rel = layer->rel.value_or(tolerance.rel);
    tolerance.ulp = layer->ulp.value_or(tolerance.ulp);
    length = layer->reductionLength.value_or(length);
  }
  if (isFloat(type)) {
    double scale = std::sqrt(std::max(length, 1.0));
    tolerance.abs *= scale;
    tolerance.rel *= scale;
  }
  return tolerance;
}

} // namespace kb::module

//===- workbench/inspect/inspect_why.h - Why a candidate differs ----------===//
//
// The 'why' lines of `inspect`: what the code of a candidate does
// differently from its reference on the same target, in the words of the
// mixes — `scalar loads (ld.global.f32 ×4) where the reference uses
// ld.global.v4.f32` — from the figures alone, most telling first: memory
// access widths, spills, occupancy (or registers), tensor-core ops,
// barriers, shared memory, FMAs, then the instruction count. A reason to
// look, not a measurement.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_WHY_H_
#define KB_WORKBENCH_INSPECT_INSPECT_WHY_H_

#include "workbench/inspect/inspect_report.h"

#include <string>
#include <vector>

namespace kb::workbench {

/// The reference |candidate| is compared with in |target|: the one in the
/// candidate's format, else the first; null without one.
const VariantInspection *referenceFor(const TargetInspection &target,
                                      const VariantInspection &candidate);

/// One line per difference between |candidate| and |reference|; a single
/// line saying so when the figures compared agree.
std::vector<std::string> explainDifferences(const VariantInspection &candidate,
                                            const VariantInspection &reference);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_WHY_H_

//===- workbench/inspect/inspect_variant.h - One variant's code, read -----===//
//
// What `inspect` shows of one variant of a benchmarked executable: CUDA —
// the PTX mix (always), ptxas's registers, spills and shared memory with
// the theoretical occupancy they give, and the SASS mix where nvdisasm or
// cuobjdump is installed; Vulkan — the SPIR-V mix, and spirv-dis's listing
// where it is installed. Never fails: what cannot be read is a note.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_VARIANT_H_
#define KB_WORKBENCH_INSPECT_INSPECT_VARIANT_H_

#include "runtime/module/module.h"
#include "workbench/inspect/inspect_report.h"
#include "workbench/inspect/inspect_tools.h"

namespace kb::workbench {

/// Reads |variant| (its export |exportIndex| is the benchmarked one).
VariantInspection inspectVariant(const module::Variant &variant,
                                 uint32_t exportIndex,
                                 const InspectTools &tools);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_VARIANT_H_

//===- workbench/inspect/inspect_render.h - `inspect` as text and JSON ----===//
//
// The edge of `inspect`: the report as a side-by-side table per benchmark
// and target (one column per variant, the reference last) with its why
// lines, the files written and the notes. inspect_json.h is the same for
// scripts.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_RENDER_H_
#define KB_WORKBENCH_INSPECT_INSPECT_RENDER_H_

#include "workbench/inspect/inspect_report.h"

#include <string>

namespace kb::workbench {

std::string renderInspectText(const InspectReport &report);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_RENDER_H_

//===- workbench/inspect/inspect_json.h - `inspect --json` ----------------===//
//
// The report for scripts (schema in docs/cli.md): what the text shows, and
// every opcode's count of every mix.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_JSON_H_
#define KB_WORKBENCH_INSPECT_INSPECT_JSON_H_

#include "workbench/inspect/inspect_report.h"

#include <nlohmann/json.hpp>

namespace kb::workbench {

/// Version of the document; bumped when a reader would misread it.
constexpr int kInspectJsonSchemaVersion = 1;

nlohmann::ordered_json inspectJson(const InspectReport &report);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_JSON_H_

//===- workbench/report/strict_json.h - JSON without NaN ------------------===//
//
// nlohmann writes NaN and infinity as `null`, silently turning a producer's
// bug into "unknown". Every JSON file workbench/report/ writes goes through
// dumpStrictJson, which refuses them and names the field instead.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_STRICT_JSON_H_
#define KB_WORKBENCH_REPORT_STRICT_JSON_H_

#include "common/status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kb::report {

/// |j| as text (|indent| < 0: one line; else indented plus a newline);
/// InvalidArgument "<what>: <path> is NaN or infinite" when a number is.
StatusOr<std::string> dumpStrictJson(const nlohmann::ordered_json &j,
                                     int indent, std::string_view what);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_STRICT_JSON_H_

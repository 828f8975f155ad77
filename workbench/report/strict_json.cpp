//===- workbench/report/strict_json.cpp - JSON without NaN ----------------===//
#include "workbench/report/strict_json.h"

#include <cmath>

using json = nlohmann::ordered_json;

namespace kb::report {

namespace {
bool allFinite(const json &j) {
  if (j.is_number_float())
    return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const json &child : j)
      if (!allFinite(child))
        return false;
  return true;
}

/// The path of the first non-finite number in |j| ("" when none).
std::string firstNonFinite(const json &j, const std::string &path) {
  if (j.is_number_float())
    return std::isfinite(j.get<double>()) ? "" : path;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      std::string p =
          firstNonFinite(j[i], path + "[" + std::to_string(i) + "]");
      if (!p.empty())
        return p;
    }
  } else if (j.is_object()) {
    for (const auto &item : j.items()) {
      std::string p = firstNonFinite(
          item.value(), path.empty() ? item.key() : path + "." + item.key());
      if (!p.empty())
        return p;
    }
  }
  return "";
}

} // namespace

StatusOr<std::string> dumpStrictJson(const json &j, int indent,
                                     std::string_view what) {
  // The cheap walk first: building paths for every number of a 10^6-sample
  // report would cost more than the dump.
  if (!allFinite(j))
    return invalidArgument(std::string(what) + ": " + firstNonFinite(j, "") +
                           " is NaN or infinite; reports hold finite "
                           "numbers only (an unknown value is an empty "
                           "std::optional, written as null)");
  std::string text = j.dump(indent);
  if (indent >= 0)
    text += '\n';
  return text;
}

} // namespace kb::report

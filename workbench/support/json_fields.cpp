//===- workbench/support/json_fields.cpp - One field table per JSON object ===//
#include "workbench/support/json_fields.h"

namespace kb::workbench {

namespace {
const char *typeName(const OrderedJson &j) {
  if (j.is_number())
    return "a number";
  return j.type_name(); // "string", "object", "array", "null", "boolean"
}
} // namespace

std::string JsonReader::where(std::string_view key) const {
  std::string at = path_;
  if (!key.empty())
    at += (at.empty() || key.front() == '[' ? "" : ".") + std::string(key);
  return at.empty() ? origin_.file : origin_.file + ": " + at;
}

Status JsonReader::missing(std::string_view key) const {
  return invalidArgument(
      where(key) + ": missing" +
      (origin_.remedy.empty() ? "" : " (" + origin_.remedy + ")"));
}

Status JsonReader::wrong(std::string_view key, std::string_view expected,
                         const OrderedJson &found) const {
  return invalidArgument(where(key) + ": expected " + std::string(expected) +
                         ", found " + typeName(found));
}

Status JsonReader::check(const std::function<std::string()> &why) const {
  std::string problem = why();
  return problem.empty() ? okStatus() : invalidArgument(where(problem));
}

} // namespace kb::workbench

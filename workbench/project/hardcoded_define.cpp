//===- workbench/project/hardcoded_define.cpp - #defines tune cannot set --===//
#include "workbench/project/hardcoded_define.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <vector>

namespace kb::workbench {

namespace {

/// The directive of |line| ("define", "ifndef", ...) and the rest, or an
/// empty directive when the line is none. `//` comments are cut.
std::pair<std::string, std::string> directive(std::string line) {
  if (size_t comment = line.find("//"); comment != std::string::npos)
    line.resize(comment);
  static const std::regex re(R"(^\s*#\s*([a-z]+)\s*(.*?)\s*$)");
  std::smatch m;
  if (!std::regex_match(line, m, re))
    return {};
  return {m[1].str(), m[2].str()};
}

/// The name a conditional guards against being defined already: X of
/// `#ifndef X` or `#if !defined(X)` / `#if !defined X`; "" for any other.
std::string guardedName(const std::string &kind, const std::string &rest) {
  if (kind == "ifndef")
    return rest.substr(0, rest.find_first_of(" \t"));
  static const std::regex notDefined(
      R"(^!\s*defined\s*\(?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)?$)");
  std::smatch m;
  if (kind == "if" && std::regex_match(rest, m, notDefined))
    return m[1].str();
  return "";
}

} // namespace

std::optional<size_t> unguardedDefineLine(const std::string &text,
                                          const std::string &name) {
  std::vector<std::string> open; // the guard of each open conditional
  std::istringstream in(text);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    auto [kind, rest] = directive(line);
    if (kind == "if" || kind == "ifdef" || kind == "ifndef") {
      open.push_back(guardedName(kind, rest));
    } else if (kind == "else" || kind == "elif") {
      if (!open.empty())
        open.back() = ""; // the other branch is not guarded
    } else if (kind == "endif") {
      if (!open.empty())
        open.pop_back();
    } else if (kind == "define") {
      std::string defined = rest.substr(0, rest.find_first_of(" \t("));
      if (defined == name &&
          std::find(open.begin(), open.end(), name) == open.end())
        return number;
    }
  }
  return std::nullopt;
}

} // namespace kb::workbench

//===- workbench/project/hardcoded_define.cpp - #defines tune cannot set --===//
#include "workbench/project/hardcoded_define.h"

#include <algorithm>
#include <regex>
#include <utility>
#include <vector>

namespace kb::workbench {

namespace {

/// A logical line of the source: backslash continuations joined, comments
/// removed, with the number of the physical line it starts on.
struct Line {
  size_t number = 0;
  std::string text;
};

/// |text| as logical lines: block comments become a space (spanning lines
/// or not), `//` comments are cut, `\`-newline joins lines.
std::vector<Line> logicalLines(const std::string &text) {
  std::vector<Line> lines(1, Line{1, ""});
  size_t physical = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
      physical += std::count(text.begin() + i, text.begin() + end, '\n');
      lines.back().text += ' ';
      i = end - 1;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++physical, ++i;
    } else if (c == '\n') {
      lines.push_back(Line{++physical, ""});
    } else {
      lines.back().text += c;
    }
  }
  return lines;
}

/// The directive of |line| ("define", "ifndef", ...) and the rest, or an
/// empty directive when the line is none.
std::pair<std::string, std::string> directive(const std::string &line) {
  static const std::regex re(R"(^\s*#\s*([a-z]+)\s*(.*?)\s*$)");
  std::smatch m;
  if (!std::regex_match(line, m, re))
    return {};
  return {m[1].str(), m[2].str()};
}

/// What a conditional keeps a #define below it from: the X of `#ifndef X`,
/// of `#if !defined(X)` (also with more conditions after it); "*" for
/// `#if 0` (nothing below it is compiled); "" for any other.
std::string guardedName(const std::string &kind, const std::string &rest) {
  if (kind == "ifndef")
    return rest.substr(0, rest.find_first_of(" \t"));
  if (kind != "if" && kind != "elif")
    return "";
  static const std::regex zero(R"(^0\s*$)");
  if (std::regex_match(rest, zero))
    return "*";
  static const std::regex notDefined(
      R"(^!\s*defined\s*\(?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)?)");
  std::smatch m;
  if (std::regex_search(rest, m, notDefined))
    return m[1].str();
  return "";
}

} // namespace

std::optional<size_t> unguardedDefineLine(const std::string &text,
                                          const std::string &name) {
  std::vector<std::string> open; // the guard of each open conditional
  for (const Line &line : logicalLines(text)) {
    auto [kind, rest] = directive(line.text);
    if (kind == "if" || kind == "ifdef" || kind == "ifndef") {
      open.push_back(guardedName(kind, rest));
    } else if (kind == "else" || kind == "elif") {
      // The other branch is guarded only by its own condition.
      if (!open.empty())
        open.back() = guardedName(kind, rest);
    } else if (kind == "endif") {
      if (!open.empty())
        open.pop_back();
    } else if (kind == "define") {
      std::string defined = rest.substr(0, rest.find_first_of(" \t("));
      bool guarded = std::any_of(open.begin(), open.end(), [&](auto &g) {
        return g == name || g == "*";
      });
      if (defined == name && !guarded)
        return line.number;
    }
  }
  return std::nullopt;
}

} // namespace kb::workbench

//===- common/mlir_nesting.cpp - Bound MLIR's nesting before parsing ------===//
#include "common/mlir_nesting.h"

namespace kb {

std::optional<NestingExcess> findExcessNesting(std::string_view text,
                                               size_t limit) {
  if (text.substr(0, 4) == std::string_view("ML\xefR", 4))
    return std::nullopt; // bytecode
  size_t depth = 0, line = 1, lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') {
      // A string literal; `\"` does not end it.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit)
        return NestingExcess{line, i - lineStart + 1, limit};
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      // More closers than openers is the parser's error to report.
      if (depth > 0)
        --depth;
    }
  }
  return std::nullopt;
}

std::string describeExcessNesting(const std::string &file,
                                  const NestingExcess &excess) {
  return file + ":" + std::to_string(excess.line) + ":" +
         std::to_string(excess.column) + ": nesting deeper than " +
         std::to_string(excess.limit) +
         " levels of ( [ { <: the MLIR parser recurses once per level and "
         "would overflow its stack; flatten the attribute, type or region";
}

} // namespace kb

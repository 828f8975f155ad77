//===- workbench/cli/completion_script.cpp - Shared by the shells ---------===//
//
// Text helpers the three generators share. Names, flags and choices come
// from our own CLI definition and are plain words; help texts are prose
// with quotes, brackets and colons, so they are always quoted.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/completion_script.h"

#include <algorithm>
#include <cctype>

namespace kb::workbench {

std::string shortHelp(const std::string &help) {
  // A stop too near the start would leave a label, not a description
  // ("slower: exit 1 on a regression; ..." is not "slower").
  constexpr size_t kMinimum = 12;
  size_t end = help.size();
  for (const char *stop : {"; ", " (", ": ", ". ", "\n"})
    end = std::min(end, help.find(stop, kMinimum));
  std::string text = help.substr(0, end);
  while (!text.empty() && (text.back() == '.' || text.back() == ' '))
    text.pop_back();
  return text;
}

std::string shellIdentifier(const std::string &name) {
  std::string identifier = name;
  for (char &c : identifier)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  return identifier;
}

std::string singleQuoted(const std::string &text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

} // namespace kb::workbench

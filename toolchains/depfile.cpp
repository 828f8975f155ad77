//===- toolchains/depfile.cpp - Make-syntax dependency files -------------===//

#include "toolchains/depfile.h"

#include <set>

namespace kb::toolchains {

StatusOr<std::vector<DepfileRule>> parseDepfile(std::string_view text,
                                                std::string_view name) {
  std::vector<DepfileRule> rules;
  DepfileRule rule;
  bool afterColon = false;
  bool ruleStarted = false;
  int line = 1;
  int ruleLine = 1;
  std::string word;
  bool wordStarted = false;

  auto endWord = [&] {
    if (!wordStarted)
      return;
    (afterColon ? rule.dependencies : rule.targets).push_back(word);
    word.clear();
    wordStarted = false;
  };
  auto endRule = [&]() -> Status {
    endWord();
    if (ruleStarted) {
      if (!afterColon)
        return invalidArgument(
            std::string(name) + ":" + std::to_string(ruleLine) +
            ": expected `target: dependencies`, found no `:` after `" +
            (rule.targets.empty() ? std::string() : rule.targets.back()) + "`");
      rules.push_back(std::move(rule));
    }
    rule = DepfileRule();
    afterColon = false;
    ruleStarted = false;
    return okStatus();
  };

  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '\\' && (next == '\n' || (next == '\r' && i + 2 < text.size() &&
                                       text[i + 2] == '\n'))) {
      // Line continuation: acts as whitespace.
      endWord();
      i += next == '\r' ? 2 : 1;
      ++line;
      continue;
    }
    if (c == '\n' || (c == '\r' && next == '\n')) {
      KB_RETURN_IF_ERROR(endRule());
      if (c == '\r')
        ++i;
      ++line;
      continue;
    }
    if (c == ' ' || c == '\t') {
      endWord();
      continue;
    }
    if (!ruleStarted) {
      ruleStarted = true;
      ruleLine = line;
    }
    if (c == '\\' && (next == ' ' || next == '#' || next == '\\')) {
      word += next;
      wordStarted = true;
      ++i;
      continue;
    }
    if (c == '$' && next == '$') {
      word += '$';
      wordStarted = true;
      ++i;
      continue;
    }
    // The target list ends at a colon followed by whitespace or the end of
    // the line (a colon inside a name, e.g. C:\..., is rare on our hosts
    // but would be followed by a non-space).
    if (c == ':' && !afterColon &&
        (next == ' ' || next == '\t' || next == '\n' || next == '\r' ||
         next == '\\' || next == '\0')) {
      endWord();
      afterColon = true;
      continue;
    }
    word += c;
    wordStarted = true;
  }
  KB_RETURN_IF_ERROR(endRule());
  return rules;
}

std::vector<std::string>
allDependencies(const std::vector<DepfileRule> &rules) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const DepfileRule &rule : rules)
    for (const std::string &dep : rule.dependencies)
      if (seen.insert(dep).second)
        out.push_back(dep);
  return out;
}

} // namespace kb::toolchains

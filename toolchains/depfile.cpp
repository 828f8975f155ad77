//===- toolchains/depfile.cpp - Make-syntax dependency files -------------===//

#include "toolchains/depfile.h"

#include <set>

namespace kb::toolchains {

namespace {

// Make's rule syntax, character by character: words separated by blanks, a
// rule per logical line (a backslash-newline continues it), targets before
// the first `:` that ends a word, dependencies after it.
class DepfileParser {
public:
  explicit DepfileParser(std::string_view name) : name_(name) {}

  StatusOr<std::vector<DepfileRule>> parse(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      char next = i + 1 < text.size() ? text[i + 1] : '\0';
      if (size_t skip = continuationLength(text, i)) {
        // Line continuation: acts as whitespace.
        endWord();
        i += skip - 1;
        ++line_;
        continue;
      }
      if (c == '\n' || (c == '\r' && next == '\n')) {
        KB_RETURN_IF_ERROR(endRule());
        if (c == '\r')
          ++i;
        ++line_;
        continue;
      }
      if (c == ' ' || c == '\t') {
        endWord();
        continue;
      }
      i += wordCharacter(c, next);
    }
    KB_RETURN_IF_ERROR(endRule());
    return std::move(rules_);
  }

private:
  // The length of the backslash-newline (or backslash-CRLF) at |i|, 0 when
  // there is none.
  static size_t continuationLength(std::string_view text, size_t i) {
    if (text[i] != '\\' || i + 1 >= text.size())
      return 0;
    if (text[i + 1] == '\n')
      return 2;
    if (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n')
      return 3;
    return 0;
  }

  // Takes |c| (not a blank or line end) into the current word or ends the
  // target list; returns how many characters after |c| it consumed.
  size_t wordCharacter(char c, char next) {
    if (!ruleStarted_) {
      ruleStarted_ = true;
      ruleLine_ = line_;
    }
    if (c == '\\' && (next == ' ' || next == '#' || next == '\\')) {
      appendToWord(next);
      return 1;
    }
    if (c == '$' && next == '$') {
      appendToWord('$');
      return 1;
    }
    // The target list ends at a colon followed by whitespace or the end of
    // the line (a colon inside a name, e.g. C:\..., is rare on our hosts
    // but would be followed by a non-space).
    if (c == ':' && !afterColon_ &&
        (next == ' ' || next == '\t' || next == '\n' || next == '\r' ||
         next == '\\' || next == '\0')) {
      endWord();
      afterColon_ = true;
      return 0;
    }
    appendToWord(c);
    return 0;
  }

  void appendToWord(char c) {
    word_ += c;
    wordStarted_ = true;
  }

  void endWord() {
    if (!wordStarted_)
      return;
    (afterColon_ ? rule_.dependencies : rule_.targets).push_back(word_);
    word_.clear();
    wordStarted_ = false;
  }

  Status endRule() {
    endWord();
    if (ruleStarted_) {
      if (!afterColon_)
        return invalidArgument(
            std::string(name_) + ":" + std::to_string(ruleLine_) +
            ": expected `target: dependencies`, found no `:` after `" +
            (rule_.targets.empty() ? std::string() : rule_.targets.back()) +
            "`");
      rules_.push_back(std::move(rule_));
    }
    rule_ = DepfileRule();
    afterColon_ = false;
    ruleStarted_ = false;
    return okStatus();
  }

  std::string_view name_;
  std::vector<DepfileRule> rules_;
  DepfileRule rule_;
  bool afterColon_ = false;
  bool ruleStarted_ = false;
  int line_ = 1;
  int ruleLine_ = 1;
  std::string word_;
  bool wordStarted_ = false;
};

} // namespace

StatusOr<std::vector<DepfileRule>> parseDepfile(std::string_view text,
                                                std::string_view name) {
  return DepfileParser(name).parse(text);
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

//===- workbench/project/declared_expression.cpp - Arithmetic over named --===//
#include "workbench/project/declared_expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace kb::workbench {

namespace {

/// Recursive descent over
///   condition := conjunction ('||' conjunction)*     (conditions only)
///   conjunction := comparison ('&&' comparison)*
///   comparison := sum (('<=' | '>=' | '==' | '!=' | '<' | '>') sum)?
///   sum := product (('+' | '-') product)*
///   product := unary (('*' | '/' | '%') unary)*       ('%' conditions only)
///   unary := '-' unary | '!' unary (conditions only) | atom
///   atom := number | name | '(' condition ')'
/// A comparison is 1 when true, 0 when false; `%` is the remainder of the
/// integer parts (the operands of a tuning constraint are integers).
class Parser {
public:
  Parser(const std::string &text, const std::map<std::string, double> &names,
         bool conditions, std::string *unknownName)
      : text_(text), names_(names), conditions_(conditions),
        unknownName_(unknownName) {}

  StatusOr<double> parse() {
    KB_ASSIGN_OR_RETURN(double value, top());
    skipSpace();
    if (pos_ < text_.size())
      return fail(std::string("unexpected `") + text_[pos_] +
                  (conditions_ ? "`: expected an operator (+ - * / % < <= == "
                                 "!= >= > && ||) or the end"
                               : "`: expected an operator (+ - * /) or the "
                                 "end"));
    if (!std::isfinite(value))
      return invalidArgument("`" + text_ +
                             "` does not evaluate to a finite number");
    return value;
  }

private:
  Status fail(const std::string &message) const {
    std::string shown = text_.size() > 80 ? text_.substr(0, 80) + "..." : text_;
    return invalidArgument("`" + shown + "` column " +
                           std::to_string(pos_ + 1) + ": " + message);
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  StatusOr<double> top() { return conditions_ ? disjunction() : sum(); }

  bool acceptText(const char *token) {
    skipSpace();
    size_t n = std::char_traits<char>::length(token);
    if (text_.compare(pos_, n, token) != 0)
      return false;
    pos_ += n;
    return true;
  }

  StatusOr<double> disjunction() {
    KB_ASSIGN_OR_RETURN(double value, conjunction());
    while (acceptText("||")) {
      KB_ASSIGN_OR_RETURN(double rhs, conjunction());
      value = (value != 0 || rhs != 0) ? 1 : 0;
    }
    return value;
  }

  StatusOr<double> conjunction() {
    KB_ASSIGN_OR_RETURN(double value, comparison());
    while (acceptText("&&")) {
      KB_ASSIGN_OR_RETURN(double rhs, comparison());
      value = (value != 0 && rhs != 0) ? 1 : 0;
    }
    return value;
  }

  StatusOr<double> comparison() {
    KB_ASSIGN_OR_RETURN(double lhs, sum());
    // Two-character operators first: `<=` is not `<` then `=`.
    static const char *const kOps[] = {"<=", ">=", "==", "!=", "<", ">"};
    for (const char *op : kOps) {
      if (!acceptText(op))
        continue;
      KB_ASSIGN_OR_RETURN(double rhs, sum());
      std::string o(op);
      bool result = o == "<="   ? lhs <= rhs
                    : o == ">=" ? lhs >= rhs
                    : o == "==" ? lhs == rhs
                    : o == "!=" ? lhs != rhs
                    : o == "<"  ? lhs < rhs
                                : lhs > rhs;
      return result ? 1.0 : 0.0;
    }
    return lhs;
  }

  StatusOr<double> sum() {
    KB_ASSIGN_OR_RETURN(double value, product());
    while (true) {
      if (accept('+')) {
        KB_ASSIGN_OR_RETURN(double rhs, product());
        value += rhs;
      } else if (accept('-')) {
        KB_ASSIGN_OR_RETURN(double rhs, product());
        value -= rhs;
      } else {
        return value;
      }
    }
  }

  StatusOr<double> product() {
    KB_ASSIGN_OR_RETURN(double value, unary());
    while (true) {
      if (accept('*')) {
        KB_ASSIGN_OR_RETURN(double rhs, unary());
        value *= rhs;
      } else if (accept('/')) {
        size_t at = pos_;
        KB_ASSIGN_OR_RETURN(double rhs, unary());
        if (rhs == 0) {
          pos_ = at;
          return fail("division by zero");
        }
        value /= rhs;
      } else if (conditions_ && accept('%')) {
        size_t at = pos_;
        KB_ASSIGN_OR_RETURN(double rhs, unary());
        if (std::trunc(rhs) == 0) {
          pos_ = at;
          return fail("remainder of a division by zero");
        }
        value = std::fmod(std::trunc(value), std::trunc(rhs));
      } else {
        return value;
      }
    }
  }

  /// Nesting (parentheses, unary minus) is bounded: the recursion must not
  /// overflow the stack on a hostile file.
  StatusOr<double> unary() {
    if (++depth_ > kMaxDepth)
      return fail("nested more than " + std::to_string(kMaxDepth) +
                  " levels deep");
    StatusOr<double> value = accept('-')                  ? negated()
                             : conditions_ && acceptNot() ? inverted()
                                                          : atom();
    --depth_;
    return value;
  }

  /// `!` but not `!=` (which only follows an operand).
  bool acceptNot() {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '!' &&
        text_.compare(pos_, 2, "!=") != 0) {
      ++pos_;
      return true;
    }
    return false;
  }

  StatusOr<double> inverted() {
    KB_ASSIGN_OR_RETURN(double value, unary());
    return value == 0 ? 1.0 : 0.0;
  }

  StatusOr<double> negated() {
    KB_ASSIGN_OR_RETURN(double value, unary());
    return -value;
  }

  StatusOr<double> atom() {
    skipSpace();
    if (pos_ >= text_.size())
      return fail("expected a number, a name or `(`, found the end");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      KB_ASSIGN_OR_RETURN(double value, top());
      if (!accept(')'))
        return fail("expected `)`");
      return value;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.')
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
      return name();
    return fail(std::string("unexpected `") + c +
                "`: expected a number, a name or `(`");
  }

  StatusOr<double> number() {
    const char *begin = text_.c_str() + pos_;
    char *end = nullptr;
    double value = std::strtod(begin, &end);
    if (end == begin)
      return fail("not a number");
    pos_ += static_cast<size_t>(end - begin);
    return value;
  }

  StatusOr<double> name() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_'))
      ++pos_;
    std::string word = text_.substr(start, pos_ - start);
    auto it = names_.find(word);
    if (it != names_.end())
      return it->second;
    std::string known;
    for (const auto &[n, value] : names_)
      known += (known.empty() ? "" : ", ") + n;
    pos_ = start;
    if (unknownName_)
      *unknownName_ = word;
    return fail("unknown name `" + word +
                "`; known names: " + (known.empty() ? "none" : known));
  }

  static constexpr int kMaxDepth = 64;
  const std::string &text_;
  const std::map<std::string, double> &names_;
  const bool conditions_;
  std::string *const unknownName_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

StatusOr<double> evaluateExpression(const std::string &text,
                                    const std::map<std::string, double> &names,
                                    std::string *unknownName) {
  return Parser(text, names, /*conditions=*/false, unknownName).parse();
}

StatusOr<bool> evaluateCondition(const std::string &text,
                                 const std::map<std::string, double> &names) {
  KB_ASSIGN_OR_RETURN(double value, Parser(text, names, /*conditions=*/true,
                                           /*unknownName=*/nullptr)
                                        .parse());
  return value != 0;
}

} // namespace kb::workbench

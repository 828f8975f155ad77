//===- workbench/declared_expression.cpp - Arithmetic over named values ---===//
#include "workbench/declared_expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace kb::workbench {

namespace {

/// Recursive descent over
///   sum := product (('+' | '-') product)*
///   product := unary (('*' | '/') unary)*
///   unary := '-' unary | atom
///   atom := number | name | '(' sum ')'
class Parser {
public:
  Parser(const std::string &text, const std::map<std::string, double> &names)
      : text_(text), names_(names) {}

  StatusOr<double> parse() {
    KB_ASSIGN_OR_RETURN(double value, sum());
    skipSpace();
    if (pos_ < text_.size())
      return fail(std::string("unexpected `") + text_[pos_] +
                  "`: expected an operator (+ - * /) or the end");
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
    StatusOr<double> value = accept('-') ? negated() : atom();
    --depth_;
    return value;
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
      KB_ASSIGN_OR_RETURN(double value, sum());
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
    return fail("unknown name `" + word + "`; known names: " +
                (known.empty() ? "none (declare [bench] constants)" : known));
  }

  static constexpr int kMaxDepth = 64;
  const std::string &text_;
  const std::map<std::string, double> &names_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

StatusOr<double>
evaluateExpression(const std::string &text,
                   const std::map<std::string, double> &names) {
  return Parser(text, names).parse();
}

} // namespace kb::workbench

//===- workbench/project/declared_expression.h - Arithmetic over named ----===//
//
// The expressions a kernel.toml declares its FLOPs, bytes moved and
// reduction length with (`flops = "2*M*N*K"`): numbers, names, + - * /,
// unary minus and parentheses, evaluated in double precision against the
// kernel's named values ([bench] constants, integer `defines`, the workload).
// Tuning constraints (`TILE_M * TILE_N <= 1024`) use the same parser with
// comparisons and `%` (evaluateCondition). An error says where in the text
// (column), what was expected and, for an unknown name, every name that is
// known; the caller adds file:line.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_DECLARED_EXPRESSION_H_
#define KB_WORKBENCH_PROJECT_DECLARED_EXPRESSION_H_

#include "common/status.h"

#include <map>
#include <string>

namespace kb::workbench {

/// Evaluates |text|. InvalidArgument for a syntax error, an unknown name, a
/// division by zero or a result that is not finite; for an unknown name,
/// |unknownName| (when given) receives it, so that a caller can say why that
/// name has no value without reading the message.
StatusOr<double> evaluateExpression(const std::string &text,
                                    const std::map<std::string, double> &names,
                                    std::string *unknownName = nullptr);

/// Evaluates a condition (a `[tune] constraints` entry): the arithmetic of
/// evaluateExpression plus `%` (integer remainder), comparisons (`<` `<=`
/// `==` `!=` `>=` `>`), `&&`, `||` and `!`; true when not zero. Errors as
/// evaluateExpression's.
StatusOr<bool> evaluateCondition(const std::string &text,
                                 const std::map<std::string, double> &names);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_DECLARED_EXPRESSION_H_

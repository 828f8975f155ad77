//===- common/mlir_nesting.h - Bound MLIR's nesting before it is parsed ---===//
//
// MLIR's parser recurses once per nesting level of attributes, types and
// regions, on the caller's stack: 10,000 nested `[` (20 KB of text) end the
// process with SIGSEGV and no message. Every place that parses MLIR text we
// were given (the program, a reference, a substituted source, kb-opt's
// input) scans it first and refuses past kMaxMlirNesting, with the line and
// column; real programs nest a few dozen levels. Bytecode (.mlirbc) is not
// text and is not scanned.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_MLIR_NESTING_H_
#define KB_COMMON_MLIR_NESTING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kb {

/// The deepest bracket nesting accepted; a few MB of stack at most, on any
/// thread the parser runs on.
inline constexpr size_t kMaxMlirNesting = 1000;

struct NestingExcess {
  size_t line = 0, column = 0; // 1-based, of the bracket past the limit
  size_t limit = 0;
};

/// Where |text| (MLIR assembly) first nests `( [ { <` deeper than |limit|,
/// outside string literals and `//` comments (`->` closes nothing); nullopt
/// when it never does or when |text| is MLIR bytecode.
std::optional<NestingExcess> findExcessNesting(std::string_view text,
                                               size_t limit = kMaxMlirNesting);

/// "FILE:LINE:COL: nesting deeper than LIMIT levels ...": the message every
/// caller prints for |excess| in |file|.
std::string describeExcessNesting(const std::string &file,
                                  const NestingExcess &excess);

} // namespace kb

#endif // KB_COMMON_MLIR_NESTING_H_

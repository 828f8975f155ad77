//===- workbench/support/spelling.h - "did you mean" suggestions ----------===//
//
// One implementation of typo suggestions for the CLI edge: unknown TOML keys,
// unknown tool names, unknown kernel names.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_SPELLING_H_
#define KB_WORKBENCH_SUPPORT_SPELLING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::workbench {

/// Levenshtein distance (insert, delete, substitute: cost 1 each).
size_t editDistance(std::string_view a, std::string_view b);

/// The candidate nearest to |word| when it is close enough to be a plausible
/// typo (distance at most max(2, |word|/3)); ties go to the earlier
/// candidate.
std::optional<std::string>
nearestSpelling(std::string_view word,
                const std::vector<std::string> &candidates);

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_SPELLING_H_

//===- workbench/project/hardcoded_define.h - #defines tune cannot set ----===//
//
// `tune` sets a `[tune]` name with `-DNAME=VALUE`. A source that #defines
// NAME itself, unguarded, overrides it (nvcc warns "incompatible
// redefinition", glslang errors): the configuration built is not the one
// named, and a tune result would lie. Such a name is found when the
// kernel.toml is read, so that it is reported as not tunable before
// anything is built.
//
// The scan is of the source's own lines (not its headers): a #define of
// NAME counts unless it sits inside `#ifndef NAME` or `#if !defined(NAME)`,
// the usual way a source leaves a default that a -D can replace.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_HARDCODED_DEFINE_H_
#define KB_WORKBENCH_PROJECT_HARDCODED_DEFINE_H_

#include <cstddef>
#include <optional>
#include <string>

namespace kb::workbench {

/// The 1-based line of |text| that #defines |name| outside a guard on
/// |name|, or nullopt.
std::optional<size_t> unguardedDefineLine(const std::string &text,
                                          const std::string &name);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_HARDCODED_DEFINE_H_

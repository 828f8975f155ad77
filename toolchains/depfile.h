//===- toolchains/depfile.h - Make-syntax dependency files ---------------===//
//
// nvcc -MD and glslc -MD write Make rules naming every file a compile read.
// The build cache hashes those files to decide whether an entry is still
// valid. Forms accepted:
//
//   k.ptx : k.cu \                 nvcc: space before the colon, one dep per
//       /usr/include/stdc-predef.h \      line, backslash continuations
//       k.h
//   out/add.spv: add.comp inc.glsl  glslc: everything on one line
//   k.h:                            -MP phony rules (no dependencies)
//
// plus GNU make escapes: `\ ` (space in a name), `\#`, `$$`; several targets
// before one colon; several rules in one file.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_DEPFILE_H_
#define KB_TOOLCHAINS_DEPFILE_H_

#include "common/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace kb::toolchains {

struct DepfileRule {
  std::vector<std::string> targets;
  std::vector<std::string> dependencies;
};

/// Parses |text|. InvalidArgument (naming |name| and the line) when a rule
/// has no `:` separator.
StatusOr<std::vector<DepfileRule>>
parseDepfile(std::string_view text, std::string_view name = "depfile");

/// Every dependency of every rule, first occurrence order, without
/// duplicates.
std::vector<std::string> allDependencies(const std::vector<DepfileRule> &rules);

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_DEPFILE_H_

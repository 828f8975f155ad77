//===- common/tool_search.h - Where an external tool is found -------------===//
//
// The one search rule for external tools, used by toolchains/ (kernel builds),
// the compiler's cubin step (ptxas) and test-time kernel compilation:
//
//   CUDA tools (nvcc, ptxas, nvdisasm, cuobjdump, compute-sanitizer):
//   $CUDA_PATH/bin, then
//   /usr/local/cuda/bin;
//   then every tool: each directory of PATH, in order.
//
// Tools are found at run time, never at build time, so one binary works on
// hosts with different toolkits. Explicit overrides (workbench.toml's
// [toolchains]) are the caller's: they must never be silently replaced.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_TOOL_SEARCH_H_
#define KB_COMMON_TOOL_SEARCH_H_

#include "common/status.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// The environment searched; nullopt = this process's $CUDA_PATH / $PATH.
struct ToolSearchPath {
  std::optional<std::string> cudaPath;
  std::optional<std::string> path;
};

/// nvcc, ptxas, nvdisasm, cuobjdump and compute-sanitizer come from the
/// CUDA toolkit and are looked for there first.
bool isCudaTool(std::string_view executable);

/// A regular file the current user may execute.
bool isExecutableFile(const std::filesystem::path &path);

/// The directories searched for |executable|, in order: what a build that
/// found its tools must watch to notice that another would be found now.
std::vector<std::filesystem::path>
toolSearchDirectories(std::string_view executable,
                      const ToolSearchPath &where = {});

/// The absolute, normal path of |executable| by the rule above. Unavailable
/// when it is nowhere, with every place looked in and |installHint|.
StatusOr<std::filesystem::path> searchTool(std::string_view executable,
                                           const ToolSearchPath &where = {},
                                           std::string_view installHint = {});

} // namespace kb

#endif // KB_COMMON_TOOL_SEARCH_H_

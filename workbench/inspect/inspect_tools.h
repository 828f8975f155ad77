//===- workbench/inspect/inspect_tools.h - Tools inspect runs, if present -===//
//
// Everything `inspect` reads from the code itself needs no tool: the PTX and
// SPIR-V mixes are counted in process. What a tool adds is optional, found
// once per command by the one search rule (common/tool_search.h) and run
// with argv only: ptxas (registers, spills, shared memory, hence
// occupancy), nvdisasm or cuobjdump (SASS), spirv-dis (a SPIR-V listing)
// and diff (the candidate's code against the reference's). A tool that is
// missing leaves its part out with a note saying which tool and where it
// comes from.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_TOOLS_H_
#define KB_WORKBENCH_INSPECT_INSPECT_TOOLS_H_

#include "common/status.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

struct InspectTools {
  std::optional<std::filesystem::path> ptxas, nvdisasm, cuobjdump, spirvDis,
      diff;
};

/// Looks each tool up where `build` would.
InspectTools findInspectTools();

/// The output of one tool run: stdout, or an error naming the tool, how it
/// ended and the start of what it printed. |files| are written to a private
/// directory first, as (name, bytes), and |argv| names them relatively;
/// |wantExit| lists the exit codes that count as success (diff exits 1 when
/// the files differ); |outputFile|, when not empty, is a file the tool
/// writes there, read back into |file|.
struct ToolOutput {
  std::string stdoutText;
  std::string stderrText;
  std::string file;
};
StatusOr<ToolOutput>
runInspectTool(const std::vector<std::string> &argv,
               const std::vector<std::pair<std::string, std::string>> &files,
               std::vector<int> wantExit = {0},
               const std::string &outputFile = {});

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_TOOLS_H_

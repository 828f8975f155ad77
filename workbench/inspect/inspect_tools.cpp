//===- workbench/inspect/inspect_tools.cpp - Tools inspect runs, if present
//===//
#include "workbench/inspect/inspect_tools.h"

#include "common/file_util.h"
#include "common/process.h"
#include "common/tool_search.h"

#include <algorithm>
#include <chrono>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> lookUp(const char *tool) {
  StatusOr<fs::path> found = searchTool(tool);
  return found.ok() ? std::optional<fs::path>(*found) : std::nullopt;
}

/// The first lines of a tool's complaint, for a one-line message.
std::string firstLines(const std::string &text) {
  size_t cut = 0;
  for (int lines = 0; lines < 3 && cut != std::string::npos; ++lines)
    cut = text.find('\n', cut == 0 ? 0 : cut + 1);
  return text.substr(0, cut);
}

} // namespace

InspectTools findInspectTools() {
  return {lookUp("ptxas"), lookUp("nvdisasm"), lookUp("cuobjdump"),
          lookUp("spirv-dis"), lookUp("diff")};
}

StatusOr<ToolOutput>
runInspectTool(const std::vector<std::string> &argv,
               const std::vector<std::pair<std::string, std::string>> &files,
               std::vector<int> wantExit, const std::string &outputFile) {
  KB_ASSIGN_OR_RETURN(
      TempDir dir, TempDir::create(fs::temp_directory_path(), "kb-inspect-"));
  for (const auto &[name, bytes] : files)
    KB_RETURN_IF_ERROR(writeFileAtomic(dir.path() / name, bytes));
  ProcessOptions options;
  options.argv = argv;
  options.workingDirectory = dir.path();
  options.timeout = std::chrono::seconds(120);
  KB_ASSIGN_OR_RETURN(ProcessResult result, runProcess(options));
  bool wanted = result.signal == 0 && !result.timedOut &&
                std::find(wantExit.begin(), wantExit.end(), result.exitCode) !=
                    wantExit.end();
  if (!wanted)
    return internalError(fs::path(argv[0]).filename().string() + " " +
                         result.describe() + ": " +
                         firstLines(result.stderrText));
  ToolOutput out{
      std::move(result.stdoutText), std::move(result.stderrText), {}};
  if (!outputFile.empty()) {
    KB_ASSIGN_OR_RETURN(out.file, readFile(dir.path() / outputFile));
  }
  return out;
}

} // namespace kb::workbench

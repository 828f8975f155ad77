//===- Ptxas.cpp - Find and run ptxas to turn generated PTX into a cubin --===//
//
// ptxas is found and run as every other tool of the project is
// (common/tool_search.h, common/process.h): argv only, its own process
// group, a time limit, stdout and stderr captured for the message.
//
//===----------------------------------------------------------------------===//
#include "kb/Codegen/Codegen.h"

#include "common/file_util.h"
#include "common/process.h"
#include "common/tool_search.h"

#include <chrono>
#include <filesystem>

using namespace mlir;

std::optional<std::string> mlir::kb::findPtxas(StringRef explicitPath) {
  if (!explicitPath.empty()) {
    if (::kb::isExecutableFile(explicitPath.str()))
      return explicitPath.str();
    return std::nullopt;
  }
  ::kb::StatusOr<std::filesystem::path> found = ::kb::searchTool("ptxas");
  if (!found.ok())
    return std::nullopt;
  return found->string();
}

LogicalResult mlir::kb::runPtxas(StringRef ptxas, StringRef ptx, StringRef arch,
                                 std::string &cubin, std::string &error) {
  namespace fs = std::filesystem;
  // The non-throwing overload: compiler/ is built without exceptions.
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  auto dir = ::kb::TempDir::create(ec ? fs::path("/tmp") : base, "kb-codegen-");
  if (!dir.ok()) {
    error = "cannot create a temporary directory for ptxas: " +
            dir.status().message();
    return failure();
  }
  fs::path input = dir->path() / "kernel.ptx";
  fs::path output = dir->path() / "kernel.cubin";
  if (::kb::Status written = ::kb::writeFileAtomic(input, ptx.str());
      !written.ok()) {
    error = written.message();
    return failure();
  }
  ::kb::ProcessOptions options;
  options.argv = {ptxas.str(), ("-arch=" + arch.str()), "-o", output.string(),
                  input.string()};
  options.timeout = std::chrono::seconds(120);
  ::kb::StatusOr<::kb::ProcessResult> result = ::kb::runProcess(options);
  if (!result.ok()) {
    error = "could not run " + ptxas.str() + ": " + result.status().message();
    return failure();
  }
  if (!result->succeeded()) {
    error = ptxas.str() + " " + result->describe();
    std::string text =
        StringRef(result->stderrText + result->stdoutText).trim().str();
    if (!text.empty())
      error += ":\n" + text;
    return failure();
  }
  ::kb::StatusOr<std::string> bytes = ::kb::readFile(output);
  if (!bytes.ok()) {
    error = "ptxas wrote no cubin";
    return failure();
  }
  cubin = std::move(*bytes);
  return success();
}

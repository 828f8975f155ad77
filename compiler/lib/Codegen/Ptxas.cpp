//===- Ptxas.cpp - Find and run ptxas to turn generated PTX into a cubin --===//
//
// compiler/ must not link toolchains/ (docs/architecture.md), so this is a
// small subprocess call with LLVM's process utilities: temporary files, stderr
// captured for the message, a time limit.
//
//===----------------------------------------------------------------------===//
#include "kb/Codegen/Codegen.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

std::optional<std::string> kb::findPtxas(StringRef explicitPath) {
  if (!explicitPath.empty()) {
    if (llvm::sys::fs::can_execute(explicitPath))
      return explicitPath.str();
    return std::nullopt;
  }
  llvm::SmallVector<std::string, 2> dirs;
  if (const char *cudaPath = std::getenv("CUDA_PATH"))
    dirs.push_back((llvm::Twine(cudaPath) + "/bin").str());
  dirs.push_back("/usr/local/cuda/bin");
  llvm::SmallVector<StringRef, 2> refs(dirs.begin(), dirs.end());
  if (auto found = llvm::sys::findProgramByName("ptxas", refs))
    return *found;
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return std::nullopt;
}

namespace {
/// A temporary file removed on scope exit.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

LogicalResult kb::runPtxas(StringRef ptxas, StringRef ptx, StringRef arch,
                           std::string &cubin, std::string &error) {
  TempFile input, output, log;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("kb-codegen", "ptx", fd, input.path)) {
    error = "cannot create a temporary file for ptxas";
    return failure();
  }
  {
    llvm::raw_fd_ostream stream(fd, /*shouldClose=*/true);
    stream << ptx;
  }
  if (llvm::sys::fs::createTemporaryFile("kb-codegen", "cubin", output.path) ||
      llvm::sys::fs::createTemporaryFile("kb-codegen", "log", log.path)) {
    error = "cannot create a temporary file for ptxas";
    return failure();
  }
  std::string archFlag = ("-arch=" + arch).str();
  llvm::SmallVector<StringRef> args = {ptxas, archFlag, "-o", output.path,
                                       input.path};
  std::optional<StringRef> redirects[] = {std::nullopt, log.path, log.path};
  std::string execError;
  constexpr unsigned kTimeoutSeconds = 120;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     kTimeoutSeconds, 0, &execError);
  if (rc != 0) {
    auto text = llvm::MemoryBuffer::getFile(log.path);
    error = rc < 0 ? "could not run " + ptxas.str() + ": " + execError
                   : ptxas.str() + " exited with " + std::to_string(rc) +
                         (text ? ":\n" + (*text)->getBuffer().trim().str()
                               : std::string());
    return failure();
  }
  auto bytes = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!bytes) {
    error = "ptxas wrote no cubin";
    return failure();
  }
  cubin = (*bytes)->getBuffer().str();
  return success();
}

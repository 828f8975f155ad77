//===- common/tool_search.cpp - Where an external tool is found -----------===//

#include "common/tool_search.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace kb {

namespace fs = std::filesystem;

bool isCudaTool(std::string_view executable) {
  return executable == "nvcc" || executable == "ptxas" ||
         executable == "nvdisasm" || executable == "cuobjdump" ||
         executable == "compute-sanitizer";
}

bool isExecutableFile(const fs::path &path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::vector<fs::path> toolSearchDirectories(std::string_view executable,
                                            const ToolSearchPath &where) {
  std::vector<fs::path> dirs;
  if (isCudaTool(executable)) {
    std::string cudaPath;
    if (where.cudaPath)
      cudaPath = *where.cudaPath;
    else if (const char *env = std::getenv("CUDA_PATH"))
      cudaPath = env;
    if (!cudaPath.empty())
      dirs.push_back(fs::path(cudaPath) / "bin");
    dirs.push_back("/usr/local/cuda/bin");
  }
  std::string searchPath;
  if (where.path)
    searchPath = *where.path;
  else if (const char *env = std::getenv("PATH"))
    searchPath = env;
  std::istringstream entries(searchPath);
  std::string dir;
  while (std::getline(entries, dir, ':'))
    dirs.push_back(dir.empty() ? fs::path(".") : fs::path(dir));
  return dirs;
}

StatusOr<fs::path> searchTool(std::string_view executable,
                              const ToolSearchPath &where,
                              std::string_view installHint) {
  const std::string exe(executable);
  for (const fs::path &dir : toolSearchDirectories(exe, where))
    if (isExecutableFile(dir / exe))
      return fs::absolute(dir / exe).lexically_normal();
  // Where it looked, in the words of the rule: the variables and their
  // values, so a user sees an unset CUDA_PATH or a PATH without the toolkit.
  std::vector<std::string> lookedIn;
  if (isCudaTool(executable)) {
    const char *cudaPath =
        where.cudaPath ? where.cudaPath->c_str() : std::getenv("CUDA_PATH");
    lookedIn.push_back(cudaPath && *cudaPath
                           ? "CUDA_PATH/bin=" +
                                 (fs::path(cudaPath) / "bin").string()
                           : std::string("CUDA_PATH (unset)"));
    lookedIn.push_back("/usr/local/cuda/bin");
  }
  const char *path = where.path ? where.path->c_str() : std::getenv("PATH");
  lookedIn.push_back("PATH=" + std::string(path ? path : ""));
  std::string places;
  for (const std::string &entry : lookedIn)
    places += (places.empty() ? "" : "; ") + entry;
  std::string message = exe + " not found (looked in: " + places + ").";
  if (!installHint.empty())
    message += " " + std::string(installHint) + ".";
  return unavailable(message);
}

} // namespace kb

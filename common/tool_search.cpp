//===- common/tool_search.cpp - Where an external tool is found -----------===//

#include "common/tool_search.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace kb {

namespace fs = std::filesystem;

bool isCudaTool(std::string_view executable) {
  return executable == "nvcc" || executable == "ptxas";
}

bool isExecutableFile(const fs::path &path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

StatusOr<fs::path> searchTool(std::string_view executable,
                              const ToolSearchPath &where,
                              std::string_view installHint) {
  std::vector<fs::path> candidates;
  std::vector<std::string> lookedIn;
  std::string exe(executable);
  if (isCudaTool(executable)) {
    std::string cudaPath;
    if (where.cudaPath)
      cudaPath = *where.cudaPath;
    else if (const char *env = std::getenv("CUDA_PATH"))
      cudaPath = env;
    if (!cudaPath.empty()) {
      candidates.push_back(fs::path(cudaPath) / "bin" / exe);
      lookedIn.push_back("CUDA_PATH/bin=" +
                         (fs::path(cudaPath) / "bin").string());
    } else {
      lookedIn.push_back("CUDA_PATH (unset)");
    }
    candidates.push_back(fs::path("/usr/local/cuda/bin") / exe);
    lookedIn.push_back("/usr/local/cuda/bin");
  }
  std::string searchPath;
  if (where.path)
    searchPath = *where.path;
  else if (const char *env = std::getenv("PATH"))
    searchPath = env;
  lookedIn.push_back("PATH=" + searchPath);
  std::istringstream dirs(searchPath);
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    candidates.push_back(fs::path(dir.empty() ? "." : dir) / exe);
  for (const fs::path &candidate : candidates)
    if (isExecutableFile(candidate))
      return fs::absolute(candidate).lexically_normal();
  std::string places;
  for (const std::string &entry : lookedIn)
    places += (places.empty() ? "" : "; ") + entry;
  std::string message = exe + " not found (looked in: " + places + ").";
  if (!installHint.empty())
    message += " " + std::string(installHint) + ".";
  return unavailable(message);
}

} // namespace kb

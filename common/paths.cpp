//===- common/paths.cpp - How paths are made absolute and shown -----------===//
#include "common/paths.h"

namespace fs = std::filesystem;

namespace kb {

fs::path absoluteNormal(const fs::path &path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  return (ec ? path : abs).lexically_normal();
}

std::string displayPath(const fs::path &path) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec || path.is_relative())
    return path.string();
  fs::path rel = path.lexically_normal().lexically_relative(cwd);
  if (rel.empty() || *rel.begin() == "..")
    return path.lexically_normal().string();
  return rel.string();
}

std::string relativeTo(const fs::path &path, const fs::path &base) {
  fs::path rel = path.lexically_normal().lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..")
    return path.string();
  return rel.generic_string();
}

} // namespace kb

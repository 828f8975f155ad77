//===- common/paths.h - How paths are made absolute and shown -------------===//
//
// One set of path helpers for every layer, so that a path reads the same in
// a progress line, an error message and build.json.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_PATHS_H_
#define KB_COMMON_PATHS_H_

#include <filesystem>
#include <string>

namespace kb {

/// |path| made absolute against the current directory and lexically
/// normalized; as given (normalized) when the current directory is gone.
std::filesystem::path absoluteNormal(const std::filesystem::path &path);

/// |path| relative to the current directory when it lies below it, else as
/// given (normalized when absolute): every path shown to the user.
std::string displayPath(const std::filesystem::path &path);

/// |path| relative to |base| (generic separators) when it lies below it,
/// else as given: the paths build.json records under its output directory.
std::string relativeTo(const std::filesystem::path &path,
                       const std::filesystem::path &base);

} // namespace kb

#endif // KB_COMMON_PATHS_H_

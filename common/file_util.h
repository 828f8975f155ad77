//===- common/file_util.h - Whole-file reads and atomic writes ------------===//
//
// Everything the build publishes (outputs, cache entries, manifests) is
// written to a temporary name in the destination directory, fsync'ed and
// renamed into place: readers see the old file or the new one, never a
// half-written one, also across processes sharing a directory.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_FILE_UTIL_H_
#define KB_COMMON_FILE_UTIL_H_

#include "common/status.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace kb {

/// The whole file. NotFound when it does not exist or cannot be opened.
StatusOr<std::string> readFile(const std::filesystem::path &path);

/// Writes |bytes| to |path| atomically (temp in the same directory, fsync,
/// rename). Creates the parent directory.
Status writeFileAtomic(const std::filesystem::path &path,
                       std::string_view bytes);

/// Renames |from| to |to| (same filesystem) after fsync'ing |from|; creates
/// |to|'s parent directory.
Status publishFile(const std::filesystem::path &from,
                   const std::filesystem::path &to);

/// A fresh directory `<parent>/<prefix>XXXXXX`, removed with its contents on
/// destruction. Move-only.
class TempDir {
public:
  static StatusOr<TempDir> create(const std::filesystem::path &parent,
                                  std::string_view prefix);
  TempDir(TempDir &&other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TempDir &operator=(TempDir &&other) noexcept;
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir();

  const std::filesystem::path &path() const { return path_; }
  /// `path() / name` as a string.
  std::string file(std::string_view name) const {
    return (path_ / name).string();
  }

private:
  explicit TempDir(std::filesystem::path path) : path_(std::move(path)) {}
  void remove();
  std::filesystem::path path_;
};

} // namespace kb

#endif // KB_COMMON_FILE_UTIL_H_

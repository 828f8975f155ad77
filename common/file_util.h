//===- common/file_util.h - Whole-file reads and atomic writes ------------===//
//
// Every input file kernel-bench reads goes through one reader (InputFile,
// readFile): a path that names a FIFO or a device is refused before it is
// opened (opening a FIFO blocks until a writer comes; /dev/zero never ends),
// a directory is named as one, and each kind of input has a size cap
// (InputLimit, docs/cli.md "Input files"), checked before anything is read
// where the size is known and while reading where it is not (stdin, pipes).
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

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kb {

/// What a read is for and the most bytes it accepts. |what| names the kind in
/// messages ("bench report"); caps are documented in docs/cli.md.
struct InputLimit {
  const char *what;
  uint64_t maxBytes;
};

/// bench.json and the reports merged, compared and rendered.
inline constexpr InputLimit kBenchReportInput{"bench report", 1ull << 30};
/// build.json, the build's record that bench, abi and new-kernel read.
inline constexpr InputLimit kBuildRecordInput{"build record", 1ull << 30};
/// workbench.toml, kernel.toml, tuned.toml.
inline constexpr InputLimit kConfigInput{"configuration file", 16ull << 20};
/// A kernel's tune cache (JSON lines, one per measured configuration).
inline constexpr InputLimit kTuneCacheInput{"tune cache", 256ull << 20};
/// Kernel sources and the other text a command hashes or shows.
inline constexpr InputLimit kSourceInput{"source file", 64ull << 20};
/// Anything else: tool outputs, cache entries, objects, stamps.
inline constexpr InputLimit kAnyInput{"file", 4ull << 30};

/// An input file open for reading: a regular file, stdin (`-`) or a pipe
/// the process already holds (`/dev/fd/N`, `/proc/self/fd/N`: a shell's
/// `<(...)`). Reads stop with an error past the limit. Move-only.
class InputFile {
public:
  /// Refuses, without opening it, a named FIFO, a device, a socket or a
  /// directory (InvalidArgument, naming the path, what it is and what to
  /// pass instead), a regular file over |limit| (ResourceExhausted); a
  /// missing or unreadable path is NotFound.
  static StatusOr<InputFile> open(const std::filesystem::path &path,
                                  const InputLimit &limit = kAnyInput);
  InputFile(InputFile &&other) noexcept;
  InputFile &operator=(InputFile &&other) noexcept;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile();

  /// Up to |size| bytes into |buffer|; 0 at the end. ResourceExhausted once
  /// more than the limit has been read.
  StatusOr<size_t> read(char *buffer, size_t size);
  /// Everything left.
  StatusOr<std::string> readAll();

private:
  InputFile(int fd, std::string display, InputLimit limit, bool ownsFd)
      : fd_(fd), display_(std::move(display)), limit_(limit), ownsFd_(ownsFd) {}
  void close();
  int fd_ = -1;
  std::string display_;
  InputLimit limit_;
  bool ownsFd_ = true;
  uint64_t consumed_ = 0;
};

/// The checks of InputFile::open without opening anything: for a file a
/// command reads later or another process reads (bench's build.json).
Status checkInputFile(const std::filesystem::path &path,
                      const InputLimit &limit);

/// The whole file, through InputFile (so: `-`, pipes and the caps).
StatusOr<std::string> readFile(const std::filesystem::path &path,
                               const InputLimit &limit = kAnyInput);

/// Writes |bytes| to |path| atomically (temp in the same directory, fsync,
/// rename). Creates the parent directory. Without |replace|, never over a
/// file that exists (RENAME_NOREPLACE): AlreadyExists, nothing written.
Status writeFileAtomic(const std::filesystem::path &path,
                       std::string_view bytes, bool replace = true);

/// Appends |bytes| to |path| (created 0644 if missing), checking every
/// write and the close: a full disk (ENOSPC) or an I/O error is an error
/// naming the file, not a silently short file.
Status appendFile(const std::filesystem::path &path, std::string_view bytes);

/// OK when files can be created in |dir|: a probe file is made and removed
/// there, or, when |dir| does not exist yet, in its nearest existing
/// ancestor (where it would be created) — nothing lasting is created. For
/// a command to refuse an output directory before hours of work, not after.
Status checkWritableDirectory(const std::filesystem::path &dir);

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

//===- workbench/support/output_manifest.h - The files a build may delete -===//
//
// A build deletes files in its output directory (a failed job's stale
// outputs, modules of a program that no longer compiles). It must never
// delete a file it cannot prove it wrote: `-o` pointed at a directory with
// the user's own `bench/*.kbm` once removed them. The proof is
// `<out>/.kernel-bench-outputs`: every file the previous build wrote, with
// its sha256, and a checksum of the whole record. A file is removable when
// it is listed there and still has the listed contents, or when this build
// wrote it. A missing or corrupted manifest owns nothing.
//
// Thread-safe: jobs record and remove outputs from worker threads.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_OUTPUT_MANIFEST_H_
#define KB_WORKBENCH_SUPPORT_OUTPUT_MANIFEST_H_

#include "common/status.h"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kb::workbench {

class OutputManifest {
public:
  static constexpr const char kFileName[] = ".kernel-bench-outputs";

  /// sha256 (hex) of a file, nullopt when unreadable.
  using Hasher =
      std::function<std::optional<std::string>(const std::string &path)>;

  /// The previous build's manifest of |outDir| (empty when there is none or
  /// it fails its checksum). |hasher| defaults to reading the file; the
  /// build passes the cache's stat-keyed memo so a no-op build only stats.
  explicit OutputManifest(std::filesystem::path outDir, Hasher hasher = {});

  /// Records that this build wrote |file| (absolute, under the output
  /// directory): with |sha256| when the caller knows it, else hashed now.
  void wrote(const std::filesystem::path &file,
             std::optional<std::string> sha256 = std::nullopt);

  /// Removes |file| when this build or the previous one provably wrote it;
  /// returns whether it is gone (true also when it did not exist).
  bool removeOwned(const std::filesystem::path &file);

  /// Removes the owned files under |dir|, then the directories left empty.
  void removeOwnedTree(const std::filesystem::path &dir);

  /// Whether the previous build recorded |file| and it still has the
  /// contents recorded then (neither edited nor deleted since).
  bool unchangedSincePrevious(const std::filesystem::path &file);

  /// What the caller's record of the build said, in a form it can compare
  /// (build.json without its timings): recorded by save(), read back as
  /// previousFingerprint() by the next build, which then need not rewrite a
  /// record that would say the same. Empty: none.
  void setFingerprint(std::string fingerprint) {
    fingerprint_ = std::move(fingerprint);
  }
  const std::string &previousFingerprint() const {
    return previousFingerprint_;
  }

  /// Writes the manifest for the next build: what this build wrote, plus
  /// the previous build's files that are still in place unchanged, and the
  /// fingerprint. A manifest that would say the same is not rewritten.
  Status save();

  /// The files the last save() listed (absolute): every output of this
  /// build and the previous ones' still in place.
  std::vector<std::filesystem::path> savedFiles() const;

private:
  std::string relative(const std::filesystem::path &file) const;
  bool ownedLocked(const std::string &relativePath);

  std::optional<std::string> hash(const std::string &relativePath) const;

  std::filesystem::path outDir_;
  Hasher hasher_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> previous_; // relative path -> sha256
  std::map<std::string, std::string> written_;
  std::string previousFingerprint_;
  std::string fingerprint_;
  std::vector<std::string> saved_; // relative paths
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_OUTPUT_MANIFEST_H_

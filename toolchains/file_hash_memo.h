//===- toolchains/file_hash_memo.h - sha256 of files, remembered by stat --===//
//
// A no-op build checks every dependency of every job (a CUDA kernel reads
// ~130 host headers) and the outputs already in place. Re-reading and
// re-hashing them in every run dominated its time, so the hashes are
// remembered the way ninja and ccache do it: keyed by what stat() says
// (size, mtime and ctime in nanoseconds, inode, device), in one file in the
// cache directory, so the next process only stats.
//
//  * A stamp that changed is a miss: the file is hashed again.
//  * Only "settled" files are remembered across processes: one whose mtime
//    or ctime is within kSettleTime of the moment it was hashed could be
//    rewritten within the same timestamp tick without changing its stamp
//    (git's "racily clean" problem); such a file is hashed again next run.
//  * The memo file ends with the sha256 of its contents; a missing,
//    truncated or corrupted file is an empty memo, never an error.
//  * save() re-reads the file, merges and writes it atomically (temp +
//    rename): concurrent builds sharing a cache directory may each lose the
//    other's new entries (costing a re-hash), never corrupt the file.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_FILE_HASH_MEMO_H_
#define KB_TOOLCHAINS_FILE_HASH_MEMO_H_

#include "common/status.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kb::toolchains {

/// What stat() says about a regular file.
struct FileStamp {
  uint64_t size = 0;
  int64_t mtimeNs = 0;
  int64_t ctimeNs = 0;
  uint64_t inode = 0;
  uint64_t device = 0;

  bool operator==(const FileStamp &o) const {
    return size == o.size && mtimeNs == o.mtimeNs && ctimeNs == o.ctimeNs &&
           inode == o.inode && device == o.device;
  }
  bool operator!=(const FileStamp &o) const { return !(*this == o); }
};

/// The stamp of |path|; nullopt when it is missing or not a regular file.
std::optional<FileStamp> stampFile(const std::string &path);

class FileHashMemo {
public:
  /// Files modified more recently than this before they were hashed are not
  /// remembered across processes.
  static constexpr std::chrono::seconds kSettleTime{1};
  /// Entries kept in the file; beyond this, entries not used by this
  /// process are dropped first.
  static constexpr size_t kMaxEntries = 50000;

  /// A memo persisted in |file|; empty |file|: this process only.
  /// |settleTime| is kSettleTime but in tests.
  explicit FileHashMemo(std::filesystem::path file = {},
                        std::chrono::nanoseconds settleTime = kSettleTime);

  /// sha256 (64 hex) of |path|'s contents, from the memo when its stamp is
  /// unchanged; nullopt when |path| is missing or unreadable. Thread-safe.
  std::optional<std::string> hash(const std::string &path);

  /// Writes entries learned by this process to the file (merged with the
  /// file's current contents). No-op when nothing new was learned.
  Status save();

  /// Every path hash() was asked about, present or not, sorted: what the
  /// results computed from these hashes depend on.
  std::vector<std::string> pathsAsked() const;

  /// Files this object read and hashed (memo misses).
  uint64_t filesHashed() const { return filesHashed_.load(); }

private:
  struct Entry {
    FileStamp stamp;
    std::string hash;
    bool settled = false; // may be written to the file
    bool used = false;    // looked up or learned by this process
  };
  using Map = std::map<std::string, Entry>;
  static Map readMemoFile(const std::filesystem::path &file);

  std::filesystem::path file_;
  std::chrono::nanoseconds settleTime_;
  std::atomic<uint64_t> filesHashed_{0};
  mutable std::mutex mutex_;
  bool loaded_ = false;
  bool dirty_ = false;
  Map entries_;
  std::set<std::string> asked_;
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_FILE_HASH_MEMO_H_

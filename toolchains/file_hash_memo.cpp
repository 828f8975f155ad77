//===- toolchains/file_hash_memo.cpp - sha256 of files, remembered by stat ===//

#include "toolchains/file_hash_memo.h"

#include "common/sha256.h"
#include "common/file_util.h"

#include <algorithm>
#include <cstring>
#include <sys/stat.h>
#include <vector>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

// First line of the file; bump when the format changes (an old file is then
// an empty memo).
constexpr const char kHeader[] = "kernel-bench file hashes v1\n";
constexpr const char kTrailer[] = "sha256 ";

int64_t nanoseconds(const timespec &t) {
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

bool parseU64(std::string_view text, uint64_t &value) {
  if (text.empty() || text.size() > 20)
    return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + uint64_t(c - '0');
  }
  return true;
}

/// The next space-separated field of |line| from |pos|.
std::string_view nextField(std::string_view line, size_t &pos) {
  size_t end = line.find(' ', pos);
  if (end == std::string_view::npos)
    end = line.size();
  std::string_view field = line.substr(pos, end - pos);
  pos = end + 1;
  return field;
}

} // namespace

std::optional<FileStamp> stampFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  FileStamp stamp;
  stamp.size = uint64_t(st.st_size);
  stamp.mtimeNs = nanoseconds(st.st_mtim);
  stamp.ctimeNs = nanoseconds(st.st_ctim);
  stamp.inode = uint64_t(st.st_ino);
  stamp.device = uint64_t(st.st_dev);
  return stamp;
}

FileHashMemo::FileHashMemo(fs::path file, std::chrono::nanoseconds settleTime)
    : file_(std::move(file)), settleTime_(settleTime) {}

// Format: the header line, then one line per file
//   <sha256 hex> <size> <mtime ns> <ctime ns> <inode> <device> <path>
// (the path last: it may contain spaces, never a newline we wrote), then
// `sha256 <hex of everything before>`.
FileHashMemo::Map FileHashMemo::readMemoFile(const fs::path &file) {
  Map entries;
  if (file.empty())
    return entries;
  StatusOr<std::string> text = readFile(file);
  if (!text.ok() || text->rfind(kHeader, 0) != 0)
    return entries;
  size_t trailer = text->rfind(kTrailer);
  if (trailer == std::string::npos || trailer == 0 ||
      (*text)[trailer - 1] != '\n')
    return entries;
  std::string_view body(text->data(), trailer);
  std::string_view stored(text->data() + trailer + std::strlen(kTrailer),
                          text->size() - trailer - std::strlen(kTrailer));
  if (stored != sha256Hex(body) + "\n")
    return entries; // Truncated or corrupted: start over.
  size_t pos = std::strlen(kHeader);
  while (pos < body.size()) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos)
      return {};
    std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    size_t at = 0;
    Entry entry;
    entry.settled = true;
    entry.hash = std::string(nextField(line, at));
    uint64_t mtime = 0, ctime = 0;
    if (entry.hash.size() != 64 ||
        !parseU64(nextField(line, at), entry.stamp.size) ||
        !parseU64(nextField(line, at), mtime) ||
        !parseU64(nextField(line, at), ctime) ||
        !parseU64(nextField(line, at), entry.stamp.inode) ||
        !parseU64(nextField(line, at), entry.stamp.device) || at >= line.size())
      return {};
    entry.stamp.mtimeNs = int64_t(mtime);
    entry.stamp.ctimeNs = int64_t(ctime);
    entries[std::string(line.substr(at))] = std::move(entry);
  }
  return entries;
}

std::optional<std::string> FileHashMemo::hash(const std::string &path) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    asked_.insert(path);
  }
  std::optional<FileStamp> before = stampFile(path);
  if (!before)
    return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!loaded_) {
      entries_ = readMemoFile(file_);
      loaded_ = true;
    }
    auto it = entries_.find(path);
    if (it != entries_.end() && it->second.stamp == *before) {
      it->second.used = true;
      return it->second.hash;
    }
  }
  auto now = std::chrono::system_clock::now();
  StatusOr<std::string> hashed = sha256File(path);
  ++filesHashed_;
  if (!hashed.ok())
    return std::nullopt;
  // Modified while we read it: the hash may be of neither version.
  std::optional<FileStamp> after = stampFile(path);
  if (!after || *after != *before)
    return std::nullopt;
  int64_t newest = std::max(before->mtimeNs, before->ctimeNs);
  int64_t nowNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      now.time_since_epoch())
                      .count();
  bool settled = nowNs - newest >= settleTime_.count();
  std::lock_guard<std::mutex> lock(mutex_);
  Entry &entry = entries_[path];
  entry = Entry{*before, *hashed, settled, true};
  dirty_ = dirty_ || settled;
  return *hashed;
}

std::vector<std::string> FileHashMemo::pathsAsked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {asked_.begin(), asked_.end()};
}

Status FileHashMemo::save() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_.empty() || !dirty_)
    return okStatus();
  // Another build may have saved since we loaded: keep its entries, ours
  // win where both know a path.
  Map merged = readMemoFile(file_);
  for (const auto &[path, entry] : entries_)
    if (entry.settled)
      merged[path] = entry;
  if (merged.size() > kMaxEntries) {
    std::vector<std::string> unused;
    for (const auto &[path, entry] : merged)
      if (!entries_.count(path) || !entries_.at(path).used)
        unused.push_back(path);
    for (size_t i = 0; i < unused.size() && merged.size() > kMaxEntries; ++i)
      merged.erase(unused[i]);
  }
  std::string text = kHeader;
  for (const auto &[path, entry] : merged) {
    const FileStamp &s = entry.stamp;
    if (path.find('\n') != std::string::npos || s.mtimeNs < 0 || s.ctimeNs < 0)
      continue;
    text += entry.hash + ' ' + std::to_string(s.size) + ' ' +
            std::to_string(s.mtimeNs) + ' ' + std::to_string(s.ctimeNs) + ' ' +
            std::to_string(s.inode) + ' ' + std::to_string(s.device) + ' ' +
            path + '\n';
  }
  text += kTrailer + sha256Hex(text) + "\n";
  KB_RETURN_IF_ERROR(writeFileAtomic(file_, text));
  dirty_ = false;
  return okStatus();
}

} // namespace kb::toolchains

//===- workbench/support/output_manifest.cpp - The files a build may ------===//

#include "workbench/support/output_manifest.h"

#include "common/sha256.h"
#include "common/file_util.h"

#include <cstring>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

// Line-based: an optional "build <fingerprint>\n", then
// "<sha256> <relative path>\n" per file, then "checksum <sha256 of
// everything before>\n". Paths are bytes; a newline in one cannot be
// written and such a file is simply not recorded (so never deleted). An
// older kernel-bench reads the fingerprint line as a bad entry and the
// whole record as empty: it then owns nothing, the safe way to fail.
constexpr const char kHeader[] = "kernel-bench outputs v1\n";
constexpr const char kTrailer[] = "checksum ";
constexpr const char kFingerprint[] = "build ";

std::map<std::string, std::string> parse(const std::string &text,
                                         std::string &fingerprint) {
  std::map<std::string, std::string> entries;
  size_t trailer = text.rfind(kTrailer);
  if (text.rfind(kHeader, 0) != 0 || trailer == std::string::npos ||
      text.size() != trailer + std::strlen(kTrailer) + 65 ||
      text.back() != '\n' ||
      sha256Hex(std::string_view(text).substr(0, trailer)) !=
          text.substr(trailer + std::strlen(kTrailer), 64))
    return entries;
  std::istringstream lines(
      text.substr(std::strlen(kHeader), trailer - std::strlen(kHeader)));
  std::string line;
  while (std::getline(lines, line)) {
    if (entries.empty() && fingerprint.empty() &&
        line.rfind(kFingerprint, 0) == 0) {
      fingerprint = line.substr(std::strlen(kFingerprint));
      continue;
    }
    if (line.size() < 66 || line[64] != ' ')
      return {};
    entries[line.substr(65)] = line.substr(0, 64);
  }
  return entries;
}

} // namespace

OutputManifest::OutputManifest(fs::path outDir, Hasher hasher)
    : outDir_(std::move(outDir)), hasher_(std::move(hasher)) {
  if (!hasher_)
    hasher_ = [](const std::string &path) -> std::optional<std::string> {
      StatusOr<std::string> hash = sha256File(path);
      if (!hash.ok())
        return std::nullopt;
      return *hash;
    };
  StatusOr<std::string> text = kb::readFile(outDir_ / kFileName);
  if (text.ok())
    previous_ = parse(*text, previousFingerprint_);
  if (previous_.empty())
    previousFingerprint_.clear();
}

std::string OutputManifest::relative(const fs::path &file) const {
  fs::path rel = file.lexically_normal().lexically_relative(outDir_);
  if (rel.empty() || *rel.begin() == "..")
    return {};
  return rel.string();
}

std::optional<std::string> OutputManifest::hash(const std::string &rel) const {
  return hasher_((outDir_ / rel).string());
}

void OutputManifest::wrote(const fs::path &file,
                           std::optional<std::string> sha256) {
  std::string rel = relative(file);
  std::optional<std::string> hash = sha256 ? sha256 : this->hash(rel);
  if (rel.empty() || !hash || rel.find('\n') != std::string::npos)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  written_[rel] = *hash;
}

bool OutputManifest::ownedLocked(const std::string &rel) {
  auto now = hash(rel);
  if (!now)
    return false;
  for (const auto *entries : {&written_, &previous_}) {
    auto it = entries->find(rel);
    if (it != entries->end() && it->second == *now)
      return true;
  }
  return false;
}

bool OutputManifest::removeOwned(const fs::path &file) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec)))
    return true;
  std::string rel = relative(file);
  std::lock_guard<std::mutex> lock(mutex_);
  if (rel.empty() || !ownedLocked(rel))
    return false;
  fs::remove(file, ec);
  written_.erase(rel);
  previous_.erase(rel);
  return !ec;
}

void OutputManifest::removeOwnedTree(const fs::path &dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec)))
    return;
  std::vector<fs::path> files, dirs;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code typeError;
    if (it->is_directory(typeError) && !it->is_symlink(typeError))
      dirs.push_back(it->path());
    else
      files.push_back(it->path());
  }
  for (const fs::path &file : files)
    removeOwned(file);
  // Deepest first; fs::remove fails (harmlessly) on a non-empty directory.
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it)
    fs::remove(*it, ec);
  fs::remove(dir, ec);
}

bool OutputManifest::unchangedSincePrevious(const fs::path &file) {
  std::string rel = relative(file);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = previous_.find(rel);
  if (rel.empty() || it == previous_.end())
    return false;
  std::optional<std::string> now = hash(rel);
  return now && *now == it->second;
}

Status OutputManifest::save() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, std::string> next;
  for (const auto &[rel, recorded] : previous_)
    if (std::optional<std::string> now = hash(rel); now && *now == recorded)
      next[rel] = recorded;
  for (const auto &[rel, recorded] : written_)
    next[rel] = recorded;
  std::string text = kHeader;
  if (!fingerprint_.empty())
    text += kFingerprint + fingerprint_ + "\n";
  saved_.clear();
  for (const auto &[rel, recorded] : next) {
    text += recorded + " " + rel + "\n";
    saved_.push_back(rel);
  }
  text += kTrailer + sha256Hex(text) + "\n";
  // A no-op build leaves it as it was (no write, no fsync).
  StatusOr<std::string> current = kb::readFile(outDir_ / kFileName);
  if (current.ok() && *current == text)
    return okStatus();
  return kb::writeFileAtomic(outDir_ / kFileName, text);
}

std::vector<std::filesystem::path> OutputManifest::savedFiles() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::filesystem::path> files;
  for (const std::string &rel : saved_)
    files.push_back(outDir_ / rel);
  return files;
}

} // namespace kb::workbench

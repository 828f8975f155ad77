//===- toolchains/build_cache.h - Content-addressed kernel build cache ---===//
//
// ccache cannot cache `nvcc -ptx` (it only caches -c compiles), so the
// workbench has its own cache, modelled on ccache's direct mode:
//
//   primary key = sha256 of a length-prefixed record the caller builds with
//                 CacheKeyBuilder: cache-format version, tool identities and
//                 versions (nvcc: also the host compiler), the normalized
//                 command lines (no output or temp paths), the source's
//                 contents. It does not know which headers the compile reads.
//   manifest    = per primary key, up to kMaxCandidates earlier builds, each
//                 a list of (dependency path, sha256 of its contents) from
//                 that build's depfile.
//   result key  = sha256(primary key, dependency paths and hashes); the
//                 result holds the outputs' bytes, the captured diagnostics,
//                 the resource report and the commands that produced them.
//
// A lookup walks the manifest's candidates and re-hashes their dependencies
// (remembered across runs by stat in <dir>/v1/file-hashes, see
// file_hash_memo.h); the first candidate whose files are unchanged names the
// result. Every file is written to a temp name in
// its directory, fsync'ed and renamed, so two builds may share a cache
// directory at once: readers see whole files, and concurrent writers of one
// key write identical content. Each file carries a sha256 trailer; a
// truncated or corrupted file is a miss, never an error.
//
// Only successful jobs are stored: the caller stores after every step and
// check passed. A dependency modified after the job started makes store()
// skip the entry (the outputs may predate the edit).
//
// Layout: <dir>/v1/manifests/<k[0:2]>/<k>, <dir>/v1/results/<k[0:2]>/<k>,
// <dir>/v1/file-hashes, <dir>/CACHEDIR.TAG.
//
// With a remote tier (remote_tier.h), a local miss reads through: the
// server's manifest for the primary key (/ac/<key>, whose candidates also
// name their result's sha256 and each dependency's path relative to the
// compile's directory) is walked the same way — a dependency whose recorded
// path does not exist here is taken at its relative path, for runners that
// check out elsewhere — and the first matching result is fetched from
// /cas/<sha256>, checked, and stored locally under this machine's paths. A
// successful store() writes back: the result to /cas/, then the manifest
// (the server's candidates seen at lookup plus this one) to /ac/. Bytes
// that fail a check are reported to the tier and ignored.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_BUILD_CACHE_H_
#define KB_TOOLCHAINS_BUILD_CACHE_H_

#include "common/sha256.h"
#include "common/status.h"
#include "toolchains/diagnostics.h"
#include "toolchains/file_hash_memo.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/remote_tier.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::toolchains {

/// Builds a primary key: every field is length-prefixed, so ("ab", "c") and
/// ("a", "bc") hash differently.
class CacheKeyBuilder {
public:
  CacheKeyBuilder &add(std::string_view field);
  CacheKeyBuilder &add(std::string_view name, std::string_view value) {
    return add(name).add(value);
  }
  /// 64 hex characters.
  std::string finish() { return hash_.hexDigest(); }

private:
  Sha256 hash_;
};

/// What one successful job produced, as stored in and restored from the
/// cache.
struct CacheEntry {
  /// Read through from the remote tier (lookup() only): the summary counts
  /// local and remote hits apart.
  bool fromRemote = false;
  /// Output kind ("ptx", "cubin", "spv") -> file contents.
  std::map<std::string, std::string> outputs;
  /// Output kind -> sha256 (hex) of its contents. Filled by lookup() (from
  /// the entry, whose checksum was verified); store() computes it.
  std::map<std::string, std::string> outputHashes;
  /// Diagnostics of the successful run (warnings), replayed on a hit. File
  /// names are stored as the tools printed them.
  std::vector<Diagnostic> diagnostics;
  std::optional<ResourceUsage> resources;
  /// The commands that produced the outputs (argv, durations).
  std::vector<ToolInvocation> commands;
  /// Absolute paths of every file the compile read, besides files covered by
  /// a tool identity (the CUDA toolkit's headers).
  std::vector<std::string> dependencies;
};

class BuildCache {
public:
  /// Manifest candidates kept per primary key (newest first).
  static constexpr size_t kMaxCandidates = 8;

  /// $KB_CACHE_DIR, else $XDG_CACHE_HOME/kernel-bench, else
  /// $HOME/.cache/kernel-bench. FailedPrecondition when none is set.
  static StatusOr<std::filesystem::path> defaultDirectory();

  /// Opens (creating) the cache in |directory|.
  static StatusOr<std::unique_ptr<BuildCache>>
  open(const std::filesystem::path &directory);

  /// The entry for |primaryKey| whose dependencies are unchanged, or nullopt
  /// (miss, including unreadable or corrupted files). |sourceDir|, the
  /// directory the compile ran in, relocates a remote candidate recorded on
  /// a runner that checked the project out elsewhere. Thread-safe.
  std::optional<CacheEntry>
  lookup(const std::string &primaryKey,
         const std::filesystem::path &sourceDir = std::filesystem::path());

  /// Stores |entry| under |primaryKey|, hashing |entry.dependencies| now.
  /// Skips (returning ok) when a dependency is missing or was modified at or
  /// after |jobStart|. Errors only on I/O failure in the cache directory,
  /// which callers may report as a warning: the build itself succeeded.
  /// Thread-safe.
  /// |sourceDir| as for lookup(): remote manifests record each dependency
  /// relative to it too.
  Status
  store(const std::string &primaryKey, const CacheEntry &entry,
        std::filesystem::file_time_type jobStart,
        const std::filesystem::path &sourceDir = std::filesystem::path());

  /// sha256 (64 hex) of |path|'s contents through the cache's file hash
  /// memo (e.g. outputs already in place); nullopt when unreadable.
  /// Thread-safe.
  std::optional<std::string> hashFile(const std::string &path) {
    return fileHashes_.hash(path);
  }

  /// Every path hashFile() and the lookups were asked about in this process.
  std::vector<std::string> hashedPaths() const {
    return fileHashes_.pathsAsked();
  }

  /// Persists the file hashes learned by this process, so the next build
  /// only stats unchanged files. Call once the jobs are done; a failure
  /// costs the next build some hashing, nothing else.
  Status saveFileHashes() { return fileHashes_.save(); }

  const std::filesystem::path &directory() const { return directory_; }

  /// Adds the remote tier; call before the first lookup. Null: none.
  void setRemote(std::unique_ptr<RemoteTier> remote) {
    remote_ = std::move(remote);
  }
  /// Null without a remote tier.
  RemoteTier *remote() const { return remote_.get(); }

  /// One earlier build of a primary key, as a manifest lists it.
  struct Candidate {
    std::vector<std::pair<std::string, std::string>> dependencies; // path,
                                                                   // sha256
    std::string resultKey;
    /// sha256 of the result's container: its /cas/ name. Remote manifests
    /// only.
    std::string blob;
    /// Each dependency's path relative to the compile's directory, for a
    /// runner whose checkout is elsewhere. Remote manifests only.
    std::vector<std::string> relative;
  };

  struct Stats {
    uint64_t hits = 0;       // local and remote
    uint64_t remoteHits = 0; // of which read through from the remote tier
    uint64_t misses = 0;
    uint64_t stores = 0;
  };
  Stats stats() const;

private:
  explicit BuildCache(std::filesystem::path directory)
      : directory_(std::move(directory)),
        fileHashes_(directory_ / "v1" / "file-hashes") {}

  std::filesystem::path manifestPath(const std::string &key) const;
  std::filesystem::path resultPath(const std::string &key) const;
  /// The candidate's dependencies are unchanged and its result key is the
  /// one they give.
  bool matches(const std::string &primaryKey, const Candidate &candidate);
  /// A server's candidate as it applies here: each dependency at its
  /// recorded path, or — where that path does not exist on this machine —
  /// at its relative path from |sourceDir|, with unchanged contents; the
  /// result key recomputed for those paths. nullopt when it does not apply.
  std::optional<Candidate> relocate(const std::string &primaryKey,
                                    const Candidate &candidate,
                                    const std::filesystem::path &sourceDir);
  /// Puts |candidate| first in the local manifest of |primaryKey|.
  Status addLocalCandidate(const std::string &primaryKey,
                           const Candidate &candidate);
  std::optional<CacheEntry>
  lookupRemote(const std::string &primaryKey,
               const std::filesystem::path &sourceDir);
  void writeBack(const std::string &primaryKey, Candidate candidate,
                 const std::string &result,
                 const std::filesystem::path &sourceDir);

  std::filesystem::path directory_;
  FileHashMemo fileHashes_;
  std::unique_ptr<RemoteTier> remote_;
  /// The server's candidates per primary key, seen by a lookup that missed,
  /// kept for that key's write-back.
  std::mutex remoteSeenMutex_;
  std::map<std::string, std::vector<Candidate>> remoteSeen_;
  std::atomic<uint64_t> hits_{0}, remoteHits_{0}, misses_{0}, stores_{0};
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_BUILD_CACHE_H_

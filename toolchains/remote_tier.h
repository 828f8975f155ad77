//===- toolchains/remote_tier.h - The build cache's optional remote tier --===//
//
// A server shared by every runner of a team's CI, spoken to with plain HTTP
// GET/PUT in the layout of the Bazel HTTP remote cache, so bazel-remote or
// an nginx WebDAV location can serve it (docs/remote-cache.md):
//
//   <url>/ac/<primary key>   our manifest for that key (a KBCACHE container,
//                            not an ActionResult protobuf: bazel-remote must
//                            run with --disable_http_ac_validation)
//   <url>/cas/<sha256>       a result container whose sha256 is its name
//
// BuildCache (build_cache.h) reads through it on a local miss and writes back
// after a successful job. The tier never fails a build: a server that is
// down, slow or broken costs one bounded timeout and one warning, and the
// rest of the build is local only; a server that refuses writes is still
// read. The HTTP implementation (remote_cache.h) is its own library, so the
// runtime-only kernel-bench does not link libcurl; builds without it get
// openRemoteTier() saying so (remote_cache_unavailable.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_REMOTE_TIER_H_
#define KB_TOOLCHAINS_REMOTE_TIER_H_

#include "common/status.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::toolchains {

/// The two halves of the Bazel layout.
enum class RemoteArea {
  ActionCache,  // /ac/: mutable, keyed by our primary key
  ContentStore, // /cas/: immutable, keyed by the sha256 of the bytes
};

/// "ac" or "cas".
const char *pathSegment(RemoteArea area);

/// Where the server's credentials come from. Never the command line or the
/// project files: those end up in logs and repositories.
struct RemoteCredentials {
  enum class Source { None, Environment, Netrc };
  Source source = Source::None;
  /// Source::Environment: $KB_REMOTE_CACHE_USER / $KB_REMOTE_CACHE_PASSWORD.
  std::string user;
  std::string password;
  /// Source::Netrc: $NETRC, else ~/.netrc (only when the file exists).
  std::filesystem::path netrcFile;
};

/// The credentials the environment gives: KB_REMOTE_CACHE_USER and
/// KB_REMOTE_CACHE_PASSWORD (both, or an error naming the missing one),
/// else the netrc file $NETRC names (an error when it does not exist), else
/// ~/.netrc when it exists, else none.
StatusOr<RemoteCredentials> remoteCredentialsFromEnvironment();

struct RemoteTierConfig {
  /// http:// or https://, host, optional port and path prefix; no user
  /// name or password in it (checkRemoteCacheUrl).
  std::string url;
  RemoteCredentials credentials;
  /// Bounds on one request; the first request that exceeds them turns the
  /// tier off for the rest of the build.
  std::chrono::milliseconds connectTimeout{2000};
  std::chrono::milliseconds transferTimeout{10000};
  /// Receives each warning (one line, no prefix). Default: stderr.
  std::function<void(const std::string &)> warn;
};

/// Ok, or InvalidArgument saying what is wrong with |url| and what to do:
/// not http(s), no host, user info in it ("use KB_REMOTE_CACHE_USER/
/// _PASSWORD or a netrc file"), a query or fragment.
Status checkRemoteCacheUrl(const std::string &url);

/// Seconds from $KB_REMOTE_CACHE_TIMEOUT (a number in (0, 600]) as the
/// transfer timeout of |config|, the connect timeout capped by it; unset
/// keeps the defaults. InvalidArgument for any other text.
Status applyRemoteTimeoutFromEnvironment(RemoteTierConfig &config);

/// What the tier did in one build, for build.json and the summary.
struct RemoteTierStats {
  uint64_t hits = 0;     // content blobs fetched and verified
  uint64_t misses = 0;   // 404s
  uint64_t uploads = 0;  // PUTs the server accepted
  uint64_t corrupt = 0;  // fetched bytes that failed their checks
  bool readsOff = false; // the server failed; local only since
  bool writesOff = false;
  std::vector<std::string> warnings;
};

class RemoteTier {
public:
  virtual ~RemoteTier() = default;

  /// The bytes under |key|, or nullopt: absent, turned off, or failed (then
  /// warned about). ContentStore bytes whose sha256 is not |key| are
  /// reported corrupt and not returned.
  virtual std::optional<std::string> get(RemoteArea area,
                                         const std::string &key) = 0;
  /// Uploads |bytes| under |key|; false when not stored (refused, failed or
  /// turned off — warned about once).
  virtual bool put(RemoteArea area, const std::string &key,
                   const std::string &bytes) = 0;
  /// Fetched bytes failed a check of the caller's (the container's
  /// checksum): counted and warned about; the entry is ignored.
  virtual void reportCorrupt(RemoteArea area, const std::string &key,
                             const std::string &why) = 0;
  virtual RemoteTierStats stats() const = 0;
  virtual const std::string &url() const = 0;
};

/// False in a kernel-bench built without the HTTP client
/// (KB_ENABLE_REMOTE_CACHE=OFF, the runtime-only build).
bool remoteTierAvailable();

/// The HTTP remote tier. InvalidArgument for a bad URL; Unavailable when
/// this build has no HTTP client. Does not contact the server.
StatusOr<std::unique_ptr<RemoteTier>> openRemoteTier(RemoteTierConfig config);

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_REMOTE_TIER_H_

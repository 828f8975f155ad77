//===- toolchains/remote_cache.h - The remote tier over HTTP (libcurl) ----===//
//
// The one place that knows libcurl. Each request is bounded by the
// configured connect and transfer timeouts; easy handles are pooled so a
// build reuses its connections. A transport failure (refused, reset,
// timeout, DNS) or an unexpected status turns the whole tier off with one
// warning; 401/403/405 on a PUT turns only writes off (a read-only cache is
// a normal deployment), also with one warning. Only http and https are
// allowed, redirects are not followed, and a response larger than
// kMaxEntryBytes is dropped.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_REMOTE_CACHE_H_
#define KB_TOOLCHAINS_REMOTE_CACHE_H_

#include "toolchains/remote_tier.h"

#include <atomic>
#include <mutex>

namespace kb::toolchains {

class RemoteCache final : public RemoteTier {
public:
  /// Larger entries are neither fetched nor uploaded (a kernel's outputs
  /// are kilobytes to a few megabytes).
  static constexpr uint64_t kMaxEntryBytes = 256ull << 20;

  /// See openRemoteTier().
  static StatusOr<std::unique_ptr<RemoteCache>> open(RemoteTierConfig config);
  ~RemoteCache() override;

  std::optional<std::string> get(RemoteArea area,
                                 const std::string &key) override;
  bool put(RemoteArea area, const std::string &key,
           const std::string &bytes) override;
  void reportCorrupt(RemoteArea area, const std::string &key,
                     const std::string &why) override;
  RemoteTierStats stats() const override;
  const std::string &url() const override { return config_.url; }

private:
  /// What one request came to.
  struct Response {
    bool transportOk = false;
    long httpStatus = 0;
    std::string body;
    std::string error; // transport failure, for the warning
  };

  explicit RemoteCache(RemoteTierConfig config);
  Response perform(RemoteArea area, const std::string &key,
                   const std::string *upload);
  std::string location(RemoteArea area, const std::string &key) const;
  /// Turns reads and writes off; warns once.
  void turnOff(const std::string &why);
  void turnWritesOff(const std::string &why);
  void warn(const std::string &message);
  void *acquireHandle();
  void releaseHandle(void *handle);

  RemoteTierConfig config_;
  std::atomic<bool> readsOff_{false}, writesOff_{false};
  std::atomic<uint64_t> hits_{0}, misses_{0}, uploads_{0}, corrupt_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> warnings_; // guarded by mutex_
  std::vector<void *> idleHandles_;   // CURL *, guarded by mutex_
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_REMOTE_CACHE_H_

//===- toolchains/remote_cache_unavailable.cpp - No HTTP client built in --===//
//
// The runtime-only kernel-bench (KB_ENABLE_REMOTE_CACHE=OFF) links no
// libcurl: GPU hosts have few libraries, and they run benchmarks, not
// compiles. Its build command has no remote cache flag; a URL from the
// environment or workbench.toml gets this answer.
//
//===----------------------------------------------------------------------===//
#include "toolchains/remote_tier.h"

namespace kb::toolchains {

bool remoteTierAvailable() { return false; }

StatusOr<std::unique_ptr<RemoteTier>> openRemoteTier(RemoteTierConfig config) {
  return unavailable("this kernel-bench was built without the remote cache "
                     "(KB_ENABLE_REMOTE_CACHE=OFF), so `" +
                     config.url +
                     "` is not used; the local cache still is. Use a "
                     "kernel-bench built with the compiler to share a cache");
}

} // namespace kb::toolchains

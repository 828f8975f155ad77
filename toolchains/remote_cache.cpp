//===- toolchains/remote_cache.cpp - The remote tier over HTTP (libcurl) --===//

#include "toolchains/remote_cache.h"

#include "common/sha256.h"
#include "toolchains/curl_library.h"

#include <cstdio>
#include <mutex>

namespace kb::toolchains {
namespace {

struct UploadCursor {
  const std::string *bytes;
  size_t offset = 0;
};

size_t appendBody(char *data, size_t size, size_t count, void *user) {
  auto *body = static_cast<std::string *>(user);
  size_t n = size * count;
  if (body->size() + n > RemoteCache::kMaxEntryBytes)
    return 0; // aborts the transfer (CURLE_WRITE_ERROR)
  body->append(data, n);
  return n;
}

size_t readUpload(char *buffer, size_t size, size_t count, void *user) {
  auto *cursor = static_cast<UploadCursor *>(user);
  size_t n = std::min(size * count, cursor->bytes->size() - cursor->offset);
  std::copy_n(cursor->bytes->data() + cursor->offset, n, buffer);
  cursor->offset += n;
  return n;
}

std::string seconds(std::chrono::milliseconds ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s", ms.count() / 1e3);
  return text;
}

/// libcurl, which open() loaded before any RemoteCache exists.
const CurlLibrary &curlLibrary() { return **loadCurlLibrary(); }

bool isHexKey(const std::string &key) {
  return key.size() == 64 &&
         key.find_first_not_of("0123456789abcdef") == std::string::npos;
}

} // namespace

bool remoteTierAvailable() { return true; }

StatusOr<std::unique_ptr<RemoteTier>> openRemoteTier(RemoteTierConfig config) {
  KB_ASSIGN_OR_RETURN(std::unique_ptr<RemoteCache> cache,
                      RemoteCache::open(std::move(config)));
  return std::unique_ptr<RemoteTier>(std::move(cache));
}

StatusOr<std::unique_ptr<RemoteCache>>
RemoteCache::open(RemoteTierConfig config) {
  KB_RETURN_IF_ERROR(checkRemoteCacheUrl(config.url));
  while (config.url.size() > 1 && config.url.back() == '/')
    config.url.pop_back();
  // Loaded here, once, for every later call through curlLibrary().
  KB_RETURN_IF_ERROR(loadCurlLibrary().status());
  return std::unique_ptr<RemoteCache>(new RemoteCache(std::move(config)));
}

RemoteCache::RemoteCache(RemoteTierConfig config) : config_(std::move(config)) {
  if (!config_.warn)
    config_.warn = [](const std::string &message) {
      std::fprintf(stderr, "kernel-bench: warning: %s\n", message.c_str());
    };
}

RemoteCache::~RemoteCache() {
  for (void *handle : idleHandles_)
    curlLibrary().cleanup(static_cast<CURL *>(handle));
}

void *RemoteCache::acquireHandle() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idleHandles_.empty()) {
      void *handle = idleHandles_.back();
      idleHandles_.pop_back();
      return handle;
    }
  }
  return curlLibrary().init();
}

void RemoteCache::releaseHandle(void *handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  idleHandles_.push_back(handle);
}

std::string RemoteCache::location(RemoteArea area,
                                  const std::string &key) const {
  return config_.url + "/" + pathSegment(area) + "/" + key;
}

RemoteCache::Response RemoteCache::perform(RemoteArea area,
                                           const std::string &key,
                                           const std::string *upload) {
  Response response;
  CURL *curl = static_cast<CURL *>(acquireHandle());
  if (!curl) {
    response.error = "could not create an HTTP request (out of memory?)";
    return response;
  }
  const CurlLibrary &lib = curlLibrary();
  // reset keeps the handle's open connections, drops every option.
  lib.reset(curl);
  char errorText[CURL_ERROR_SIZE] = "";
  std::string url = location(area, key);
  UploadCursor cursor{upload};
  lib.setopt(curl, CURLOPT_URL, url.c_str());
  lib.setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.setopt(curl, CURLOPT_NOSIGNAL, 1L); // worker threads
  lib.setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
             long(config_.connectTimeout.count()));
  lib.setopt(curl, CURLOPT_TIMEOUT_MS, long(config_.transferTimeout.count()));
  lib.setopt(curl, CURLOPT_ERRORBUFFER, errorText);
  lib.setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
  lib.setopt(curl, CURLOPT_WRITEDATA, &response.body);
  lib.setopt(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(kMaxEntryBytes));
  const RemoteCredentials &credentials = config_.credentials;
  if (credentials.source == RemoteCredentials::Source::Environment) {
    lib.setopt(curl, CURLOPT_HTTPAUTH, long(CURLAUTH_BASIC));
    lib.setopt(curl, CURLOPT_USERNAME, credentials.user.c_str());
    lib.setopt(curl, CURLOPT_PASSWORD, credentials.password.c_str());
  } else if (credentials.source == RemoteCredentials::Source::Netrc) {
    lib.setopt(curl, CURLOPT_NETRC, long(CURL_NETRC_OPTIONAL));
    lib.setopt(curl, CURLOPT_NETRC_FILE, credentials.netrcFile.c_str());
  }
  struct curl_slist *headers = nullptr;
  if (upload) {
    lib.setopt(curl, CURLOPT_UPLOAD, 1L);
    lib.setopt(curl, CURLOPT_READFUNCTION, readUpload);
    lib.setopt(curl, CURLOPT_READDATA, &cursor);
    lib.setopt(curl, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload->size()));
    // No 100-continue round trip (a server that ignores it costs a second).
    headers = lib.slistAppend(headers, "Expect:");
    headers =
        lib.slistAppend(headers, "Content-Type: application/octet-stream");
    lib.setopt(curl, CURLOPT_HTTPHEADER, headers);
  }
  CURLcode code = lib.perform(curl);
  lib.slistFreeAll(headers);
  if (code == CURLE_OK) {
    response.transportOk = true;
    lib.getinfo(curl, CURLINFO_RESPONSE_CODE, &response.httpStatus);
  } else if (code == CURLE_OPERATION_TIMEDOUT) {
    response.error = "no answer within " + seconds(config_.transferTimeout) +
                     " (KB_REMOTE_CACHE_TIMEOUT sets the bound)";
  } else {
    response.error = errorText[0] ? errorText : lib.strerror(code);
  }
  lib.setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  releaseHandle(curl);
  return response;
}

std::optional<std::string> RemoteCache::get(RemoteArea area,
                                            const std::string &key) {
  if (readsOff_ || !isHexKey(key))
    return std::nullopt;
  Response response = perform(area, key, nullptr);
  if (!response.transportOk) {
    turnOff("GET " + location(area, key) + " failed: " + response.error);
    return std::nullopt;
  }
  if (response.httpStatus == 404) {
    ++misses_;
    return std::nullopt;
  }
  if (response.httpStatus != 200) {
    std::string hint = response.httpStatus == 401 || response.httpStatus == 403
                           ? " (check KB_REMOTE_CACHE_USER/_PASSWORD or the "
                             "netrc entry for this host)"
                           : "";
    turnOff("GET " + location(area, key) + " answered HTTP " +
            std::to_string(response.httpStatus) + hint);
    return std::nullopt;
  }
  // Content-addressed: the name is the checksum.
  if (area == RemoteArea::ContentStore) {
    if (sha256Hex(response.body) != key) {
      reportCorrupt(area, key, "its sha256 is not its name");
      return std::nullopt;
    }
    ++hits_;
  }
  return std::move(response.body);
}

bool RemoteCache::put(RemoteArea area, const std::string &key,
                      const std::string &bytes) {
  if (readsOff_ || writesOff_ || !isHexKey(key) ||
      bytes.size() > kMaxEntryBytes)
    return false;
  Response response = perform(area, key, &bytes);
  if (!response.transportOk) {
    turnOff("PUT " + location(area, key) + " failed: " + response.error);
    return false;
  }
  long status = response.httpStatus;
  if (status >= 200 && status < 300) {
    ++uploads_;
    return true;
  }
  if (status == 401 || status == 403 || status == 405)
    turnWritesOff("the server refuses uploads (PUT " + location(area, key) +
                  " answered HTTP " + std::to_string(status) +
                  "); still reading from it");
  else
    turnOff("PUT " + location(area, key) + " answered HTTP " +
            std::to_string(status));
  return false;
}

void RemoteCache::reportCorrupt(RemoteArea area, const std::string &key,
                                const std::string &why) {
  ++corrupt_;
  warn("remote cache entry " + location(area, key) + " is corrupted (" + why +
       "); ignored, building locally");
}

void RemoteCache::turnOff(const std::string &why) {
  if (readsOff_.exchange(true))
    return; // Another request failed first and warned.
  writesOff_ = true;
  warn("remote cache: " + why + "; using the local cache only for the rest " +
       "of this build");
}

void RemoteCache::turnWritesOff(const std::string &why) {
  if (writesOff_.exchange(true))
    return;
  warn("remote cache: " + why);
}

void RemoteCache::warn(const std::string &message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    warnings_.push_back(message);
  }
  config_.warn(message);
}

RemoteTierStats RemoteCache::stats() const {
  RemoteTierStats stats;
  stats.hits = hits_;
  stats.misses = misses_;
  stats.uploads = uploads_;
  stats.corrupt = corrupt_;
  stats.readsOff = readsOff_;
  stats.writesOff = writesOff_;
  std::lock_guard<std::mutex> lock(mutex_);
  stats.warnings = warnings_;
  return stats;
}

} // namespace kb::toolchains

//===- toolchains/curl_library.cpp - libcurl, loaded when first needed ----===//

#include "toolchains/curl_library.h"

#include "common/dynamic_library.h"

#include <string>

namespace kb::toolchains {
namespace {

/// The library's soname: the ABI the headers we compiled against describe
/// (libcurl has kept soname 4 since 2006).
constexpr const char kSoname[] = "libcurl.so.4";

template <typename Fn>
Status resolve(const DynamicLibrary &library, const char *name, Fn &slot) {
  slot = library.function<Fn>(name);
  if (!slot)
    return unavailable(std::string(kSoname) + " has no `" + name +
                       "`: install libcurl4 7.85 or newer");
  return okStatus();
}

StatusOr<CurlLibrary> open() {
  StatusOr<DynamicLibrary> opened =
      DynamicLibrary::open(kSoname, DynamicLibrary::Unload::Never);
  if (!opened.ok())
    return unavailable("the remote cache needs libcurl, which could not be "
                       "loaded (" +
                       opened.status().message() +
                       "): install libcurl4 (Debian: apt install libcurl4)");
  // Kept mapped until exit: libcurl's global state outlives every handle.
  const DynamicLibrary &handle = *opened;
  CurlLibrary curl;
  KB_RETURN_IF_ERROR(resolve(handle, "curl_global_init", curl.globalInit));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_strerror", curl.strerror));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_init", curl.init));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_cleanup", curl.cleanup));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_reset", curl.reset));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_setopt", curl.setopt));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_perform", curl.perform));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_easy_getinfo", curl.getinfo));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_slist_append", curl.slistAppend));
  KB_RETURN_IF_ERROR(resolve(handle, "curl_slist_free_all", curl.slistFreeAll));
  // Not thread-safe, so once, before any handle exists.
  CURLcode initialized = curl.globalInit(CURL_GLOBAL_DEFAULT);
  if (initialized != CURLE_OK)
    return unavailable(std::string("the HTTP client (libcurl) could not be "
                                   "initialized: ") +
                       curl.strerror(initialized));
  return curl;
}

} // namespace

StatusOr<const CurlLibrary *> loadCurlLibrary() {
  static const StatusOr<CurlLibrary> loaded = open();
  if (!loaded.ok())
    return loaded.status();
  return &*loaded;
}

} // namespace kb::toolchains

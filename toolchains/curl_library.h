//===- toolchains/curl_library.h - libcurl, loaded when first needed ------===//
//
// The remote tier's HTTP client is libcurl, but most commands never open a
// remote cache. Linked, libcurl and the ~30 libraries it needs (TLS,
// Kerberos, LDAP, IDN, ...) are loaded and relocated at every start-up:
// about 13 M instructions, twice what Ninja spends on a whole no-op build.
// So libcurl is opened with dlopen (RTLD_LOCAL: its symbols stay out of the
// lookups of everything else) the first time a remote cache is opened.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_CURL_LIBRARY_H_
#define KB_TOOLCHAINS_CURL_LIBRARY_H_

#include "common/status.h"

#include <curl/curl.h>

namespace kb::toolchains {

/// The libcurl entry points the remote tier calls, with their own types.
struct CurlLibrary {
  decltype(&::curl_global_init) globalInit = nullptr;
  decltype(&::curl_easy_strerror) strerror = nullptr;
  decltype(&::curl_easy_init) init = nullptr;
  decltype(&::curl_easy_cleanup) cleanup = nullptr;
  decltype(&::curl_easy_reset) reset = nullptr;
  decltype(&::curl_easy_setopt) setopt = nullptr;
  decltype(&::curl_easy_perform) perform = nullptr;
  decltype(&::curl_easy_getinfo) getinfo = nullptr;
  decltype(&::curl_slist_append) slistAppend = nullptr;
  decltype(&::curl_slist_free_all) slistFreeAll = nullptr;
};

/// libcurl, loaded and initialized (curl_global_init) once per process;
/// Unavailable, saying what to install, when it cannot be.
StatusOr<const CurlLibrary *> loadCurlLibrary();

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_CURL_LIBRARY_H_

//===- toolchains/remote_tier.cpp - Remote tier configuration -------------===//
//
// What does not need the HTTP client: the URL check, credentials and the
// timeout from the environment. Compiled into every build, so the runtime-
// only kernel-bench still rejects a bad URL the same way.
//
//===----------------------------------------------------------------------===//
#include "toolchains/remote_tier.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <system_error>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// |url| as messages may show it: the user and password, every query value
/// (`?token=...`) and the fragment replaced by `***`. Messages go to logs.
std::string redactedUrl(const std::string &url) {
  size_t schemeEnd = url.find("://");
  size_t restStart = schemeEnd == std::string::npos ? 0 : schemeEnd + 3;
  size_t authorityEnd =
      std::min(url.find_first_of("/?#", restStart), url.size());
  size_t at = url.rfind('@', authorityEnd);
  std::string shown = url;
  if (at != std::string::npos && at >= restStart)
    shown = url.substr(0, restStart) + "***" + url.substr(at);
  size_t query = shown.find_first_of("?#");
  if (query == std::string::npos)
    return shown;
  std::string out = shown.substr(0, query);
  size_t fragment = shown.find('#', query);
  std::string params = shown.substr(
      query + 1,
      (fragment == std::string::npos ? shown.size() : fragment) - query - 1);
  if (shown[query] == '?') {
    out += '?';
    for (size_t start = 0; start <= params.size();) {
      size_t end = std::min(params.find('&', start), params.size());
      std::string param = params.substr(start, end - start);
      size_t eq = param.find('=');
      out += (start ? "&" : "") +
             (eq == std::string::npos ? "***" : param.substr(0, eq) + "=***");
      start = end + 1;
    }
  }
  if (fragment != std::string::npos)
    out += "#***";
  return out;
}

} // namespace

const char *pathSegment(RemoteArea area) {
  return area == RemoteArea::ActionCache ? "ac" : "cas";
}

Status checkRemoteCacheUrl(const std::string &url) {
  size_t schemeEnd = url.find("://");
  std::string rest =
      schemeEnd == std::string::npos ? url : url.substr(schemeEnd + 3);
  std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = authority.rfind('@');
  // Messages go to logs: never repeat a password or a token.
  std::string shown = redactedUrl(url);
  auto bad = [&](const std::string &why) {
    return invalidArgument("remote cache URL `" + shown + "`: " + why);
  };
  std::string scheme =
      schemeEnd == std::string::npos ? "" : url.substr(0, schemeEnd);
  if (scheme != "http" && scheme != "https")
    return bad("expected http://HOST[:PORT][/PATH] or https://...; the "
               "remote cache speaks HTTP GET/PUT only");
  // Refused by policy, not for its syntax: a usage error from the flag,
  // the environment and workbench.toml alike.
  if (at != std::string::npos)
    return permissionDenied(
        bad("a user name or password in the URL would end up in logs and "
            "build.json; remove it and set KB_REMOTE_CACHE_USER and "
            "KB_REMOTE_CACHE_PASSWORD, or put the host in a netrc file "
            "($NETRC or ~/.netrc)")
            .message());
  if (authority.empty() || authority[0] == ':')
    return bad("no host; expected http://HOST[:PORT][/PATH]");
  if (url.find_first_of("?#") != std::string::npos)
    return bad("a query or fragment cannot be part of a cache location; "
               "remove the part from `?` or `#` on");
  for (char c : url)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return bad("it contains a space or control character");
  return okStatus();
}

StatusOr<RemoteCredentials> remoteCredentialsFromEnvironment() {
  RemoteCredentials credentials;
  std::string user = env("KB_REMOTE_CACHE_USER");
  std::string password = env("KB_REMOTE_CACHE_PASSWORD");
  if (!user.empty() || !password.empty()) {
    if (user.empty() || password.empty())
      return invalidArgument(
          std::string(user.empty() ? "KB_REMOTE_CACHE_PASSWORD"
                                   : "KB_REMOTE_CACHE_USER") +
          " is set but " +
          (user.empty() ? "KB_REMOTE_CACHE_USER" : "KB_REMOTE_CACHE_PASSWORD") +
          " is not; set both for the remote cache's basic authentication, "
          "or neither");
    credentials.source = RemoteCredentials::Source::Environment;
    credentials.user = user;
    credentials.password = password;
    return credentials;
  }
  std::error_code ec;
  if (std::string netrc = env("NETRC"); !netrc.empty()) {
    if (!fs::is_regular_file(netrc, ec))
      return invalidArgument("NETRC names `" + netrc +
                             "`, which is not a readable file; fix or unset "
                             "NETRC");
    credentials.source = RemoteCredentials::Source::Netrc;
    credentials.netrcFile = netrc;
    return credentials;
  }
  if (std::string home = env("HOME"); !home.empty()) {
    fs::path netrc = fs::path(home) / ".netrc";
    if (fs::is_regular_file(netrc, ec)) {
      credentials.source = RemoteCredentials::Source::Netrc;
      credentials.netrcFile = netrc;
    }
  }
  return credentials;
}

Status applyRemoteTimeoutFromEnvironment(RemoteTierConfig &config) {
  std::string text = env("KB_REMOTE_CACHE_TIMEOUT");
  if (text.empty())
    return okStatus();
  char *end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(seconds) ||
      seconds <= 0 || seconds > 600)
    return invalidArgument("KB_REMOTE_CACHE_TIMEOUT is `" + text +
                           "`; expected seconds in (0, 600], e.g. 2.5");
  config.transferTimeout =
      std::chrono::milliseconds(std::max<long long>(1, llround(seconds * 1e3)));
  config.connectTimeout =
      std::min(config.connectTimeout, config.transferTimeout);
  return okStatus();
}

} // namespace kb::toolchains

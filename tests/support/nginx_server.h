//===- tests/support/nginx_server.h - A real nginx for remote-cache tests -===//
//
// Debian's nginx in the foreground as ONE process (master_process off),
// with its own prefix, config and logs, listening on 127.0.0.1 on a free
// port, killed if the test process dies (PR_SET_PDEATHSIG) and stopped by
// the destructor. Serves <prefix>/data at:
//
//   /rw/    GET + PUT (WebDAV, creating directories)
//   /ro/    GET only: PUT answers 405
//   /deny/  PUT answers 403 (limit_except GET)
//   /auth/  GET + PUT behind basic authentication (kNginxUser /
//           kNginxPassword, an htpasswd file of nginx's own {PLAIN} scheme)
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTS_SUPPORT_NGINX_SERVER_H
#define KB_TESTS_SUPPORT_NGINX_SERVER_H

#include <filesystem>
#include <string>
#include <sys/types.h>

namespace kb::test {

inline constexpr const char *kNginxBinary = "/usr/sbin/nginx";
inline constexpr const char *kNginxUser = "kb";
inline constexpr const char *kNginxPassword = "s3cret";

/// A port nothing listens on right now (bound, read, closed).
int freeLoopbackPort();

class NginxServer {
public:
  NginxServer() = default;
  NginxServer(const NginxServer &) = delete;
  NginxServer &operator=(const NginxServer &) = delete;
  ~NginxServer() { stop(); }

  /// Whether Debian's nginx is installed (tests skip without it).
  static bool available();

  /// Starts it under |prefix| (created); empty when it accepts
  /// connections, else why not (its error.log).
  std::string start(const std::filesystem::path &prefix);
  /// SIGTERM, then SIGKILL after 5 s; reaps it. Idempotent.
  void stop();

  /// http://127.0.0.1:PORT/LOCATION
  std::string url(const std::string &location) const;
  /// Where a PUT to any location lands: <prefix>/data.
  std::filesystem::path dataDir() const { return prefix_ / "data"; }

private:
  void writeConfig() const;

  std::filesystem::path prefix_;
  int port_ = 0;
  pid_t pid_ = -1;
};

} // namespace kb::test

#endif // KB_TESTS_SUPPORT_NGINX_SERVER_H

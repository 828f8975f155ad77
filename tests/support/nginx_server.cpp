//===- tests/support/nginx_server.cpp -------------------------------------===//

#include "tests/support/nginx_server.h"

#include <arpa/inet.h>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace kb::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

bool accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(port);
  bool ok =
      ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

} // namespace

int freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(0);
  ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr));
  socklen_t size = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &size);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool NginxServer::available() { return ::access(kNginxBinary, X_OK) == 0; }

std::string NginxServer::url(const std::string &location) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + location;
}

void NginxServer::writeConfig() const {
  std::string p = prefix_.string();
  std::ofstream conf(prefix_ / "nginx.conf");
  conf << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
       << "pid " << p << "/nginx.pid;\nerror_log " << p << "/error.log;\n"
       << "events { worker_connections 64; }\n"
       << "http {\n  access_log " << p << "/access.log;\n";
  // Every temp path inside the prefix: the defaults are under /var/lib.
  for (const char *temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    conf << "  " << temp << "_temp_path " << p << "/tmp/" << temp << ";\n";
  const std::string dav = "dav_methods PUT; create_full_put_path on;";
  conf << "  client_max_body_size 0;\n"
       << "  server {\n    listen 127.0.0.1:" << port_ << ";\n"
       << "    location /rw/ { alias " << p << "/data/; " << dav << " }\n"
       << "    location /ro/ { alias " << p << "/data/; }\n"
       << "    location /deny/ { alias " << p << "/data/; "
       << "limit_except GET { deny all; } }\n"
       << "    location /auth/ { alias " << p << "/data/; " << dav
       << " auth_basic \"kb\"; auth_basic_user_file " << p << "/htpasswd; }\n"
       << "  }\n}\n";
}

std::string NginxServer::start(const fs::path &prefix) {
  prefix_ = prefix;
  fs::create_directories(prefix / "data");
  fs::create_directories(prefix / "tmp");
  std::ofstream(prefix / "htpasswd")
      << kNginxUser << ":{PLAIN}" << kNginxPassword << "\n";
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = freeLoopbackPort();
    writeConfig();
    std::string p = prefix.string() + "/";
    std::string conf = p + "nginx.conf", log = p + "error.log";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives the test
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(kNginxBinary, kNginxBinary, "-p", p.c_str(), "-c", conf.c_str(),
              "-e", log.c_str(), static_cast<char *>(nullptr));
      ::_exit(127);
    }
    for (auto deadline = Clock::now() + std::chrono::seconds(10);
         pid_ > 0 && Clock::now() < deadline;) {
      if (accepts(port_))
        return "";
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_)
        pid_ = -1; // e.g. the port was taken meanwhile: try another
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop();
  }
  std::ifstream in(prefix / "error.log");
  std::stringstream log;
  log << in.rdbuf();
  return "nginx did not start; its error.log:\n" + log.str();
}

void NginxServer::stop() {
  if (pid_ <= 0)
    return;
  ::kill(pid_, SIGTERM);
  for (auto deadline = Clock::now() + std::chrono::seconds(5);
       Clock::now() < deadline;) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

} // namespace kb::test

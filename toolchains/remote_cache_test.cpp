//===- toolchains/remote_cache_test.cpp -----------------------------------===//
//
// The remote tier against a real nginx (Debian's, WebDAV PUT enabled) that
// each test starts on 127.0.0.1 with its own prefix and stops; skipped when
// nginx is not installed. A hanging server is a socket that accepts and
// never answers.
//
//===----------------------------------------------------------------------===//

#include "toolchains/build_cache.h"
#include "common/file_util.h"
#include "toolchains/remote_cache.h"

#include "common/sha256.h"
#include "tests/support/nginx_server.h"

#include "common/test_util.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Accepts connections and never answers, like a wedged server.
class HangingServer {
public:
  HangingServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof(addr));
    socklen_t size = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr *>(&addr), &size);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 16); // the kernel completes handshakes; nobody reads
    ::fcntl(fd_, F_SETFL, O_NONBLOCK);
  }
  ~HangingServer() {
    for (int fd : accepted_)
      ::close(fd);
    ::close(fd_);
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/cache";
  }
  /// Connections clients have made so far (taken from the backlog and kept
  /// open, still never answered): whether a client tried again is counted,
  /// not inferred from how long it took.
  size_t connections() {
    for (int fd; (fd = ::accept(fd_, nullptr, nullptr)) >= 0;)
      accepted_.push_back(fd);
    return accepted_.size();
  }

private:
  int fd_;
  int port_;
  std::vector<int> accepted_;
};

using kb::testing::ScopedEnv;

class RemoteCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb-remote-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    header_ = (root() / "k.h").string();
    ASSERT_TRUE(writeFileAtomic(header_, "#define N 1\n").ok());
  }
  void startNginx() {
    if (!test::NginxServer::available())
      GTEST_SKIP() << test::kNginxBinary
                   << " is not installed (Debian package nginx)";
    std::string why = nginx_.start(root() / "nginx");
    ASSERT_TRUE(why.empty()) << why;
  }
  fs::path root() const { return dir_->path(); }

  /// A local cache in its own directory (one runner), with a remote tier
  /// at |url| whose warnings land in |warnings_|.
  std::unique_ptr<BuildCache>
  runner(const std::string &name, const std::string &url,
         RemoteCredentials credentials = {},
         std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    auto cache = BuildCache::open(root() / name);
    EXPECT_TRUE(cache.ok());
    if (!url.empty()) {
      RemoteTierConfig config;
      config.url = url;
      config.credentials = std::move(credentials);
      config.transferTimeout = timeout;
      config.connectTimeout = std::min(timeout, config.connectTimeout);
      config.warn = [this](const std::string &message) {
        std::lock_guard<std::mutex> lock(warningsMutex_);
        warnings_.push_back(message);
      };
      auto remote = RemoteCache::open(config);
      EXPECT_TRUE(remote.ok()) << remote.status().message();
      (*cache)->setRemote(std::move(*remote));
    }
    return std::move(*cache);
  }

  CacheEntry entry(const std::string &ptx) const {
    CacheEntry entry;
    entry.outputs["ptx"] = ptx;
    entry.outputs["cubin"] = std::string("\x7f"
                                         "ELF\0\x01",
                                         6);
    ToolInvocation invocation;
    invocation.tool = "nvcc";
    invocation.argv = {"nvcc", "-ptx"};
    entry.commands.push_back(invocation);
    entry.dependencies = {header_};
    return entry;
  }
  static fs::file_time_type later() {
    return fs::file_time_type::clock::now() + std::chrono::hours(1);
  }
  static std::string key(const std::string &seed) {
    return CacheKeyBuilder().add("remote-test").add(seed).finish();
  }
  /// The /cas/ names nginx holds.
  std::vector<std::string> blobs() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &file :
         fs::directory_iterator(nginx_.dataDir() / "cas", ec))
      names.push_back(file.path().filename().string());
    return names;
  }
  size_t warningCount() {
    std::lock_guard<std::mutex> lock(warningsMutex_);
    return warnings_.size();
  }
  std::string allWarnings() {
    std::lock_guard<std::mutex> lock(warningsMutex_);
    std::string text;
    for (const std::string &w : warnings_)
      text += w + "\n";
    return text;
  }

  std::optional<TempDir> dir_;
  std::string header_;
  test::NginxServer nginx_;
  std::mutex warningsMutex_;
  std::vector<std::string> warnings_;
};

TEST_F(RemoteCacheTest, WriteBackThenReadThroughOnAnotherRunner) {
  startNginx();
  std::string k = key("shared");
  auto first = runner("a", nginx_.url("rw"));
  EXPECT_FALSE(first->lookup(k).has_value());
  ASSERT_TRUE(first->store(k, entry("// one\n"), later()).ok());
  EXPECT_EQ(first->remote()->stats().uploads, 2u); // blob + manifest

  // What the server holds: our manifest under /ac/<key>, the result under
  // /cas/<its sha256>.
  EXPECT_TRUE(fs::is_regular_file(nginx_.dataDir() / "ac" / k));
  std::vector<std::string> names = blobs();
  ASSERT_EQ(names.size(), 1u);
  auto blob = readFile(nginx_.dataDir() / "cas" / names[0]);
  ASSERT_TRUE(blob.ok());
  EXPECT_EQ(sha256Hex(*blob), names[0]);

  // Another runner with an empty local cache reads it through.
  auto second = runner("b", nginx_.url("rw"));
  auto hit = second->lookup(k);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->outputs, entry("// one\n").outputs);
  EXPECT_EQ(hit->commands[0].argv, entry("").commands[0].argv);
  EXPECT_EQ(second->stats().remoteHits, 1u);
  EXPECT_EQ(second->remote()->stats().hits, 1u);
  // ... and keeps it: the same directory without the server hits locally.
  auto local = runner("b", "");
  EXPECT_TRUE(local->lookup(k).has_value());
  EXPECT_EQ(warningCount(), 0u) << allWarnings();
}

TEST_F(RemoteCacheTest, WriteBackKeepsTheServersOtherCandidates) {
  startNginx();
  std::string k = key("two-headers");
  auto a = runner("a", nginx_.url("rw"));
  EXPECT_FALSE(a->lookup(k).has_value());
  ASSERT_TRUE(a->store(k, entry("// N=1\n"), later()).ok());

  ASSERT_TRUE(writeFileAtomic(header_, "#define N 2\n").ok());
  auto b = runner("b", nginx_.url("rw"));
  EXPECT_FALSE(b->lookup(k).has_value()); // the server's candidate is N=1
  ASSERT_TRUE(b->store(k, entry("// N=2\n"), later()).ok());
  EXPECT_EQ(blobs().size(), 2u);

  ASSERT_TRUE(writeFileAtomic(header_, "#define N 1\n").ok());
  auto c = runner("c", nginx_.url("rw"));
  auto hit = c->lookup(k);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->outputs["ptx"], "// N=1\n");
}

// Runners check the project out at different paths: a dependency recorded
// at a path that does not exist here is looked for at the same place
// relative to the compile's directory, and must have the same contents.
TEST_F(RemoteCacheTest, ReadThroughOnARunnerWithItsCheckoutElsewhere) {
  startNginx();
  std::string k = key("relocated");
  fs::path a = root() / "runner-a" / "src", b = root() / "runner-b" / "src";
  fs::create_directories(a / "include");
  fs::create_directories(b / "include");
  ASSERT_TRUE(writeFileAtomic(a / "include" / "k.h", "#define N 7\n").ok());
  ASSERT_TRUE(writeFileAtomic(b / "include" / "k.h", "#define N 7\n").ok());
  CacheEntry built = entry("// N=7\n");
  built.dependencies = {(a / "include" / "k.h").string()};
  auto first = runner("a", nginx_.url("rw"));
  ASSERT_FALSE(first->lookup(k, a).has_value());
  ASSERT_TRUE(first->store(k, built, later(), a).ok());
  // Runner A's checkout does not exist on runner B.
  fs::rename(root() / "runner-a", root() / "elsewhere");

  auto second = runner("b", nginx_.url("rw"));
  auto hit = second->lookup(k, b);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->outputs["ptx"], "// N=7\n");
  // Kept under runner B's own paths: a local hit from now on.
  auto local = runner("b", "");
  EXPECT_TRUE(local->lookup(k, b).has_value());

  // Different contents at the relocated path: no hit.
  ASSERT_TRUE(writeFileAtomic(b / "include" / "k.h", "#define N 8\n").ok());
  auto third = runner("c", nginx_.url("rw"));
  EXPECT_FALSE(third->lookup(k, b).has_value());
  // Without the compile's directory nothing is relocated.
  ASSERT_TRUE(writeFileAtomic(b / "include" / "k.h", "#define N 7\n").ok());
  auto fourth = runner("d", nginx_.url("rw"));
  EXPECT_FALSE(fourth->lookup(k).has_value());
  EXPECT_TRUE(fourth->lookup(k, b).has_value());
}

TEST_F(RemoteCacheTest, CorruptedBlobIsIgnoredWithAWarning) {
  startNginx();
  std::string k = key("corrupt-blob");
  auto a = runner("a", nginx_.url("rw"));
  ASSERT_FALSE(a->lookup(k).has_value());
  ASSERT_TRUE(a->store(k, entry("// good\n"), later()).ok());
  ASSERT_EQ(blobs().size(), 1u);
  fs::path blob = nginx_.dataDir() / "cas" / blobs()[0];
  auto bytes = readFile(blob);
  ASSERT_TRUE(bytes.ok());
  std::string flipped = *bytes;
  flipped[flipped.size() / 2] ^= 0x20;
  ASSERT_TRUE(writeFileAtomic(blob, flipped).ok());

  auto b = runner("b", nginx_.url("rw"));
  EXPECT_FALSE(b->lookup(k).has_value());
  EXPECT_EQ(b->remote()->stats().corrupt, 1u);
  ASSERT_EQ(warningCount(), 1u);
  EXPECT_NE(allWarnings().find("corrupted"), std::string::npos)
      << allWarnings();
  // The build goes on: the tier is still on, and the rebuilt result
  // replaces the bad blob.
  EXPECT_FALSE(b->remote()->stats().readsOff);
  ASSERT_TRUE(b->store(k, entry("// good\n"), later()).ok());
  auto c = runner("c", nginx_.url("rw"));
  EXPECT_TRUE(c->lookup(k).has_value());
}

TEST_F(RemoteCacheTest, CorruptedManifestIsIgnoredWithAWarning) {
  startNginx();
  std::string k = key("corrupt-manifest");
  auto a = runner("a", nginx_.url("rw"));
  ASSERT_FALSE(a->lookup(k).has_value());
  ASSERT_TRUE(a->store(k, entry("// good\n"), later()).ok());
  fs::path manifest = nginx_.dataDir() / "ac" / k;
  fs::resize_file(manifest, fs::file_size(manifest) - 5);

  auto b = runner("b", nginx_.url("rw"));
  EXPECT_FALSE(b->lookup(k).has_value());
  EXPECT_EQ(b->remote()->stats().corrupt, 1u);
  EXPECT_NE(allWarnings().find("/ac/" + k), std::string::npos) << allWarnings();
}

TEST_F(RemoteCacheTest, UnreachableServerWarnsOnceThenLocalOnly) {
  std::string url =
      "http://127.0.0.1:" + std::to_string(test::freeLoopbackPort()) + "/c";
  auto a = runner("a", url);
  std::string k = key("down");
  auto start = Clock::now();
  EXPECT_FALSE(a->lookup(k).has_value());
  ASSERT_TRUE(a->store(k, entry("// local\n"), later()).ok());
  EXPECT_FALSE(a->lookup(key("other")).has_value());
  // Refused connections answer at once; the bound only catches retries or
  // waits, so it is wide enough for a loaded machine's fsync.
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  ASSERT_EQ(warningCount(), 1u) << allWarnings();
  EXPECT_NE(allWarnings().find("local cache only"), std::string::npos);
  EXPECT_TRUE(a->remote()->stats().readsOff);
  // The local tier works as ever.
  EXPECT_TRUE(a->lookup(k).has_value());
}

TEST_F(RemoteCacheTest, HangingServerIsBoundedByTheTimeout) {
  HangingServer server;
  auto a = runner("a", server.url(), {}, std::chrono::milliseconds(400));
  std::string k = key("hang");
  auto start = Clock::now();
  EXPECT_FALSE(a->lookup(k).has_value());
  auto firstCall = Clock::now() - start;
  EXPECT_GE(firstCall, std::chrono::milliseconds(350));
  // The server never answers: any finite bound shows the timeout ended the
  // call; 10 s leaves room for a loaded machine.
  EXPECT_LT(firstCall, std::chrono::seconds(10));
  ASSERT_EQ(warningCount(), 1u);
  EXPECT_NE(allWarnings().find("no answer within 0.4 s"), std::string::npos)
      << allWarnings();
  // Off for the rest of the build: no further connection to the server
  // (hence no further waits).
  size_t tried = server.connections();
  EXPECT_GE(tried, 1u);
  ASSERT_TRUE(a->store(k, entry("// local\n"), later()).ok());
  EXPECT_FALSE(a->lookup(key("next")).has_value());
  EXPECT_EQ(server.connections(), tried);
  EXPECT_EQ(warningCount(), 1u);
  EXPECT_TRUE(a->lookup(k).has_value());
}

TEST_F(RemoteCacheTest, ServerRefusingWritesIsStillRead) {
  startNginx();
  std::string k = key("read-only");
  auto writer = runner("w", nginx_.url("rw"));
  ASSERT_FALSE(writer->lookup(k).has_value());
  ASSERT_TRUE(writer->store(k, entry("// shared\n"), later()).ok());

  for (const char *location : {"ro", "deny"}) { // 405, 403
    SCOPED_TRACE(location);
    warnings_.clear();
    auto reader = runner(std::string("r-") + location, nginx_.url(location));
    EXPECT_TRUE(reader->lookup(k).has_value());
    std::string k2 = key(std::string("new-") + location);
    EXPECT_FALSE(reader->lookup(k2).has_value());
    ASSERT_TRUE(reader->store(k2, entry("// mine\n"), later()).ok());
    ASSERT_TRUE(reader->store(key("more"), entry("// x\n"), later()).ok());
    RemoteTierStats stats = reader->remote()->stats();
    EXPECT_TRUE(stats.writesOff);
    EXPECT_FALSE(stats.readsOff);
    EXPECT_EQ(stats.uploads, 0u);
    ASSERT_EQ(warningCount(), 1u) << allWarnings();
    EXPECT_NE(allWarnings().find("refuses uploads"), std::string::npos);
    EXPECT_NE(allWarnings().find(std::string("HTTP ") +
                                 (location[0] == 'r' ? "405" : "403")),
              std::string::npos)
        << allWarnings();
    EXPECT_TRUE(reader->lookup(k).has_value()); // still reading
  }
}

TEST_F(RemoteCacheTest, CredentialsFromTheEnvironment) {
  startNginx();
  std::string k = key("auth");
  {
    ScopedEnv user("KB_REMOTE_CACHE_USER", test::kNginxUser);
    ScopedEnv password("KB_REMOTE_CACHE_PASSWORD", test::kNginxPassword);
    auto credentials = remoteCredentialsFromEnvironment();
    ASSERT_TRUE(credentials.ok()) << credentials.status().message();
    EXPECT_EQ(credentials->source, RemoteCredentials::Source::Environment);
    auto a = runner("a", nginx_.url("auth"), *credentials);
    ASSERT_FALSE(a->lookup(k).has_value());
    ASSERT_TRUE(a->store(k, entry("// secret\n"), later()).ok());
    EXPECT_EQ(a->remote()->stats().uploads, 2u);
    auto b = runner("b", nginx_.url("auth"), *credentials);
    EXPECT_TRUE(b->lookup(k).has_value());
    EXPECT_EQ(warningCount(), 0u) << allWarnings();
  }
  // Without credentials (and no netrc) the server says 401: one warning
  // that names what to set, then local only.
  ScopedEnv home("HOME", root().c_str());
  ScopedEnv netrc("NETRC", nullptr);
  auto none = remoteCredentialsFromEnvironment();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->source, RemoteCredentials::Source::None);
  auto c = runner("c", nginx_.url("auth"), *none);
  EXPECT_FALSE(c->lookup(k).has_value());
  ASSERT_EQ(warningCount(), 1u);
  EXPECT_NE(allWarnings().find("HTTP 401"), std::string::npos);
  EXPECT_NE(allWarnings().find("KB_REMOTE_CACHE_USER"), std::string::npos);
}

TEST_F(RemoteCacheTest, CredentialsFromANetrcFile) {
  startNginx();
  std::string k = key("netrc");
  fs::path netrcFile = root() / "netrc";
  std::ofstream(netrcFile) << "machine 127.0.0.1 login " << test::kNginxUser
                           << " password " << test::kNginxPassword << "\n";
  ScopedEnv user("KB_REMOTE_CACHE_USER", nullptr);
  ScopedEnv password("KB_REMOTE_CACHE_PASSWORD", nullptr);
  ScopedEnv netrc("NETRC", netrcFile.c_str());
  auto credentials = remoteCredentialsFromEnvironment();
  ASSERT_TRUE(credentials.ok()) << credentials.status().message();
  EXPECT_EQ(credentials->source, RemoteCredentials::Source::Netrc);
  auto a = runner("a", nginx_.url("auth"), *credentials);
  ASSERT_FALSE(a->lookup(k).has_value());
  ASSERT_TRUE(a->store(k, entry("// via netrc\n"), later()).ok());
  auto b = runner("b", nginx_.url("auth"), *credentials);
  EXPECT_TRUE(b->lookup(k).has_value());
  EXPECT_EQ(warningCount(), 0u) << allWarnings();

  // ~/.netrc is the default when NETRC is unset.
  fs::rename(netrcFile, root() / ".netrc");
  ScopedEnv home("HOME", root().c_str());
  ScopedEnv noNetrc("NETRC", nullptr);
  auto fromHome = remoteCredentialsFromEnvironment();
  ASSERT_TRUE(fromHome.ok());
  EXPECT_EQ(fromHome->netrcFile, root() / ".netrc");
  auto c = runner("c", nginx_.url("auth"), *fromHome);
  EXPECT_TRUE(c->lookup(k).has_value());
}

TEST(RemoteCacheOpenTest, RefusesUrlsWithCredentialsOrOtherSchemes) {
  for (const char *url :
       {"http://kb:s3cret@cache:8080/x", "https://token@cache/", "ftp://cache/",
        "file:///tmp/cache", "cache:8080", "http:///x", "http://cache/x?y=1"}) {
    auto opened = RemoteCache::open({url});
    EXPECT_FALSE(opened.ok()) << url;
    // Credentials are refused by policy (a usage error from any source).
    EXPECT_EQ(opened.status().code(),
              std::string(url).find('@') == std::string::npos
                  ? StatusCode::InvalidArgument
                  : StatusCode::PermissionDenied)
        << url;
  }
  auto userinfo = RemoteCache::open({"http://kb:s3cret@cache/"});
  EXPECT_NE(userinfo.status().message().find("KB_REMOTE_CACHE_USER"),
            std::string::npos);
  EXPECT_TRUE(RemoteCache::open({"http://127.0.0.1:9/prefix/"}).ok());
  EXPECT_TRUE(RemoteCache::open({"https://cache.example.com"}).ok());
}

} // namespace
} // namespace kb::toolchains

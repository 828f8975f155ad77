//===- toolchains/remote_tier_test.cpp ------------------------------------===//
//
// The remote tier's configuration (no server needed): URLs, credentials and
// the timeout from the environment. The tier itself is tested against nginx
// in remote_cache_test.cpp.
//
//===----------------------------------------------------------------------===//

#include "common/file_util.h"
#include "toolchains/remote_tier.h"

#include "common/test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

using kb::testing::ScopedEnv;

TEST(RemoteTierTest, UrlsMustBePlainHttpWithoutCredentials) {
  for (const char *url : {"http://cache:8080", "https://cache.example.com/kb/",
                          "http://127.0.0.1:9092/team"})
    EXPECT_TRUE(checkRemoteCacheUrl(url).ok()) << url;
  for (const char *url :
       {"", "cache:8080", "ftp://cache/", "file:///tmp/c", "http://",
        "http:///x", "http://:80/x", "http://c/x?token=1", "http://c/x#y",
        "http://c/a b", "http://user@cache/", "https://u:p@cache:1/x"}) {
    Status status = checkRemoteCacheUrl(url);
    // Credentials are refused by policy (a usage error from any source).
    EXPECT_EQ(status.code(), std::string(url).find('@') == std::string::npos
                                 ? StatusCode::InvalidArgument
                                 : StatusCode::PermissionDenied)
        << url;
    // Shown as given, but for what may be a secret (below).
    if (std::string(url).find_first_of("@?#") == std::string::npos)
      EXPECT_NE(status.message().find(std::string("`") + url + "`"),
                std::string::npos)
          << status.message();
  }
  // The message names the URL without repeating the password.
  Status secret = checkRemoteCacheUrl("https://ci:hunter2@cache:1/x");
  EXPECT_NE(secret.message().find("`https://***@cache:1/x`"), std::string::npos)
      << secret.message();
  EXPECT_EQ(secret.message().find("hunter2"), std::string::npos);
  Status userinfo = checkRemoteCacheUrl("http://kb:pw@cache/");
  EXPECT_NE(userinfo.message().find("KB_REMOTE_CACHE_USER"), std::string::npos)
      << userinfo.message();
  EXPECT_NE(userinfo.message().find("netrc"), std::string::npos);
  // An `@` after the host is part of the path, not user information.
  EXPECT_TRUE(checkRemoteCacheUrl("http://cache/team@2").ok());
  // Nor is a query value (a token) or a fragment repeated.
  Status token = checkRemoteCacheUrl(
      "https://cache/ac?token=s3cr3t&region=eu&bare#frag-secret");
  EXPECT_NE(
      token.message().find("`https://cache/ac?token=***&region=***&***#***`"),
      std::string::npos)
      << token.message();
  for (const char *secretPart : {"s3cr3t", "eu", "bare", "frag-secret"})
    EXPECT_EQ(token.message().find(secretPart), std::string::npos)
        << secretPart << " in " << token.message();
  Status both = checkRemoteCacheUrl("https://u:pw@cache?key=k3y");
  EXPECT_EQ(both.message().find("pw"), std::string::npos) << both.message();
  EXPECT_EQ(both.message().find("k3y"), std::string::npos) << both.message();
}

TEST(RemoteTierTest, CredentialsComeFromTheEnvironmentOrNetrc) {
  auto dir = TempDir::create(fs::temp_directory_path(), "kb-tier-test-");
  ASSERT_TRUE(dir.ok());
  ScopedEnv home("HOME", dir->path().c_str());
  ScopedEnv netrc("NETRC", nullptr);
  {
    ScopedEnv user("KB_REMOTE_CACHE_USER", "ci");
    ScopedEnv password("KB_REMOTE_CACHE_PASSWORD", "pw");
    auto credentials = remoteCredentialsFromEnvironment();
    ASSERT_TRUE(credentials.ok());
    EXPECT_EQ(credentials->source, RemoteCredentials::Source::Environment);
    EXPECT_EQ(credentials->user, "ci");
    EXPECT_EQ(credentials->password, "pw");
  }
  {
    ScopedEnv user("KB_REMOTE_CACHE_USER", "ci");
    ScopedEnv password("KB_REMOTE_CACHE_PASSWORD", nullptr);
    auto half = remoteCredentialsFromEnvironment();
    ASSERT_FALSE(half.ok());
    EXPECT_NE(half.status().message().find("KB_REMOTE_CACHE_PASSWORD is not"),
              std::string::npos)
        << half.status().message();
  }
  auto none = remoteCredentialsFromEnvironment();
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->source, RemoteCredentials::Source::None);

  std::ofstream(dir->path() / ".netrc") << "machine cache login a password b\n";
  auto fromHome = remoteCredentialsFromEnvironment();
  ASSERT_TRUE(fromHome.ok());
  EXPECT_EQ(fromHome->source, RemoteCredentials::Source::Netrc);
  EXPECT_EQ(fromHome->netrcFile, dir->path() / ".netrc");

  ScopedEnv missing("NETRC", (dir->path() / "nope").c_str());
  auto bad = remoteCredentialsFromEnvironment();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("NETRC"), std::string::npos);
}

TEST(RemoteTierTest, TimeoutFromTheEnvironment) {
  RemoteTierConfig config;
  {
    ScopedEnv unset("KB_REMOTE_CACHE_TIMEOUT", nullptr);
    ASSERT_TRUE(applyRemoteTimeoutFromEnvironment(config).ok());
    EXPECT_EQ(config.transferTimeout, std::chrono::seconds(10));
  }
  {
    ScopedEnv timeout("KB_REMOTE_CACHE_TIMEOUT", "0.5");
    ASSERT_TRUE(applyRemoteTimeoutFromEnvironment(config).ok());
    EXPECT_EQ(config.transferTimeout, std::chrono::milliseconds(500));
    EXPECT_EQ(config.connectTimeout, std::chrono::milliseconds(500));
  }
  for (const char *text : {"0", "-1", "abc", "1s", "601", "nan", "inf"}) {
    ScopedEnv timeout("KB_REMOTE_CACHE_TIMEOUT", text);
    Status status = applyRemoteTimeoutFromEnvironment(config);
    EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << text;
    EXPECT_NE(status.message().find("(0, 600]"), std::string::npos);
  }
}

TEST(RemoteTierTest, AreasUseTheBazelLayout) {
  EXPECT_STREQ(pathSegment(RemoteArea::ActionCache), "ac");
  EXPECT_STREQ(pathSegment(RemoteArea::ContentStore), "cas");
}

} // namespace
} // namespace kb::toolchains

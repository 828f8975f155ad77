//===- tests/cli/remote_cache_cli_test.cpp - `build --remote-cache` -------===//
//
// The remote cache through the built kernel-bench against a real nginx
// (tests/support/nginx_server.h): a second runner with an empty local cache
// takes every job from the server; a dead server costs a warning, not the
// build; credentials in a URL are refused wherever the URL comes from. The
// tier's failure modes in detail are toolchains/remote_cache_test.cpp's.
// Skips without nginx or glslc/spirv-val.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"
#include "tests/support/nginx_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kGood = fs::path(KB_SOURCE_DIR) / "tests/cli/fixtures/good";

class RemoteCacheCliTest : public kb::test::KernelBenchTest {
protected:
  RemoteCacheCliTest()
      : KernelBenchTest("kb_remote_cli_test", std::chrono::seconds(300)) {}

  void startNginx() {
    if (!kb::test::NginxServer::available())
      GTEST_SKIP() << kb::test::kNginxBinary
                   << " is not installed (Debian package nginx)";
    std::string why = nginx_.start(tmp_ / "nginx");
    ASSERT_TRUE(why.empty()) << why;
  }
  /// The Vulkan job of tests/cli/fixtures/good (glslc is quick), with no
  /// remote cache from the caller's environment.
  kb::test::CliRun buildGood(std::vector<std::string> extra,
                             kb::test::EnvVars env = {},
                             const fs::path &project = kGood) {
    extra.insert(extra.begin(), {"--target", "vulkan:1.2"});
    env.insert(env.begin(), {"KB_REMOTE_CACHE", ""});
    return buildProject(project, std::move(extra), std::move(env));
  }

  kb::test::NginxServer nginx_;
};

TEST_F(RemoteCacheCliTest, SecondRunnerTakesEveryJobFromTheServer) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  startNginx();
  std::string url = nginx_.url("rw");
  kb::test::CliRun first = buildGood({"--remote-cache", url});
  ASSERT_EQ(first.exitCode, 0) << first.output;
  EXPECT_THAT(first.output, HasSubstr("0 cached (0 local, 0 remote)"));
  nlohmann::json remote = buildJson()["options"]["cache"]["remote"];
  EXPECT_EQ(remote["url"], url);
  EXPECT_EQ(remote["uploads"], 2); // the result and its manifest
  EXPECT_EQ(remote["hits"], 0);
  EXPECT_TRUE(remote["warnings"].empty()) << remote.dump();
  std::string spv = kb::test::readFile(out_ / "kernels/scale/vulkan1.2.spv");
  ASSERT_FALSE(spv.empty());

  // Another runner: its own checkout at another path, empty local cache
  // and output, the URL from the environment as a CI system would set it.
  fs::path checkout = tmp_ / "runner2" / "good";
  fs::create_directories(checkout.parent_path());
  fs::copy(kGood, checkout, fs::copy_options::recursive);
  cache_ = tmp_ / "cache2";
  out_ = tmp_ / "out2";
  kb::test::CliRun second = buildGood({}, {{"KB_REMOTE_CACHE", url}}, checkout);
  ASSERT_EQ(second.exitCode, 0) << second.output;
  nlohmann::json report = buildJson();
  EXPECT_EQ(report["totals"]["cache_hits"], 1);
  EXPECT_EQ(report["totals"]["remote_cache_hits"], 1);
  EXPECT_EQ(report["jobs"][0]["cache"], "hit");
  // The summary says where the hits came from.
  EXPECT_THAT(second.output, HasSubstr("1 cached (0 local, 1 remote)"));
  EXPECT_EQ(report["options"]["cache"]["remote"]["hits"], 1);
  EXPECT_EQ(report["options"]["cache"]["remote"]["uploads"], 0);
  EXPECT_EQ(kb::test::readFile(out_ / "kernels/scale/vulkan1.2.spv"), spv);
  EXPECT_THAT(second.output, Not(HasSubstr("warning")));
}

TEST_F(RemoteCacheCliTest, DeadServerIsOneWarningNotAFailure) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  std::string url =
      "http://127.0.0.1:" + std::to_string(kb::test::freeLoopbackPort()) +
      "/cache";
  kb::test::CliRun run = buildGood({"--remote-cache", url});
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("warning: remote cache: GET " + url));
  EXPECT_THAT(run.output, HasSubstr("local cache only"));
  nlohmann::json remote = buildJson()["options"]["cache"]["remote"];
  EXPECT_EQ(remote["reads_off"], true);
  EXPECT_EQ(remote["warnings"].size(), 1u);
  // The local cache still took the result.
  kb::test::CliRun again = buildGood({"--remote-cache", url});
  ASSERT_EQ(again.exitCode, 0) << again.output;
  EXPECT_EQ(buildJson()["totals"]["cache_hits"], 1);

  // --no-remote-cache: not even asked.
  kb::test::CliRun off =
      buildGood({"--no-remote-cache"}, {{"KB_REMOTE_CACHE", url}});
  ASSERT_EQ(off.exitCode, 0) << off.output;
  EXPECT_THAT(off.output, Not(HasSubstr("warning")));
  EXPECT_TRUE(buildJson()["options"]["cache"]["remote"].is_null());
}

TEST_F(RemoteCacheCliTest, CredentialsInTheUrlAreRefusedWhereverItComesFrom) {
  kb::test::CliRun flag =
      buildGood({"--remote-cache", "http://ci:hunter2@cache:8080/kb"});
  EXPECT_EQ(flag.exitCode, 2) << flag.output;
  EXPECT_THAT(flag.output, HasSubstr("KB_REMOTE_CACHE_USER"));

  kb::test::CliRun env =
      buildGood({}, {{"KB_REMOTE_CACHE", "http://ci:hunter2@cache/"}});
  // A usage error wherever the URL comes from (docs/cli.md's table).
  EXPECT_EQ(env.exitCode, 2) << env.output;
  EXPECT_THAT(env.output, HasSubstr("KB_REMOTE_CACHE: remote cache URL"));
  EXPECT_THAT(env.output, HasSubstr("netrc"));

  fs::path project = tmp_ / "project";
  fs::create_directories(project);
  std::ofstream(project / "workbench.toml")
      << "[project]\nname = \"p\"\nkernels = [\"" << (kGood / "scale").string()
      << "\"]\ntargets = [\"vulkan:1.2\"]\n\n[build]\n"
      << "remote_cache = \"https://ci:hunter2@cache/\"\n";
  kb::test::CliRun toml = run({"build", project.string(), "-o", out_.string(),
                               "--cache-dir", cache_.string()},
                              {{"KB_REMOTE_CACHE", ""}});
  EXPECT_EQ(toml.exitCode, 2) << toml.output;
  EXPECT_THAT(toml.output, HasSubstr("workbench.toml:7"));
  EXPECT_THAT(toml.output, HasSubstr("[build] remote_cache"));
  // Nor is the password repeated anywhere.
  for (const kb::test::CliRun *r : {&flag, &env, &toml})
    EXPECT_THAT(r->output, Not(HasSubstr("hunter2")));

  kb::test::CliRun scheme = buildGood({"--remote-cache", "ftp://cache/"});
  EXPECT_EQ(scheme.exitCode, 2) << scheme.output;
}

} // namespace

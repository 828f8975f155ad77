//===- tests/e2e/profile_test.cpp - bench --profile on lavapipe -----------===//
//
// `bench --profile` runs each benchmark's variants once after a warm-up,
// each inside the labels BENCHMARK / VARIANT and with nothing else in that
// submission. Checked by what the Vulkan driver was given: a recording layer
// (tests/support/vulkan_call_recorder) writes what every submission ran.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"
#include "tests/support/vulkan_call_recorder/recording_layer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kProject =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/standalone";

using Submission = std::vector<std::string>;

/// The recorder's file as submissions, each the lines of its commands.
std::vector<Submission> readSubmissions(const fs::path &file) {
  std::vector<Submission> submissions;
  std::istringstream in(kb::test::readFile(file));
  for (std::string line; std::getline(in, line);) {
    if (line == "submit")
      submissions.emplace_back();
    else if (!submissions.empty())
      submissions.back().push_back(line);
  }
  return submissions;
}

bool labeled(const Submission &s) {
  for (const std::string &line : s)
    if (line.rfind("begin ", 0) == 0)
      return true;
  return false;
}

class ProfileTest : public kb::test::KernelBenchTest {
protected:
  ProfileTest() : KernelBenchTest("kb_profile_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    REQUIRE_TOOL("glslc");
    kb::test::CliRun built = buildProject(kProject);
    ASSERT_EQ(built.exitCode, 0) << built.output;
  }

  /// `bench --profile` under the recording layer; its submissions.
  kb::test::CliRun profile(std::vector<Submission> &submissions) {
    fs::path log = tmp_ / "calls.txt";
    kb::test::CliRun r = run(
        {"bench", out_.string(), "--profile", "--device", "vulkan", "-o",
         (tmp_ / "results").string()},
        kb::test::withRecordingLayer({{"KB_VK_RECORD_CALLS", log.string()}}));
    submissions = readSubmissions(log);
    return r;
  }
};

TEST_F(ProfileTest, EachVariantRunsOnceInsideItsLabelsWithNothingElse) {
  std::vector<Submission> submissions;
  kb::test::CliRun r = profile(submissions);
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("profile: each benchmark's variants run "
                                  "once after a warm-up"));
  EXPECT_THAT(r.output, HasSubstr("profiled (correct)"));
  ASSERT_FALSE(submissions.empty()) << "the recording layer saw nothing";

  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  EXPECT_EQ(report["settings"]["profile"], true);
  size_t expected = 0;
  for (const nlohmann::json &b : report["benchmarks"]) {
    std::string bench = b["name"];
    ASSERT_EQ(b["status"], "ok") << bench;
    for (const nlohmann::json &v : b["variants"]) {
      SCOPED_TRACE(bench + " / " + v["name"].get<std::string>());
      EXPECT_TRUE(v["timings"].empty());
      ++expected;
      // Exactly one submission carries this pair of labels, and it holds
      // the variant's dispatch and nothing but: no flush, no timestamp.
      size_t found = 0;
      for (const Submission &s : submissions) {
        if (s.size() < 2 || s[0] != "begin " + bench ||
            s[1] != "begin " + v["name"].get<std::string>())
          continue;
        ++found;
        ASSERT_EQ(s.size(), 5u) << testing::PrintToString(s);
        EXPECT_EQ(s[2].rfind("dispatch ", 0), 0u) << s[2];
        EXPECT_EQ(s[3], "end");
        EXPECT_EQ(s[4], "end");
      }
      EXPECT_EQ(found, 1u);
    }
  }
  // Both fixture kernels ran: one with its reference, one alone.
  EXPECT_EQ(expected, 3u);
  size_t labeledSubmissions = 0;
  for (const Submission &s : submissions)
    labeledSubmissions += labeled(s);
  EXPECT_EQ(labeledSubmissions, expected);
}

TEST_F(ProfileTest, ProfileAndSanitizeAreOneOrTheOther) {
  kb::test::CliRun r = run({"bench", out_.string(), "--profile", "--sanitize"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--sanitize excludes --profile"));
}

} // namespace

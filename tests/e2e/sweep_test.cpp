//===- tests/e2e/sweep_test.cpp - Problem-size sweeps on lavapipe ---------===//
//
// The bundled float4 copy kernel (kernels/copy) with `[bench] sweep = { n =
// { pow2 = [1024, 16777216] } }`: `build` makes one benchmark per size (15),
// `bench --sweep n=1024:16384` runs five of them (the whole range takes
// about 16 s on lavapipe; bench/sweep_copy/sweep_copy.sh runs it), bench.json
// keeps each one's size, report.md and report.csv have a row per size, and
// report.html draws time and GB/s against n with a point per size per
// variant (rendered in headless Chromium). A bad sweep table and a bad
// --sweep are refused with nothing written.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <tuple>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kFixture = kSourceDir / "tests/e2e/fixtures/sweep";

class SweepTest : public kb::test::KernelBenchTest {
protected:
  SweepTest() : KernelBenchTest("kb_sweep_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    REQUIRE_TOOL("glslc");
  }
};

/// How many points report.html draws per (variant, metric, size).
std::map<std::tuple<std::string, std::string, int64_t>, int>
pointsOf(const std::string &html) {
  std::map<std::tuple<std::string, std::string, int64_t>, int> points;
  static const std::regex point(
      R"re(<circle class="sweep-point" data-variant="(\w+)" data-metric="(\w+)" data-x="(\d+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), point);
       it != std::sregex_iterator(); ++it)
    ++points[{(*it)[1], (*it)[2], std::stoll((*it)[3])}];
  return points;
}

TEST_F(SweepTest, ACopySweepIsOneBenchmarkPerSizeDrawnAgainstTheSize) {
  kb::test::CliRun built = buildProject(kFixture);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  EXPECT_THAT(built.output, HasSubstr("15 benchmarks"));
  for (int64_t n = 1024; n <= 16777216; n *= 2)
    EXPECT_TRUE(fs::exists(out_ / "standalone" /
                           ("copy-n" + std::to_string(n)) / "program.kbm"))
        << n;

  fs::path results = tmp_ / "results";
  kb::test::CliRun r =
      run({"bench", out_.string(), "--device", "vulkan", "--quick", "--sweep",
           "n=1024:16384", "-o", results.string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;

  const std::vector<int64_t> sizes = {1024, 2048, 4096, 8192, 16384};
  nlohmann::json report =
      nlohmann::json::parse(kb::test::readFile(results / "bench.json"));
  ASSERT_EQ(report.at("benchmarks").size(), sizes.size());
  std::set<int64_t> seen;
  for (const nlohmann::json &b : report.at("benchmarks")) {
    const nlohmann::json &sweep = b.at("sweep");
    EXPECT_EQ(sweep.at("kernel"), "copy");
    int64_t n = sweep.at("values").at("n").get<int64_t>();
    seen.insert(n);
    EXPECT_EQ(b.at("name"),
              "copy-n" + std::to_string(n) + "_" + std::to_string(n) + "x1x1");
    EXPECT_EQ(b.at("status"), "ok") << b.dump(2);
  }
  EXPECT_EQ(seen, std::set<int64_t>(sizes.begin(), sizes.end()));

  std::string md = kb::test::readFile(results / "report.md");
  std::string csv = kb::test::readFile(results / "report.csv");
  std::string html = kb::test::readFile(results / "report.html");
  for (int64_t n : sizes) {
    std::string name = "copy-n" + std::to_string(n) + "_";
    EXPECT_THAT(md, HasSubstr(name)) << n;
    EXPECT_THAT(csv, HasSubstr(",n=" + std::to_string(n) + "\r\n")) << n;
  }
  // Exactly one point per size per variant, in time and in GB/s.
  std::map<std::tuple<std::string, std::string, int64_t>, int> expected;
  for (int64_t n : sizes)
    for (const char *variant : {"candidate", "reference"})
      for (const char *metric : {"time", "gbps"})
        expected[{variant, metric, n}] = 1;
  EXPECT_EQ(pointsOf(html), expected);

  kb::test::CliRun check = kb::test::checkHtmlRender(
      results / "report.html", tmp_ / "chromium",
      {"--dom-contains", "class=\"sweep-chart\"", "--dom-contains",
       "class=\"sweep-point\"", "--dom-contains", "Against the problem size",
       "--width", "1280", "--width", "390"});
  if (check.exitCode == 77)
    GTEST_SKIP() << check.output;
  EXPECT_EQ(check.exitCode, 0) << check.output;
}

TEST_F(SweepTest, ABadSweepIsRefusedWithNothingWritten) {
  kb::test::CliRun built = buildProject(kFixture);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  struct Case {
    std::string spec, message;
  };
  for (const Case &c : std::vector<Case>{
           {"n=16384:1024", "--sweep `n=16384:1024`: expected NAME=LO:HI"},
           {"n", "--sweep `n`: expected NAME=LO:HI"},
           {"m=1:2", "no benchmark of this build sweeps `m`; swept: n"}}) {
    SCOPED_TRACE(c.spec);
    fs::path results = tmp_ / "refused";
    kb::test::CliRun r = run({"bench", out_.string(), "--quick", "--sweep",
                              c.spec, "-o", results.string()});
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message));
    EXPECT_FALSE(fs::exists(results));
  }
}

TEST_F(SweepTest, ABadSweepTableIsALocatedBuildError) {
  fs::path project = tmp_ / "project";
  fs::copy(kFixture, project, fs::copy_options::recursive);
  fs::path manifest = project / "copy/kernel.toml";
  kb::test::replaceInFile(
      manifest, "\"../../../../../kernels/copy/copy.comp\"",
      "\"" + (kSourceDir / "kernels/copy/copy.comp").string() + "\"");
  kb::test::replaceInFile(manifest, "pow2 = [1024, 16777216]",
                          "pow2 = [1000, 16777216]");
  kb::test::CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("copy/kernel.toml:"));
  EXPECT_THAT(r.output,
              HasSubstr("`bench.sweep.n.pow2`: expected [lo, hi], two powers "
                        "of two with lo <= hi"));
  EXPECT_FALSE(fs::exists(out_ / "standalone"));
}

} // namespace

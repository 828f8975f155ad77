//===- tests/e2e/roofline_test.cpp - The quickstart under its roofline ----===//
//
// `bench` on the quickstart, on lavapipe: both ceilings are measured (the
// copy bandwidth and the FMA throughput) and recorded in bench.json; the
// bundled kernels declare their FLOPs (matmul, softmax, reduction, saxpy —
// over the dispatch's own constants, evaluated per dispatch), so each of
// their benchmarks is a point on report.html's roofline, and the terminal
// says which ceiling each is nearer. Rendered in headless Chromium.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;

class RooflineTest : public kb::test::KernelBenchTest {
protected:
  RooflineTest() : KernelBenchTest("kb_roofline_test") {}
};

TEST_F(RooflineTest, TheQuickstartsBenchmarksAreOnTheRoofline) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  REQUIRE_TOOL("glslc");
  kb::test::CliRun built = buildProject(kSourceDir / "examples/quickstart",
                                        {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  fs::path results = tmp_ / "results";
  fs::path cache = tmp_ / "cache";
  // Each kernel's benchmark once (not the whole program, not the second
  // reduction size), cold only, one seeded input set: about 20 s.
  kb::test::CliRun r = run({"bench", out_.string(), "--device", "vulkan",
                            "--quick", "--cold", "--seeds", "1", "--filter",
                            "^(saxpy|softmax|reduce_sum_1048576|matmul)", "-o",
                            results.string()},
                           {{"KB_CACHE_DIR", cache.string()}});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json report =
      nlohmann::json::parse(kb::test::readFile(results / "bench.json"));
  const nlohmann::json &device = report.at("device");
  ASSERT_TRUE(device.at("peak_copy_gbps").is_number()) << device.dump(2);
  ASSERT_TRUE(device.at("peak_fma_gflops").is_number()) << device.dump(2);
  EXPECT_GT(device.at("peak_fma_gflops").get<double>(), 0.1);

  // Every benchmark of a kernel that declares FLOPs has them, and a bound.
  std::set<std::string> onTheRoofline;
  for (const nlohmann::json &b : report.at("benchmarks")) {
    std::string name = b.at("name").get<std::string>();
    for (const nlohmann::json &v : b.at("variants"))
      for (const nlohmann::json &t : v.at("timings"))
        if (t.at("derived").contains("bound"))
          onTheRoofline.insert(name.substr(0, name.rfind('_')));
  }
  for (const char *kernel : {"matmul_tiled", "softmax", "reduce_sum", "saxpy"})
    EXPECT_TRUE(onTheRoofline.count(kernel)) << kernel << "\n" << r.output;
  // The matmul is compute-bound at 85 FLOP/byte on any device whose ridge
  // point is below that; saxpy (1/6 FLOP/byte) is memory-bound on all.
  EXPECT_THAT(r.output, HasSubstr("saxpy_1048576x1x1/candidate/cold: 0.167 "
                                  "FLOP/byte, memory-bound: "));
  EXPECT_THAT(r.output, HasSubstr("roofline: "));
  EXPECT_THAT(r.output, HasSubstr("-bound: "));

  std::string html = kb::test::readFile(results / "report.html");
  EXPECT_THAT(html, HasSubstr("measured FMA peak"));
  EXPECT_THAT(html, HasSubstr("<polyline class=\"ceiling\""));
  size_t points = 0;
  for (size_t at = html.find("class=\"roofline-point\"");
       at != std::string::npos;
       at = html.find("class=\"roofline-point\"", at + 1))
    ++points;
  EXPECT_GE(points, onTheRoofline.size());

  kb::test::CliRun check =
      kb::test::checkHtmlRender(results / "report.html", tmp_ / "chromium",
                                {"--dom-contains", "class=\"roofline\"",
                                 "--width", "1280", "--width", "390"});
  if (check.exitCode == 77)
    GTEST_SKIP() << check.output;
  EXPECT_EQ(check.exitCode, 0) << check.output;
}

} // namespace

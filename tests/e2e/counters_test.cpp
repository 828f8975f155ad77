//===- tests/e2e/counters_test.cpp - bench --counters ---------------------===//
//
// `bench --counters` end to end. On lavapipe: the benchmarks are timed as
// usual and every variant says why it has no counters (Vulkan has none), in
// the table, bench.json and report.md. On a CUDA host: every variant has
// its counters from CUPTI, or the run says why the host refuses them (a
// driver that keeps counters from non-administrators), and the test skips
// with that reason. CUPTI's protocol itself is checked against recording
// fakes in runtime/hal/drivers/cuda/cupti_session_test.cpp and
// runtime/bench/bench_cuda_protocol_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

class CountersTest : public kb::test::KernelBenchTest {
protected:
  CountersTest() : KernelBenchTest("kb_counters_test") {}

  kb::test::CliRun counters(const std::string &device) {
    return run({"bench", out_.string(), "--counters", "--quick", "--device",
                device, "-o", (tmp_ / "results").string()});
  }
};

TEST_F(CountersTest, OnVulkanEveryVariantIsTimedAndSaysWhyItHasNoCounters) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  REQUIRE_TOOL("glslc");
  kb::test::CliRun built =
      buildProject(fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/standalone");
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun r = counters("vulkan");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("counters: skipped: hardware counters need "
                                  "the CUDA driver and NVIDIA's CUPTI"));
  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  EXPECT_EQ(report["settings"]["counters"], true);
  size_t variants = 0;
  for (const nlohmann::json &b : report["benchmarks"]) {
    ASSERT_EQ(b["status"], "ok") << b.dump();
    for (const nlohmann::json &v : b["variants"]) {
      ++variants;
      EXPECT_FALSE(v["timings"].empty()) << "still timed";
      EXPECT_FALSE(v.contains("counters")) << v.dump();
      EXPECT_THAT(v["counters_note"].get<std::string>(),
                  HasSubstr("skipped: hardware counters need the CUDA driver"));
    }
  }
  EXPECT_EQ(variants, 3u);
  EXPECT_THAT(kb::test::readFile(tmp_ / "results/report.md"),
              HasSubstr("Hardware counters (`--counters`"));
}

TEST_F(CountersTest, CountersGoWithATimedRunOnly) {
  for (const char *other : {"--profile", "--sanitize"}) {
    kb::test::CliRun r = run({"bench", out_.string(), "--counters", other});
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output,
                HasSubstr(std::string(other) + " excludes --counters"))
        << r.output;
  }
}

// Runs unchanged on a GPU host; there, a driver that keeps counters from
// this user is a skip that says so.
TEST_F(CountersTest, OnCudaEveryVariantHasItsCountersOrTheHostSaysWhy) {
  if (!kb::testing::cudaDeviceListed())
    GTEST_SKIP() << "no CUDA device listed";
  REQUIRE_TOOL("nvcc");
  kb::test::CliRun built =
      buildProject(fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/inspect");
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun r = counters("cuda");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  for (const nlohmann::json &b : report["benchmarks"])
    for (const nlohmann::json &v : b["variants"]) {
      if (!v.contains("counters")) {
        std::string note = v["counters_note"];
        ASSERT_EQ(note.rfind("skipped: ", 0), 0u) << note;
        // A toolkit with nvcc has CUPTI's headers: a build without them is
        // ours to fix, not the host's refusal.
        ASSERT_EQ(note.find("built without CUPTI"), std::string::npos) << note;
        GTEST_SKIP() << note;
      }
      const nlohmann::json &c = v["counters"];
      // Each copy reads its 65536 floats once, from a cold L2.
      EXPECT_GT(c["dram_bytes_read"].get<double>(), 0.8 * 65536 * 4)
          << c.dump();
      EXPECT_GT(c["achieved_occupancy_pct"].get<double>(), 0) << c.dump();
      EXPECT_LE(c["achieved_occupancy_pct"].get<double>(), 100) << c.dump();
      EXPECT_GT(c["gpu_time_ns"].get<double>(), 0) << c.dump();
      EXPECT_EQ(c["kernels"], 1) << c.dump();
      EXPECT_GE(c["passes"].get<int>(), 1) << c.dump();
    }
  EXPECT_THAT(r.output, HasSubstr("counters: "));
}

} // namespace

//===- tests/e2e/kernel_printf_test.cpp - A driver that prints ------------===//
//
// CUDA's driver writes what a kernel printed to the process's stdout when
// the host synchronizes; a bench worker's stdout carries its report. On
// lavapipe, a recording layer (tests/support/vulkan_call_recorder) plays
// such a driver: each submission writes a line to stdout. The report must
// stay whole, and the lines reach the user attributed to the run that
// printed them, bounded.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"
#include "tests/support/vulkan_call_recorder/recording_layer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kProject =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/standalone";

class KernelPrintfTest : public kb::test::KernelBenchTest {
protected:
  KernelPrintfTest() : KernelBenchTest("kb_kernel_printf_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    REQUIRE_TOOL("glslc");
    kb::test::CliRun built = buildProject(kProject);
    ASSERT_EQ(built.exitCode, 0) << built.output;
  }
};

TEST_F(KernelPrintfTest, TheReportStaysWholeAndThePrintedLinesAreShownPerRun) {
  kb::test::CliRun r =
      run({"bench", out_.string(), "--device", "vulkan", "--quick", "--cold",
           "-o", (tmp_ / "results").string()},
          kb::test::withRecordingLayer(
              {{"KB_VK_PRINT_ON_SUBMIT", "thread 3 says hello"}}));
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  ASSERT_EQ(report["benchmarks"].size(), 2u) << r.output;
  for (const nlohmann::json &b : report["benchmarks"])
    EXPECT_EQ(b["status"], "ok") << b.dump();
  std::string warnings = report["environment"]["warnings"].dump();
  // Each run of the correctness check printed once, and says so.
  EXPECT_THAT(warnings, HasSubstr("scale_ref_5000x1x1: the kernels printed to "
                                  "stdout (CUDA printf) during candidate, "
                                  "inputs seed +0: `thread 3 says hello`"));
  EXPECT_THAT(warnings, HasSubstr("scale_ref_5000x1x1: the kernels printed to "
                                  "stdout (CUDA printf) during reference, "
                                  "inputs seed +0: `thread 3 says hello`"));
  // The timed runs print once per sample: counted, not listed.
  EXPECT_THAT(warnings, HasSubstr("during the timed runs and the checks after "
                                  "them: `thread 3 says hello`"));
  EXPECT_THAT(warnings, HasSubstr("more line(s)"));
  EXPECT_THAT(r.output, HasSubstr("the kernels printed to stdout"));
}

} // namespace

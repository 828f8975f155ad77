//===- tests/e2e/run_report_test.cpp - what `run` and strict builds say ---===//
//
// The words kernel-bench prints, end to end: `run` on a standalone kernel
// without a reference says there is nothing to compare (and exits 0) rather
// than claiming two generated runs; outputs are labelled `executable.binding`;
// a `substitutes` naming no executable names its kernel.toml and no bogus
// `program.mlir:0:0` location. Skips without glslc/spirv-val or Vulkan.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests/e2e/fixtures";
using Cli = kb::test::CliRun;

class RunReportTest : public kb::test::KernelBenchTest {
protected:
  RunReportTest() : KernelBenchTest("kb_run_report_test") {}

  void SetUp() override {
    REQUIRE_TOOL("glslc");
    REQUIRE_TOOL("spirv-val");
    KernelBenchTest::SetUp();
  }

  Cli build(const fs::path &project) { return buildProject(project); }

  Cli runOnVulkan(const fs::path &module) {
    return run({"run", module.string(), "--device", "vulkan"});
  }
};

TEST_F(RunReportTest, StandaloneWithoutReferenceSaysNothingWasCompared) {
  Cli b = build(kFixtures / "standalone");
  ASSERT_EQ(b.exitCode, 0) << b.output;

  Cli r = runOnVulkan(out_ / "standalone/scale_noref");
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("`scale_noref`: candidate spirv"));
  EXPECT_THAT(r.output, HasSubstr("output 0 scale_noref.y (f32 x 1024): "
                                  "not compared"));
  EXPECT_THAT(r.output,
              HasSubstr("result: no reference for `scale_noref`: ran the "
                        "handwritten kernel once; nothing to compare"));
  EXPECT_THAT(r.output, Not(HasSubstr("generated")));

  // With a reference, both runs happen and agree.
  Cli withRef = runOnVulkan(out_ / "standalone/scale_ref");
  EXPECT_EQ(withRef.exitCode, 0) << withRef.output;
  EXPECT_THAT(withRef.output,
              HasSubstr("output 0 scale_ref.y (f32 x 5000): OK"));
  EXPECT_THAT(withRef.output, HasSubstr("result: outputs agree\n"));
}

TEST_F(RunReportTest, ProgramOutputsAreNamedAfterTheirBinding) {
  Cli b = build(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = runOnVulkan(out_);
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("output 0 scale.y (f32 x 4096): OK"));
  EXPECT_THAT(r.output, Not(HasSubstr("%")));
}

TEST_F(RunReportTest, UnknownSubstitutionNamesItsKernelToml) {
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  kb::test::replaceInFile(project / "scale/kernel.toml",
                          "substitutes = \"scale\"", "substitutes = \"nope\" ");
  Cli r = build(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: kb-substitute-executables: no "
                                  "kb.executable matches 'nope/vulkan_1_2'"));
  EXPECT_THAT(r.output, HasSubstr("scale/kernel.toml, file '"));
  EXPECT_THAT(r.output, HasSubstr("program.mlir'; executables: @scale"));
  EXPECT_THAT(r.output, Not(HasSubstr("program.mlir:0:0")));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
}

// A benchmark module has no entry function: `run` runs its one benchmark
// without --function, and a wrong name lists the functions.
TEST_F(RunReportTest, BenchmarkModuleRunsWithoutFunctionFlag) {
  Cli b = build(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  std::vector<fs::path> modules;
  for (const auto &entry : fs::directory_iterator(out_ / "bench"))
    if (entry.path().extension() == ".kbm")
      modules.push_back(entry.path());
  ASSERT_FALSE(modules.empty()) << b.output;
  Cli r = runOnVulkan(modules.front());
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("result: outputs agree"));

  Cli wrong = run({"run", modules.front().string(), "--device", "vulkan",
                   "--function", "nope"});
  EXPECT_EQ(wrong.exitCode, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("no function `nope`; it has: "));
}

// `--device auto` picks a device the module has variants for: a CUDA-only
// module on a machine without CUDA is skipped (77) with the reason, not a
// failure on the Vulkan device.
TEST_F(RunReportTest, AutoDevicePicksOneTheModuleHasVariantsFor) {
  REQUIRE_TOOL("nvcc");
  Cli b = buildProject(kSourceDir / "examples/quickstart",
                       {"--target", "cuda:sm_90"});
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = run({"run", out_.string()});
  if (r.exitCode == 0) {
    // A CUDA device exists: it ran there.
    EXPECT_THAT(r.output, HasSubstr("picked cuda:"));
    return;
  }
  EXPECT_EQ(r.exitCode, kb::test::kExitUnavailable) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no usable device found: "));
  EXPECT_THAT(r.output, HasSubstr("cuda unavailable"));
  // Lavapipe is named and why it cannot run the module.
  if (r.output.find("vulkan:0") != std::string::npos)
    EXPECT_THAT(r.output, HasSubstr("has no variant for vulkan:0"));
}

} // namespace

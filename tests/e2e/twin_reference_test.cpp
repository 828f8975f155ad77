//===- tests/e2e/twin_reference_test.cpp - a naive twin as the reference --===//
//
// A standalone kernel checked against a handwritten twin instead of an MLIR
// reference (`[bench] reference = "ggml_add_naive.comp"`): tests/corpus/
// import's ggml-style broadcast add (an #include, 29 push constants, a
// specialization-constant workgroup size), set up with `kernel-bench
// import` and only its sizes typed by hand. The twin builds like the kernel
// (same [abi], include directories and [specialization]), its object is the
// reference variant of the synthesized program, and on lavapipe `run`
// agrees and `bench --quick` calls the kernel correct. A copy whose twin
// subtracts instead of adding shows the check is real: `run` finds the
// mismatch and `bench` calls the kernel INCORRECT.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kProject = fs::path(KB_SOURCE_DIR) / "tests/corpus/import";

class TwinReferenceTest : public kb::test::KernelBenchTest {
protected:
  TwinReferenceTest() : KernelBenchTest("kb_twin_reference_test") {}
};

TEST_F(TwinReferenceTest, TwinIsTheReferenceTheKernelIsCheckedAgainst) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  kb::test::CliRun built = buildProject(kProject, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  EXPECT_TRUE(fs::exists(out_ / "kernels/ggml_add@reference"));
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/ggml_add").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
  kb::test::CliRun bench =
      run({"bench", out_.string(), "--quick", "--device", "vulkan", "--filter",
           "ggml_add", "-o", (tmp_ / "results").string()});
  EXPECT_EQ(bench.exitCode, 0) << bench.output;
  nlohmann::json report =
      kb::test::readJsonFile(tmp_ / "results" / "bench.json");
  ASSERT_TRUE(report.contains("benchmarks")) << report.dump();
  bool seen = false;
  for (const auto &b : report["benchmarks"]) {
    if (b.value("kernel", "") != "ggml_add")
      continue;
    seen = true;
    EXPECT_EQ(b["status"], "ok") << b.dump();
    for (const auto &v : b["variants"])
      if (v["role"] == "candidate")
        EXPECT_EQ(v["correctness"]["status"], "correct") << v.dump();
  }
  EXPECT_TRUE(seen) << report.dump();
}

TEST_F(TwinReferenceTest, AWrongTwinMakesTheKernelIncorrect) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kProject, project, fs::copy_options::recursive);
  kb::test::replaceInFile(project / "ggml_add/ggml_add_naive.comp",
                          "data_a[a] + data_b[b]", "data_a[a] - data_b[b]");
  kb::test::CliRun built = buildProject(project, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/ggml_add").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("MISMATCH"));
  kb::test::CliRun bench =
      run({"bench", out_.string(), "--quick", "--device", "vulkan", "--filter",
           "ggml_add", "-o", (tmp_ / "results").string()});
  EXPECT_EQ(bench.exitCode, 1) << bench.output;
  EXPECT_THAT(bench.output, HasSubstr("INCORRECT"));
}

} // namespace

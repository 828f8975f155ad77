//===- tests/e2e/host_reference_test.cpp - a C++ function as the reference ===//
//
// A standalone kernel checked against a C++ function run on the CPU
// (`[bench] reference = { sources = ["reduce_sum_ref.cpp"], entry = ... }`):
// tests/corpus/import's cuda-samples-style block reduction and its GLSL
// port, set up with `kernel-bench import` and only sizes typed by hand. On
// lavapipe `run` matches the function's outputs and `bench --quick` calls
// the kernel correct against it; a function that computes something else
// makes the kernel INCORRECT (the check is real); a function with the wrong
// parameters fails the build with the signature it must have; a shared
// object changed after the build is refused. Where nvcc is present, the CUDA
// kernel builds beside it with the same reference.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kProject = fs::path(KB_SOURCE_DIR) / "tests/corpus/import";

class HostReferenceTest : public kb::test::KernelBenchTest {
protected:
  HostReferenceTest() : KernelBenchTest("kb_host_reference_test") {}

  /// The corpus copied, its reference edited by |from| -> |to|.
  fs::path editedProject(const std::string &from, const std::string &to) {
    fs::path project = tmp_ / "project";
    fs::copy(kProject, project, fs::copy_options::recursive);
    kb::test::replaceInFile(project / "reduce_sum/reduce_sum_ref.cpp", from,
                            to);
    return project;
  }

  /// bench --quick of reduce_sum on lavapipe: its bench.json entry.
  nlohmann::json benchReduceSum(int expectedExit) {
    kb::test::CliRun bench =
        run({"bench", out_.string(), "--quick", "--device", "vulkan",
             "--filter", "reduce_sum", "-o", (tmp_ / "results").string()});
    EXPECT_EQ(bench.exitCode, expectedExit) << bench.output;
    nlohmann::json report =
        kb::test::readJsonFile(tmp_ / "results" / "bench.json");
    for (const auto &b : report.value("benchmarks", nlohmann::json::array()))
      if (b.value("kernel", "") == "reduce_sum")
        return b;
    ADD_FAILURE() << "no reduce_sum benchmark: " << report.dump();
    return nlohmann::json::object();
  }
};

TEST_F(HostReferenceTest, KernelIsCheckedAgainstTheFunctionOnTheCpu) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  kb::test::CliRun built = buildProject(kProject, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  EXPECT_TRUE(fs::exists(out_ / "standalone/reduce_sum/reference/"
                                "reduce_sum.so"));
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/reduce_sum").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("result: outputs match the host function "
                                    "reduce_sum_reference ("));
  EXPECT_THAT(ran.output, HasSubstr("reduce_sum_ref.cpp), run on the CPU\n"));
  nlohmann::json b = benchReduceSum(0);
  EXPECT_EQ(b.value("status", ""), "ok") << b.dump();
  for (const auto &v : b.value("variants", nlohmann::json::array()))
    if (v["role"] == "candidate") {
      EXPECT_EQ(v["correctness"]["status"], "correct") << v.dump();
      EXPECT_THAT(v["correctness"].value("note", ""),
                  HasSubstr("reference: the host function "
                            "reduce_sum_reference"));
    }

  // A bundle carries the library as a listed, checksummed member (checked
  // like a module when the bundle is opened); bench from the bundle checks
  // the kernel against it.
  fs::path tar = tmp_ / "b.tar";
  kb::test::CliRun bundled = run({"bundle", out_.string(), "-o", tar.string()});
  ASSERT_EQ(bundled.exitCode, 0) << bundled.output;
  EXPECT_THAT(bundled.output,
              HasSubstr("+ 1 host reference library (native code)"));
  kb::test::CliRun fromBundle =
      run({"bench", tar.string(), "--quick", "--device", "vulkan", "--filter",
           "reduce_sum", "-o", (tmp_ / "from-bundle").string()});
  EXPECT_EQ(fromBundle.exitCode, 0) << fromBundle.output;
  nlohmann::json report =
      kb::test::readJsonFile(tmp_ / "from-bundle" / "bench.json");
  bool checked = false;
  for (const auto &bench : report.value("benchmarks", nlohmann::json::array()))
    for (const auto &v : bench.value("variants", nlohmann::json::array()))
      if (bench.value("kernel", "") == "reduce_sum" && v["role"] == "candidate")
        checked = v["correctness"]["status"] == "correct";
  EXPECT_TRUE(checked) << report.dump();
}

TEST_F(HostReferenceTest, AFunctionThatComputesSomethingElseFailsTheKernel) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = editedProject("g_odata[b] = static_cast<float>(sum);",
                                   "g_odata[b] = static_cast<float>(sum) + 1;");
  kb::test::CliRun built = buildProject(project, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/reduce_sum").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("MISMATCH"));
  EXPECT_THAT(ran.output, HasSubstr("OUTPUTS DIFFER from the host function"));
  nlohmann::json b = benchReduceSum(1);
  EXPECT_EQ(b.value("status", ""), "incorrect") << b.dump();
}

TEST_F(HostReferenceTest, WrongParametersFailTheBuildWithTheSignature) {
  fs::path project =
      editedProject("const std::uint64_t workload[3]", "int extra");
  kb::test::CliRun built = buildProject(project, {"--target", "vulkan:1.2"});
  EXPECT_EQ(built.exitCode, 1) << built.output;
  EXPECT_THAT(built.output,
              HasSubstr("must be callable as `void reduce_sum_reference("
                        "const float *g_idata, float *g_odata, uint32_t n, "
                        "const uint64_t workload[3])`"));
  EXPECT_THAT(built.output, HasSubstr("reduce_sum_ref.cpp"));
  EXPECT_FALSE(fs::exists(out_ / "standalone/reduce_sum"));
}

TEST_F(HostReferenceTest, ASharedObjectChangedAfterTheBuildIsRefused) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  kb::test::CliRun built = buildProject(kProject, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  {
    std::ofstream so(out_ / "standalone/reduce_sum/reference/reduce_sum.so",
                     std::ios::app | std::ios::binary);
    so << '\0';
  }
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/reduce_sum").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("the file changed after `kernel-bench "
                                    "build`: build again"));
}

TEST_F(HostReferenceTest, CudaKernelBuildsWithTheSameReference) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  kb::test::CliRun built = buildProject(kProject, {"--target", "cuda:sm_90"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  EXPECT_TRUE(fs::exists(out_ / "standalone/reduce_sum/reference/"
                                "reduce_sum.so"));
  nlohmann::json record = kb::test::readJsonFile(out_ / "build.json");
  bool recorded = false;
  for (const auto &job : record["jobs"])
    if (job.value("kernel", "") == "reduce_sum") {
      const auto &host = job["declared"]["host_reference"];
      EXPECT_EQ(host.value("function", ""), "reduce_sum_reference");
      EXPECT_EQ(host.value("sha256", "").size(), 64u) << host.dump();
      recorded = true;
    }
  EXPECT_TRUE(recorded) << record.dump();
}

} // namespace

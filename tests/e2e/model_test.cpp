//===- tests/e2e/model_test.cpp - a model as the program, end to end ------===//
//
// examples/mlp: a TOSA model as the project's `program`, formed by the
// compiler's front end into main_dispatch_0 .. main_dispatch_5, with the
// handwritten tiled matmul_bias_relu substituted for main_dispatch_0.
// `build` then `run` on lavapipe agree, and the run names the substituted
// kernel. Bad kernels for a model: a `substitutes` naming no formed dispatch
// lists the ones that exist; a kernel whose ABI is not the dispatch's fails
// at the model's op with the expected signature.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kMlp = kSourceDir / "examples/mlp";
const std::string kKernel = "kernels/matmul_bias_relu";

using kb::test::CliRun;
using kb::test::replaceInFile;

class ModelTest : public kb::test::KernelBenchTest {
protected:
  ModelTest() : KernelBenchTest("kb_model_test") {}

  /// A copy of examples/mlp to break.
  fs::path copyMlp() {
    fs::path project = tmp_ / "mlp";
    fs::copy(kMlp, project, fs::copy_options::recursive);
    return project;
  }
};

TEST_F(ModelTest, MlpBuildsWithTheHandwrittenKernelThenRunsAgreeing) {
  for (const char *tool : {"nvcc", "ptxas", "glslc", "spirv-val"})
    REQUIRE_TOOL(tool);
  CliRun r = buildProject(kMlp, {"-j", "2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("program.kbm, 2 substitutions, "
                                  "6 benchmarks"));
  const json program = buildJson().at("program");
  EXPECT_EQ(program.at("status"), "ok");
  EXPECT_THAT(program.at("path").get<std::string>(),
              ::testing::EndsWith("examples/mlp/model.mlir"));

  std::set<std::string> variants;
  for (const json &s : program.at("substitutions")) {
    EXPECT_EQ(s.at("kernel"), "matmul_bias_relu") << s.dump();
    EXPECT_EQ(s.at("executable"), "main_dispatch_0") << s.dump();
    EXPECT_EQ(s.at("manifest"), "examples/mlp/" + kKernel + "/kernel.toml");
    variants.insert(s.at("variant"));
  }
  EXPECT_EQ(variants, (std::set<std::string>{"cuda_sm_90", "vulkan_1_2"}));

  // One benchmark per formed dispatch; main_dispatch_0's with the
  // handwritten candidates, on the dispatch's 512 x 256 workload.
  std::set<std::string> executables;
  for (const json &b : program.at("benchmarks")) {
    executables.insert(b.at("executable"));
    if (b.at("executable") == "main_dispatch_0") {
      EXPECT_EQ(b.at("workload"), json({512, 256, 1}));
      EXPECT_EQ(b.at("workgroup_count"), json({32, 16, 1}));
      EXPECT_EQ(b.at("candidates").size(), 2u) << b.dump();
    } else {
      EXPECT_TRUE(b.at("candidates").empty()) << b.dump();
    }
  }
  EXPECT_EQ(executables.size(), 6u);

  CliRun ran = run({"run", out_.string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output,
              HasSubstr("with substitutions: `main_dispatch_0`: candidate "
                        "spirv vulkan1.2, `main_dispatch_1`: reference"));
  EXPECT_THAT(ran.output,
              HasSubstr("output 0 main_dispatch_5.result (f32 x 32768): OK"));
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
}

// `abi` and `new-kernel` on a formed dispatch: no constants, so both say
// the sizes the program launches it with, and the scaffold builds.
TEST_F(ModelTest, AbiAndNewKernelOfAFormedDispatchGiveItsSizes) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = buildProject(kMlp, {"--target", "vulkan:1.2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::string sizes = "32x16x1 workgroups (workload 512x256x1); "
                            "elements: arg0 131072, "
                            "arg1 262144, arg2 512, result 131072";
  CliRun abi = run({"abi", out_.string(), "main_dispatch_0"});
  ASSERT_EQ(abi.exitCode, 0) << abi.output;
  EXPECT_THAT(abi.output, HasSubstr("  dispatched (the sizes a kernel is "
                                    "launched with; with no constants, its "
                                    "only sizes):\n    `main` op "));
  EXPECT_THAT(abi.output, HasSubstr(sizes + "\n"));

  fs::path kernel = tmp_ / "fresh";
  CliRun made = run({"new-kernel", out_.string(), "main_dispatch_0", "--lang",
                     "glsl", "-o", kernel.string()});
  ASSERT_EQ(made.exitCode, 0) << made.output;
  std::string comp = kb::test::readFile(kernel / "fresh.comp");
  EXPECT_THAT(comp, HasSubstr(sizes + "\n// No constants: the sizes are "
                                      "fixed"));
  EXPECT_THAT(comp, HasSubstr("binding = 2) readonly buffer Binding2 { float "
                              "arg2[]; };"));
}

// The run compares for real: the same kernel with the bias scaled by 1.001
// builds (its ABI is right) and the outputs differ.
TEST_F(ModelTest, WrongKernelBodyMakesTheRunDisagree) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = copyMlp();
  replaceInFile(project / kKernel / "matmul_bias_relu.comp",
                "max(sum + b1[col], 0.0)", "max(sum + b1[col] * 1.001, 0.0)");
  CliRun r = buildProject(project, {"--target", "vulkan:1.2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  CliRun ran = run({"run", out_.string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("output 0 main_dispatch_5.result (f32 x "
                                    "32768): MISMATCH"));
  EXPECT_THAT(ran.output, HasSubstr("result: OUTPUTS DIFFER"));
  // The final output is main_dispatch_5's; the wrong kernel is the first
  // dispatch's, and the dispatch-by-dispatch replay says so.
  EXPECT_THAT(ran.output, HasSubstr("first wrong dispatch: op "));
  EXPECT_THAT(ran.output,
              HasSubstr("(`main_dispatch_0` export 0): binding 3 (buffer "));
}

TEST_F(ModelTest, SubstitutingADispatchThatIsNotFormedListsTheFormedOnes) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = copyMlp();
  replaceInFile(project / kKernel / "kernel.toml",
                "substitutes = \"main_dispatch_0\"",
                "substitutes = \"main_dispatch_9\"");
  CliRun r = buildProject(project, {"--target", "vulkan:1.2"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no kb.executable matches "
                                  "'main_dispatch_9/vulkan_1_2'"));
  EXPECT_THAT(r.output, HasSubstr(kKernel + "/kernel.toml"));
  EXPECT_THAT(r.output,
              HasSubstr("executables: @main_dispatch_0, @main_dispatch_1, "
                        "@main_dispatch_2, @main_dispatch_3, "
                        "@main_dispatch_4, @main_dispatch_5"));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
}

// A kernel right by its own kernel.toml but without the bias binding: the
// build of the kernel succeeds, the compiler's ABI check fails the program
// at the model's op the dispatch was formed from, with the expected
// signature.
TEST_F(ModelTest, KernelWithAnotherAbiFailsWithTheDispatchsSignature) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = copyMlp();
  fs::path kernel = project / kKernel;
  replaceInFile(kernel / "kernel.toml",
                "  { name = \"arg2\", type = \"f32\", access = \"readonly\" },"
                "   # b1\n",
                "");
  replaceInFile(kernel / "matmul_bias_relu.comp",
                "layout(set = 0, binding = 2) readonly buffer Binding2 { "
                "float b1[]; };\n",
                "");
  replaceInFile(kernel / "matmul_bias_relu.comp", "binding = 3", "binding = 2");
  replaceInFile(kernel / "matmul_bias_relu.comp", "sum + b1[col]", "sum");
  CliRun r = buildProject(project, {"--target", "vulkan:1.2"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_TRUE(
      fs::is_regular_file(out_ / "kernels/matmul_bias_relu/vulkan1.2.spv"));
  EXPECT_THAT(
      r.output,
      HasSubstr("model.mlir:16:8: error: object '" +
                (out_ / "kernels/matmul_bias_relu/vulkan1.2.spv").string() +
                "' does not match the ABI of export @main_dispatch_0 "
                "of kb.executable @main_dispatch_0:"));
  // The shader's output now sits where the dispatch's readonly bias is.
  EXPECT_THAT(r.output, HasSubstr("binding 2 (`arg2`): expected readonly "
                                  "(NonWritable), found a writable buffer"));
  EXPECT_THAT(r.output,
              HasSubstr("expected: main_dispatch_0(arg0: f32 readonly, arg1: "
                        "f32 readonly, arg2: f32 readonly, result: f32 "
                        "writeonly), workgroup 16x16x1"));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
}

} // namespace

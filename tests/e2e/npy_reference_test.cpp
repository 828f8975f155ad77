//===- tests/e2e/npy_reference_test.cpp - expected outputs in .npy files --===//
//
// A standalone kernel (y = 2x + 1) whose input comes from x.npy and whose
// reference is the expected output y.npy (`[bench] init = { x = { file =
// "x.npy" } }`, `reference = { outputs = { y = "y.npy" } }`): no MLIR and
// no twin. The arrays are written at test time with common/npy.h (no
// NumPy). On lavapipe `run` matches them and `bench --quick` calls the
// kernel correct and says which checks ran, also from a bundle, which
// carries the arrays; a y.npy with one wrong element makes `run` report the
// MISMATCH and `bench` call the kernel INCORRECT; a copy changed after the
// build is refused by its sha256. Fixed inputs with a twin reference run
// both from the file, once.
//
//===----------------------------------------------------------------------===//
#include "common/npy.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

constexpr int kCount = 256;

const char *kShader = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    y[i] = 2.0 * x[i] + 1.0;
}
)";

const char *kKernelToml = R"([kernel]
name = "affine"
source = "affine.comp"

[abi]
workgroup_size = [64, 1, 1]
bindings = [
  { name = "x", type = "f32", access = "readonly" },
  { name = "y", type = "f32", access = "writeonly" },
]
constants = [{ name = "n", type = "u32" }]

[bench]
workload = ["n"]
constants = { n = 256 }
elements = { x = "n", y = "n" }
init = { x = { file = "x.npy" } }
reference = { outputs = { y = "y.npy" } }
)";

const char *kChecks = "checked against y.npy (fixed inputs x.npy); seeded, "
                      "all-zero, large-magnitude and special-value checks "
                      "not applicable to fixed inputs";

void writeFile(const fs::path &path, const std::string &bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string npyOf(const std::vector<float> &values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return kb::npy::encode(kb::ElementType::F32, {values.size()}, bytes);
}

class NpyReferenceTest : public kb::test::KernelBenchTest {
protected:
  NpyReferenceTest() : KernelBenchTest("kb_npy_reference_test") {}

  /// The project, with element |wrong| of y.npy off by 0.5 (-1: none).
  fs::path writeProject(int wrong) {
    fs::path project = tmp_ / "project";
    writeFile(project / "workbench.toml",
              "[project]\nname = \"npy\"\nkernels = [\"affine\"]\n"
              "targets = [\"vulkan:1.2\"]\n");
    writeFile(project / "affine/affine.comp", kShader);
    writeFile(project / "affine/kernel.toml", kKernelToml);
    std::vector<float> x(kCount), y(kCount);
    for (int i = 0; i < kCount; ++i) {
      x[i] = float(i % 17) * 0.25f - 2.0f; // y exact in f32
      y[i] = 2.0f * x[i] + 1.0f + (i == wrong ? 0.5f : 0.0f);
    }
    writeFile(project / "affine/x.npy", npyOf(x));
    writeFile(project / "affine/y.npy", npyOf(y));
    return project;
  }

  /// `bench --quick` of |input|; its report.
  nlohmann::json bench(const std::string &input, int expectedExit) {
    kb::test::CliRun bench = run({"bench", input, "--quick", "--device",
                                  "vulkan", "-o", (tmp_ / "results").string()});
    EXPECT_EQ(bench.exitCode, expectedExit) << bench.output;
    return kb::test::readJsonFile(tmp_ / "results" / "bench.json");
  }
};

TEST_F(NpyReferenceTest, ExpectedOutputsAreTheReference) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  kb::test::CliRun built =
      buildProject(writeProject(-1), {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  fs::path standalone = out_ / "standalone/affine";
  kb::test::CliRun ran =
      run({"run", standalone.string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr(std::string("checks: ") + kChecks));
  EXPECT_THAT(ran.output,
              HasSubstr("result: outputs match the expected .npy arrays"));

  kb::test::CliRun bundled =
      run({"bundle", out_.string(), "-o", (tmp_ / "b.tar").string()});
  ASSERT_EQ(bundled.exitCode, 0) << bundled.output;
  EXPECT_THAT(bundled.output, HasSubstr("+ 2 .npy arrays"));
  for (const std::string &input : {out_.string(), (tmp_ / "b.tar").string()}) {
    SCOPED_TRACE(input);
    nlohmann::json report = bench(input, 0);
    ASSERT_EQ(report["benchmarks"].size(), 1u) << report.dump();
    const nlohmann::json &b = report["benchmarks"][0];
    EXPECT_EQ(b["status"], "ok") << b.dump();
    const nlohmann::json &c = b["variants"][0]["correctness"];
    EXPECT_EQ(c["status"], "correct") << b.dump();
    EXPECT_EQ(c["seeds"], nlohmann::json::array()) << b.dump();
    EXPECT_EQ(c["note"], kChecks) << b.dump();
  }

  // A copy that changed after the build is not the build's data.
  std::ofstream(standalone / "data/expected/y.npy", std::ios::app) << "x";
  ran = run({"run", standalone.string(), "--device", "vulkan"});
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output,
              HasSubstr("the file changed after `kernel-bench build`"));
}

// The import corpus's Vulkan-sample-style kernel: set up with `import` plus
// its sizes, an in-place Fibonacci from values_in.npy checked against
// values_out.npy (made by NumPy, make_npy.py) by run and bench.
TEST_F(NpyReferenceTest, TheCorpusKernelMatchesItsNumpyArrays) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "corpus";
  fs::create_directories(project);
  fs::copy(fs::path(KB_SOURCE_DIR) / "tests/corpus/import/fib_values",
           project / "fib_values", fs::copy_options::recursive);
  std::ofstream(project / "workbench.toml")
      << "[project]\nkernels = [\"fib_values\"]\ntargets = [\"vulkan:1.2\"]\n";
  kb::test::CliRun built = buildProject(project);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/fib_values").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("output 0 fib_values.values (u32 x 1024): "
                                    "OK (max abs error 0"));
  EXPECT_THAT(ran.output,
              HasSubstr("result: outputs match the expected .npy arrays"));
  nlohmann::json report = bench(out_.string(), 0);
  ASSERT_EQ(report["benchmarks"].size(), 1u) << report.dump();
  EXPECT_EQ(report["benchmarks"][0]["variants"][0]["correctness"]["status"],
            "correct")
      << report.dump();
}

TEST_F(NpyReferenceTest, AWrongExpectedOutputMakesTheKernelIncorrect) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  kb::test::CliRun built =
      buildProject(writeProject(100), {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun ran =
      run({"run", (out_ / "standalone/affine").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("MISMATCH in 1 element(s)"));
  EXPECT_THAT(ran.output, HasSubstr("index 100: expected"));
  nlohmann::json report = bench(out_.string(), 1);
  ASSERT_EQ(report["benchmarks"].size(), 1u) << report.dump();
  EXPECT_EQ(report["benchmarks"][0]["status"], "incorrect") << report.dump();
  EXPECT_THAT(report["benchmarks"][0].value("reason", ""),
              HasSubstr("differs from its expected array"));
}

TEST_F(NpyReferenceTest, FixedInputsFeedATwinReferenceToo) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = writeProject(-1);
  writeFile(project / "affine/naive.comp", kShader);
  kb::test::replaceInFile(project / "affine/kernel.toml",
                          "reference = { outputs = { y = \"y.npy\" } }",
                          "reference = \"naive.comp\"");
  kb::test::CliRun built = buildProject(project, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun ran =
      run({"run", (out_ / "standalone/affine").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  const std::string checks =
      "checked against the reference (fixed inputs x.npy); seeded, all-zero, "
      "large-magnitude and special-value checks not applicable to fixed "
      "inputs";
  EXPECT_THAT(ran.output, HasSubstr("checks: " + checks));
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
  nlohmann::json report = bench(out_.string(), 0);
  ASSERT_EQ(report["benchmarks"].size(), 1u) << report.dump();
  for (const auto &v : report["benchmarks"][0]["variants"])
    if (v["role"] == "candidate") {
      EXPECT_EQ(v["correctness"]["status"], "correct") << v.dump();
      EXPECT_EQ(v["correctness"]["note"], checks) << v.dump();
    }
}

TEST_F(NpyReferenceTest, AReadWriteOutputStartsFromItsFile) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = writeProject(-1);
  // y += x: y.npy is y's input, y_after.npy what the kernel leaves there.
  kb::test::replaceInFile(project / "affine/affine.comp", "writeonly buffer Y",
                          "buffer Y");
  kb::test::replaceInFile(project / "affine/affine.comp",
                          "y[i] = 2.0 * x[i] + 1.0", "y[i] = y[i] + x[i]");
  kb::test::replaceInFile(project / "affine/kernel.toml",
                          "access = \"writeonly\"", "access = \"readwrite\"");
  kb::test::replaceInFile(project / "affine/kernel.toml",
                          "init = { x = { file = \"x.npy\" } }",
                          "init = { x = { file = \"x.npy\" }, y = { file = "
                          "\"y.npy\" } }");
  kb::test::replaceInFile(project / "affine/kernel.toml",
                          "outputs = { y = \"y.npy\" }",
                          "outputs = { y = \"y_after.npy\" }");
  std::vector<float> after(kCount);
  for (int i = 0; i < kCount; ++i) {
    float x = float(i % 17) * 0.25f - 2.0f;
    after[i] = (2.0f * x + 1.0f) + x;
  }
  writeFile(project / "affine/y_after.npy", npyOf(after));
  kb::test::CliRun built = buildProject(project, {"--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  EXPECT_TRUE(fs::exists(out_ / "standalone/affine/data/init/y.npy"));
  EXPECT_TRUE(fs::exists(out_ / "standalone/affine/data/expected/y.npy"));
  kb::test::CliRun ran =
      run({"run", (out_ / "standalone/affine").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("checks: checked against y_after.npy "
                                    "(fixed inputs x.npy, y.npy)"));
  nlohmann::json report = bench(out_.string(), 0);
  ASSERT_EQ(report["benchmarks"].size(), 1u) << report.dump();
  EXPECT_EQ(report["benchmarks"][0]["status"], "ok") << report.dump();
}

} // namespace

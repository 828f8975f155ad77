//===- tests/e2e/sanitize_test.cpp - run --sanitize on lavapipe -----------===//
//
// Kernels that read or write 100,000 elements past their buffers: lavapipe
// clamps such accesses, so a plain run says nothing; under --sanitize the
// Khronos validation layer's GPU-assisted validation reports each, and the
// finding names the run, the op and the kernel that did it. An in-bounds
// copy gives no finding.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kProject =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/sanitize";

/// Whether the loader can find the Khronos validation layer (Debian's
/// vulkan-validationlayers, which scripts/setup.sh installs).
bool validationLayerInstalled() {
  for (const char *dir : {"/usr/share/vulkan/explicit_layer.d",
                          "/usr/local/share/vulkan/explicit_layer.d",
                          "/etc/vulkan/explicit_layer.d"})
    if (fs::exists(fs::path(dir) / "VkLayer_khronos_validation.json"))
      return true;
  const char *path = std::getenv("VK_LAYER_PATH");
  return path && *path;
}

class SanitizeTest : public kb::test::KernelBenchTest {
protected:
  SanitizeTest() : KernelBenchTest("kb_sanitize_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    if (!validationLayerInstalled())
      GTEST_SKIP() << "the Khronos validation layer is not installed "
                      "(Debian's vulkan-validationlayers)";
    REQUIRE_TOOL("glslc");
    kb::test::CliRun built = buildProject(kProject);
    ASSERT_EQ(built.exitCode, 0) << built.output;
  }

  kb::test::CliRun runKernel(const std::string &kernel, bool sanitize) {
    std::vector<std::string> args = {
        "run", (out_ / "standalone" / kernel).string(), "--device", "vulkan"};
    if (sanitize)
      args.push_back("--sanitize");
    return run(args);
  }
};

TEST_F(SanitizeTest, OutOfBoundsAccessesAreFoundAndAttributed) {
  for (const char *kernel : {"oob_read", "oob_write"}) {
    SCOPED_TRACE(kernel);
    // Unchecked, the clamped accesses go unnoticed.
    kb::test::CliRun plain = runKernel(kernel, false);
    EXPECT_EQ(plain.exitCode, 0) << plain.output;
    EXPECT_THAT(plain.output, Not(HasSubstr("out of bounds")));

    kb::test::CliRun checked = runKernel(kernel, true);
    EXPECT_EQ(checked.exitCode, 1) << checked.output;
    EXPECT_THAT(checked.output,
                HasSubstr("sanitizer error: run with substitutions, op "));
    EXPECT_THAT(checked.output, HasSubstr("(`" + std::string(kernel) +
                                          "` export 0, the handwritten "
                                          "kernel): Validation Error: "));
    EXPECT_THAT(checked.output, HasSubstr("access out of bounds"));
    // Builds compile GLSL with -g: the finding names the line.
    EXPECT_THAT(checked.output,
                HasSubstr("Shader validation error at line 10 of the kernel's "
                          "source."));
    // Shortened: no object handles, no quotation of the spec.
    EXPECT_THAT(checked.output, Not(HasSubstr("MessageID")));
    EXPECT_THAT(checked.output, Not(HasSubstr("The Vulkan spec states")));
    EXPECT_THAT(checked.output, HasSubstr("sanitizer: 1 error(s)"));
  }
}

// A fill without its tail check writes 32 elements past its 4000: the
// guard band after the buffer, inside the written range, catches it after
// the dispatch that did it, naming the buffer and the first element. A
// kernel bounded by `y.length()` gets no guard band (it would lengthen
// `y`), and is told so.
TEST_F(SanitizeTest, AMissingTailCheckIsCaughtByTheGuardBand) {
  kb::test::CliRun plain = runKernel("tail_write", false);
  EXPECT_EQ(plain.exitCode, 0) << plain.output;
  kb::test::CliRun checked = runKernel("tail_write", true);
  EXPECT_EQ(checked.exitCode, 1) << checked.output;
  EXPECT_THAT(checked.output,
              HasSubstr("sanitizer error: run with substitutions, op 1 "
                        "(`tail_write` export 0, the handwritten kernel): "
                        "wrote past the end of buffer 0 `tail_write.y` (4000 "
                        "x f32): 128 of its 4096 guard bytes changed, the "
                        "first at element 4000\n"));
  EXPECT_THAT(checked.output, HasSubstr("sanitizer: 1 error(s)"));

  kb::test::CliRun unguarded = runKernel("length_bound", true);
  EXPECT_EQ(unguarded.exitCode, 0) << unguarded.output;
  EXPECT_THAT(unguarded.output,
              HasSubstr("sanitizer warning: run with substitutions: no guard "
                        "bands: `length_bound` reads a buffer's length"));
  EXPECT_THAT(unguarded.output, HasSubstr("1 warning(s), no errors"));
}

TEST_F(SanitizeTest, AnInBoundsKernelHasNoFindings) {
  kb::test::CliRun checked = runKernel("in_bounds", true);
  EXPECT_EQ(checked.exitCode, 0) << checked.output;
  EXPECT_THAT(checked.output, HasSubstr("sanitizer: no findings"));
}

// debugPrintfEXT reaches the user from a second pass (the layer cannot print
// and check bounds at once), with its dispatch and invocation; a plain run
// prints nothing.
TEST_F(SanitizeTest, ShaderPrintfNamesItsDispatchAndInvocation) {
  kb::test::CliRun plain = runKernel("prints", false);
  EXPECT_EQ(plain.exitCode, 0) << plain.output;
  EXPECT_THAT(plain.output, Not(HasSubstr("i = 37")));

  kb::test::CliRun checked = runKernel("prints", true);
  EXPECT_EQ(checked.exitCode, 0) << checked.output;
  EXPECT_THAT(checked.output,
              HasSubstr("printf: printf pass, op 2 (`prints` export 0, the "
                        "handwritten kernel), invocation (37, 0, 0): "
                        "i = 37 of count = 4096 (line 13 of the kernel's "
                        "source)\n"));
  EXPECT_THAT(checked.output, HasSubstr("sanitizer: no findings"));
}

// bench --sanitize checks every benchmark under the layer and times nothing:
// the two out-of-bounds kernels are SANITIZER rows (exit 1) whose findings
// name the variant and the inputs, in the table, bench.json, report.md and
// junit.xml; the in-bounds kernels are clean. The whole program is left to
// `run --sanitize`.
TEST_F(SanitizeTest, BenchSanitizeMakesFindingsTheRowStatus) {
  fs::path results = tmp_ / "results";
  kb::test::CliRun r =
      run({"bench", out_.string(), "--sanitize", "-o", results.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 ERROR, 0 SKIPPED, 3 SANITIZER"));
  // One finding, from every input set it came from.
  EXPECT_THAT(r.output, HasSubstr("sanitizer: oob_read_4096x1x1: candidate "
                                  "(inputs seed +0, seed +1, seed +2, zeros, "
                                  "large): error: Validation Error: "));
  EXPECT_THAT(r.output, Not(HasSubstr("MessageID")));

  nlohmann::json report =
      nlohmann::json::parse(kb::test::readFile(results / "bench.json"));
  EXPECT_EQ(report.at("settings").at("sanitize"), true);
  std::map<std::string, nlohmann::json> byKernel;
  for (const nlohmann::json &b : report.at("benchmarks"))
    byKernel[b.at("kernel").get<std::string>()] = b;
  for (const char *kernel : {"oob_read", "oob_write", "tail_write"}) {
    SCOPED_TRACE(kernel);
    const nlohmann::json &b = byKernel[kernel];
    EXPECT_EQ(b.at("status"), "sanitizer") << b.dump(2);
    const nlohmann::json &first = b.at("sanitizer").at(0);
    EXPECT_EQ(first.at("variant"), "candidate");
    EXPECT_EQ(first.at("error"), true);
    EXPECT_THAT(first.at("message").get<std::string>(),
                HasSubstr(kernel == std::string("tail_write")
                              ? "wrote past the end of buffer 0"
                              : "access out of bounds"));
    for (const nlohmann::json &v : b.at("variants"))
      EXPECT_TRUE(v.at("timings").empty()); // nothing is timed
  }
  for (const char *kernel : {"in_bounds", "prints"}) {
    SCOPED_TRACE(kernel);
    EXPECT_EQ(byKernel[kernel].at("status"), "ok");
  }
  EXPECT_FALSE(report.contains("program") && !report["program"].is_null());
  EXPECT_THAT(kb::test::readFile(results / "report.md"),
              HasSubstr("sanitizer: oob_write_4096x1x1: candidate"));
  EXPECT_THAT(kb::test::readFile(results / "junit.xml"),
              HasSubstr("type=\"SANITIZER\""));

  // Nothing to check is no pass, and says where the whole program is
  // checked.
  kb::test::CliRun none = run({"bench", out_.string(), "--sanitize", "--filter",
                               "no_such", "-o", results.string()});
  EXPECT_EQ(none.exitCode, 5) << none.output;
  EXPECT_THAT(none.output, HasSubstr("`run --sanitize` checks the whole "
                                     "program"));

  // A CUDA device is checked with compute-sanitizer: without it (these
  // machines have no full CUDA toolkit) the run is skipped before anything
  // runs, saying where it comes from (tests/e2e/cuda_sanitize_test.cpp runs
  // a stand-in).
  if (fs::exists("/usr/local/cuda/bin/compute-sanitizer"))
    return;
  kb::test::CliRun cuda = run({"bench", out_.string(), "--sanitize", "--device",
                               "cuda", "-o", results.string()},
                              {{"CUDA_PATH", (tmp_ / "no_toolkit").string()}});
  EXPECT_EQ(cuda.exitCode, 77) << cuda.output;
  EXPECT_THAT(cuda.output,
              HasSubstr("compute-sanitizer comes with the full CUDA toolkit"));
  EXPECT_THAT(cuda.output, Not(HasSubstr("[1/")));
}

} // namespace

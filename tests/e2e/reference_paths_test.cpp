//===- tests/e2e/reference_paths_test.cpp - paths a reference may skip ----===//
//
// Generated references whose values come from a path that may not execute:
// a Fibonacci loop and a grid-stride sum that run zero times for some
// invocations (scf.for with loop-carried values), and a Collatz count whose
// while loop may not enter (scf.while, with an scf.if with results inside).
// Each handwritten GLSL kernel computes the same thing, so on lavapipe the
// generated SPIR-V and the kernel must agree on every element — before the
// SPIR-V codegen guarded zero-trip loops, the first and the last differed
// wherever the loop did not run.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kProject =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/references";

class ReferencePathsTest : public kb::test::KernelBenchTest {
protected:
  ReferencePathsTest() : KernelBenchTest("kb_reference_paths_test") {}
};

TEST_F(ReferencePathsTest, ReferencesAgreeWhereTheirLoopsDoNotRun) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  kb::test::CliRun built = buildProject(kProject);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  for (const char *kernel : {"fibonacci", "collatz", "strided_sum"}) {
    SCOPED_TRACE(kernel);
    kb::test::CliRun ran = run(
        {"run", (out_ / "standalone" / kernel).string(), "--device", "vulkan"});
    SKIP_WITHOUT_VULKAN(ran);
    EXPECT_EQ(ran.exitCode, 0) << ran.output;
    EXPECT_THAT(ran.output, HasSubstr("max abs error 0;")) << ran.output;
    EXPECT_THAT(ran.output, HasSubstr("result: outputs agree")) << ran.output;
  }
  // bench checks from more input sets (seeds, all zeros, large magnitudes):
  // every kernel is CORRECT against its generated reference there too —
  // before the guard, bench called the correct Fibonacci kernel INCORRECT.
  fs::path results = tmp_ / "results";
  kb::test::CliRun bench = run({"bench", out_.string(), "--quick", "--device",
                                "vulkan", "-o", results.string()});
  SKIP_WITHOUT_VULKAN(bench);
  EXPECT_EQ(bench.exitCode, 0) << bench.output;
  nlohmann::json report = kb::test::readJsonFile(results / "bench.json");
  std::set<std::string> correct;
  for (const auto &b : report.value("benchmarks", nlohmann::json::array()))
    for (const auto &v : b["variants"])
      if (v["role"] == "candidate" && v["correctness"]["status"] == "correct")
        correct.insert(b.value("kernel", ""));
  EXPECT_EQ(correct,
            (std::set<std::string>{"collatz", "fibonacci", "strided_sum"}))
      << report.dump();
}

} // namespace

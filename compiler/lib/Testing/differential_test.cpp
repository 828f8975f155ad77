//===- differential_test.cpp - references executed three ways -------------===//
//
// Every reference body the tree holds, the dispatches the front end forms
// from its op classes, and a few hundred generated bodies and models, run
// on the CPU (64- and 32-bit index), through the SPIR-V codegen on the
// Vulkan device (lavapipe here) and through the CUDA codegen on a GPU where
// there is one; the outputs must agree. A disagreement names the case (a
// program's benchmark, `seed=N` of the body generator or `model seed=N` of
// the model generator: `bench/reference_differential` reruns one seed and
// writes its MLIR out). KB_DIFFERENTIAL_SEEDS sets how many generated
// bodies run (default 300), KB_DIFFERENTIAL_MODEL_SEEDS how many models
// (default 40).
//
//===----------------------------------------------------------------------===//
#include "kb/Testing/Differential.h"
#include "kb/Testing/KernelGenerator.h"
#include "kb/Testing/ModelGenerator.h"

#include "common/kernel_abi.h"
#include "common/process.h"
#include "common/tool_search.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace {

using namespace kb::differential;

Runner &runner() {
  static std::unique_ptr<Runner> instance = Runner::create();
  return *instance;
}

/// The text of |path|.
std::string readText(const std::filesystem::path &path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Runs |c|; a disagreement or an error is a failure, a body the CPU
/// execution does not cover (barriers, workgroup memory) is counted.
void expectAgreement(const Case &c, int &covered, int &uncovered) {
  kb::StatusOr<Outcome> outcome = runner().run(c);
  if (!outcome.ok() &&
      outcome.status().message().find("are not covered") != std::string::npos) {
    ++uncovered;
    return;
  }
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  ++covered;
  for (const std::string &line : outcome->disagreements)
    ADD_FAILURE() << line;
}

TEST(DifferentialTest, GeneratedBodiesAgreeEverywhere) {
  int seeds = 300;
  if (const char *env = std::getenv("KB_DIFFERENTIAL_SEEDS"))
    seeds = std::atoi(env);
  int covered = 0, uncovered = 0;
  for (int seed = 0; seed < seeds; ++seed)
    expectAgreement(generatedCase(seed), covered, uncovered);
  EXPECT_EQ(covered, seeds);
  std::printf("%d generated bodies; devices: %s\n", covered,
              runner().describeDevices().c_str());
}

TEST(DifferentialTest, ProgramReferencesAgreeEverywhere) {
  int covered = 0, uncovered = 0;
  for (const char *program :
       {"examples/quickstart/program.mlir", "tests/corpus/program.mlir",
        "tests/e2e/fixtures/bf16_program/program.mlir"}) {
    kb::StatusOr<std::vector<Case>> cases = casesFromProgram(
        program, readText(std::string(KB_SOURCE_DIR) + "/" + program));
    ASSERT_TRUE(cases.ok()) << cases.status().message();
    EXPECT_FALSE(cases->empty()) << program;
    for (const Case &c : *cases)
      expectAgreement(c, covered, uncovered);
  }
  EXPECT_GE(covered, 5);
  std::printf("%d program benchmarks agree, %d not covered (barriers or "
              "workgroup memory); devices: %s\n",
              covered, uncovered, runner().describeDevices().c_str());
}

// The references of the corpus's standalone kernels (kernel.toml [bench]
// reference), each in the program `kernel-bench build` synthesizes for its
// kernel: the real build, for Vulkan only (glslc, no nvcc needed).
TEST(DifferentialTest, StandaloneReferencesAgreeEverywhere) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "kb_differential_XXXXXX")
          .string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  // Removed however the test ends.
  struct Scratch {
    std::filesystem::path path;
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } scratch{pattern};
  const std::filesystem::path &out = scratch.path;
  // Asked of the tool search, never read from a failed build's text: a
  // build that fails with glslc installed is a failure.
  if (!kb::searchTool("glslc").ok())
    GTEST_SKIP() << "glslc is not installed; the corpus build needs it";
  kb::ProcessOptions build;
  build.argv = {KB_BINARY_DIR "/workbench/kernel-bench",
                "build",
                KB_SOURCE_DIR "/tests/corpus",
                "--target",
                "vulkan:1.2",
                "--no-remote-cache",
                "-o",
                (out / "build").string()};
  build.env = {{"KB_CACHE_DIR", (out / "cache").string()}};
  kb::StatusOr<kb::ProcessResult> built = kb::runProcess(build);
  ASSERT_TRUE(built.ok()) << built.status().message();
  ASSERT_TRUE(built->succeeded()) << built->stderrText;
  int covered = 0, uncovered = 0, programs = 0;
  std::error_code listed;
  for (const auto &entry : std::filesystem::directory_iterator(
           out / "build" / "standalone", listed)) {
    std::filesystem::path program = entry.path() / "program.mlir";
    kb::StatusOr<std::vector<Case>> cases =
        casesFromProgram(program.string(), readText(program));
    ASSERT_TRUE(cases.ok()) << cases.status().message();
    ++programs;
    for (const Case &c : *cases)
      expectAgreement(c, covered, uncovered);
  }
  EXPECT_FALSE(listed) << listed.message();
  EXPECT_GE(programs, 5);
  EXPECT_GE(covered, 4);
  std::printf("%d standalone references agree, %d not covered; devices: %s\n",
              covered, uncovered, runner().describeDevices().c_str());
}

// The front end's op classes (convolution, pooling, transpose, broadcast and
// map, reduce, batch matmul, a TOSA MLP layer with a softmax) and the
// bundled MLP model: the dispatches the front end forms from them, each
// executed the three ways.
TEST(DifferentialTest, FrontEndDispatchesAgreeEverywhere) {
  int covered = 0, uncovered = 0;
  for (const char *model :
       {"compiler/test/kb-compile/Inputs/front_end_ops.mlir",
        "examples/mlp/model.mlir"}) {
    kb::StatusOr<std::vector<Case>> cases = casesFromModel(
        model, readText(std::string(KB_SOURCE_DIR) + "/" + model));
    ASSERT_TRUE(cases.ok()) << cases.status().message();
    EXPECT_FALSE(cases->empty()) << model;
    for (const Case &c : *cases)
      expectAgreement(c, covered, uncovered);
  }
  std::printf("%d front-end dispatches agree, %d not covered (barriers or "
              "workgroup memory); devices: %s\n",
              covered, uncovered, runner().describeDevices().c_str());
  EXPECT_GE(covered, 6);
}

// Seeded models of every front-end op class with shapes no tile divides
// by luck; KB_DIFFERENTIAL_MODEL_SEEDS sets how many (default 40).
TEST(DifferentialTest, GeneratedModelsAgreeEverywhere) {
  int seeds = 40;
  if (const char *env = std::getenv("KB_DIFFERENTIAL_MODEL_SEEDS"))
    seeds = std::atoi(env);
  int covered = 0, uncovered = 0;
  std::set<std::string> classes;
  for (int seed = 0; seed < seeds; ++seed) {
    GeneratedModel model = generateModel(seed);
    classes.insert(model.opClass);
    std::string name =
        "model seed=" + std::to_string(seed) + " (" + model.opClass + ")";
    kb::StatusOr<std::vector<Case>> cases = casesFromModel(name, model.mlir);
    ASSERT_TRUE(cases.ok()) << cases.status().message() << "\n" << model.mlir;
    EXPECT_FALSE(cases->empty()) << name << "\n" << model.mlir;
    for (const Case &c : *cases)
      expectAgreement(c, covered, uncovered);
  }
  if (seeds >= 40)
    EXPECT_EQ(classes.size(), 8u) << "every op class drawn";
  std::printf("%d models, %d dispatches agree, %d not covered; devices: %s\n",
              seeds, covered, uncovered, runner().describeDevices().c_str());
}

} // namespace

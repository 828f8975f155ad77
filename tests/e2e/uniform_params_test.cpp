//===- tests/e2e/uniform_params_test.cpp - Constants in a uniform buffer --===//
//
// tests/corpus/uniform_params: GLSL kernels that declare their constants as
// a uniform block of scalars (as Vulkan samples such as computeparticles
// do) instead of a push-constant block. The build takes the block's binding
// and std140 offsets from the SPIR-V and records them on the handwritten
// variant only (the generated reference keeps push constants); on Vulkan
// the standalone particle_step and the substituted scale_shift run, are
// benchmarked, and agree with their references. A block the ABI cannot
// fill (a vector member) is refused at build with what to do.
//
//===----------------------------------------------------------------------===//
#include "common/kbm/kbm_generated.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <set>

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

namespace {

const fs::path kProject =
    fs::path(KB_SOURCE_DIR) / "tests/corpus/uniform_params";

class UniformParamsTest : public kb::test::KernelBenchTest {
protected:
  UniformParamsTest() : KernelBenchTest("kb_uniform_params_test") {}
  void SetUp() override {
    REQUIRE_TOOL("glslc");
    REQUIRE_TOOL("spirv-val");
    KernelBenchTest::SetUp();
  }
};

/// What the variants of |executable| in the module |bytes| record of their
/// constants: for each variant, its role and, when it takes them in a
/// uniform buffer, the binding and offsets.
struct VariantConstants {
  kb::kbm::VariantRole role = kb::kbm::VariantRole::Reference;
  std::optional<uint32_t> binding;
  std::vector<uint32_t> offsets;
  uint32_t size = 0;
};
std::vector<VariantConstants> variantConstants(const std::string &bytes,
                                               const std::string &executable) {
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  if (!kb::kbm::VerifyModuleBuffer(verifier))
    return {};
  std::vector<VariantConstants> out;
  for (const kb::kbm::Executable *exe :
       *kb::kbm::GetModule(bytes.data())->executables()) {
    if (exe->name()->str() != executable)
      continue;
    for (const kb::kbm::ExecutableVariant *variant : *exe->variants()) {
      VariantConstants v;
      v.role = variant->role();
      const kb::kbm::UniformConstants *block =
          variant->exports()->Get(0)->uniform_constants();
      if (block) {
        v.binding = block->binding();
        if (block->offsets())
          v.offsets.assign(block->offsets()->begin(), block->offsets()->end());
        v.size = block->size();
      }
      out.push_back(v);
    }
  }
  return out;
}

TEST_F(UniformParamsTest, BuildsRunsAndBenchmarksOnVulkan) {
  kb::test::CliRun built = buildProject(kProject);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  json report = buildJson();
  for (const json &job : report.at("jobs"))
    EXPECT_EQ(job.at("status"), "ok") << job.dump(2);
  const json &program = report.at("program");
  ASSERT_EQ(program.at("status"), "ok") << program.dump(2);
  ASSERT_EQ(program.at("substitutions").size(), 1u) << program.dump(2);
  EXPECT_EQ(program.at("substitutions")[0].at("kernel"), "scale_shift");
  EXPECT_EQ(program.at("substitutions")[0].at("constants"),
            json({{"uniform_buffer",
                   {{"binding", 2}, {"offsets", {0, 4, 8}}, {"size", 12}}}}))
      << program.dump(2);

  // The handwritten variant takes the dispatch's constants (alpha, beta, n)
  // in a uniform buffer at binding 2, std140 offsets from its SPIR-V; the
  // generated reference keeps its push constants.
  std::vector<VariantConstants> variants =
      variantConstants(kb::test::readFile(out_ / "program.kbm"), "scale_shift");
  ASSERT_EQ(variants.size(), 2u);
  for (const VariantConstants &v : variants) {
    if (v.role == kb::kbm::VariantRole::Reference) {
      EXPECT_FALSE(v.binding);
      continue;
    }
    EXPECT_EQ(v.binding, 2u);
    EXPECT_EQ(v.offsets, (std::vector<uint32_t>{0, 4, 8}));
    EXPECT_EQ(v.size, 12u);
  }
  // particle_step's block sits at binding 5, past a free binding 4.
  variants = variantConstants(
      kb::test::readFile(out_ / "standalone/particle_step/program.kbm"),
      "particle_step");
  int candidates = 0;
  for (const VariantConstants &v : variants) {
    if (v.role != kb::kbm::VariantRole::Candidate)
      continue;
    ++candidates;
    EXPECT_EQ(v.binding, 5u);
    EXPECT_EQ(v.offsets, (std::vector<uint32_t>{0, 4, 8, 12}));
  }
  EXPECT_EQ(candidates, 1);

  kb::test::CliRun ran = run({"run", out_.string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
  kb::test::CliRun standalone =
      run({"run", (out_ / "standalone/particle_step").string(), "--device",
           "vulkan"});
  EXPECT_EQ(standalone.exitCode, 0) << standalone.output;
  EXPECT_THAT(standalone.output, HasSubstr("result: outputs agree"));

  kb::test::CliRun bench =
      run({"bench", out_.string(), "--device", "vulkan", "--quick"},
          {{"KB_CACHE_DIR", cache_.string()}});
  EXPECT_EQ(bench.exitCode, 0) << bench.output;
  json results = kb::test::readJsonFile(out_ / "results/bench.json");
  // Both benchmarks' handwritten kernels were checked against their
  // references and timed.
  std::set<std::string> checked;
  for (const json &b : results.at("benchmarks"))
    for (const json &v : b.at("variants")) {
      if (v.at("role") != "candidate")
        continue;
      EXPECT_EQ(v.at("correctness").at("status"), "correct") << v.dump(2);
      EXPECT_FALSE(v.at("timings").empty()) << v.dump(2);
      checked.insert(b.at("name").get<std::string>());
    }
  EXPECT_EQ(checked.size(), 2u) << results.dump(2);
}

TEST_F(UniformParamsTest, AbiTellsTheHandwrittenKernelTakesAUniformBlock) {
  kb::test::CliRun built = buildProject(kProject);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun abi = run({"abi", out_.string(), "scale_shift"});
  EXPECT_EQ(abi.exitCode, 0) << abi.output;
  EXPECT_THAT(abi.output,
              HasSubstr("handwritten constants:  uniform buffer at set 0 "
                        "binding 2 on vulkan:1.2 (std140 offsets 0, 4, 8; "
                        "12 bytes)"));
  EXPECT_THAT(abi.output, HasSubstr("or one uniform block of scalars"));
}

TEST_F(UniformParamsTest, RefusesABlockWithAVectorMember) {
  fs::path copy = tmp_ / "project";
  fs::copy(kProject, copy, fs::copy_options::recursive);
  kb::test::replaceInFile(copy / "scale_shift/scale_shift.comp",
                          "  float alpha;\n  float beta;\n",
                          "  vec2 alphaBeta;\n");
  kb::test::replaceInFile(copy / "scale_shift/scale_shift.comp",
                          "params.alpha * x[i] + params.beta",
                          "params.alphaBeta.x * x[i] + params.alphaBeta.y");
  kb::test::CliRun built = buildProject(copy);
  EXPECT_EQ(built.exitCode, 1) << built.output;
  EXPECT_THAT(built.output, HasSubstr("scale_shift.comp"));
  EXPECT_THAT(built.output,
              HasSubstr("uniform block `Params` at set 0 binding 2, member 0 "
                        "(`alphaBeta`): expected a scalar for constant 0 "
                        "(`alpha`), found a vector"));
}

} // namespace

//===- tests/e2e/corpus_test.cpp - third-party-style kernels, end to end
//---===//
//
// tests/corpus holds kernels written the way public projects write them
// (templates, bf16, cooperative groups, dynamic shared memory, mixed
// int/pointer parameters, extern "C" and not, a helper header, several
// kernels per source; GLSL subgroup operations, specialization constants,
// includes). They build with the real toolchains, pass the ABI checks,
// substitute the program's executables, and the Vulkan ones run on lavapipe
// and agree with their generated references. Without Vulkan the runs skip.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "common/kbm/kbm_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

namespace {

const fs::path kCorpus = fs::path(KB_SOURCE_DIR) / "tests/corpus";

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// The .kbm module in |bytes| once the FlatBuffers verifier accepts it.
const kb::kbm::Module *verifiedModule(const std::string &bytes) {
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  if (!kb::kbm::VerifyModuleBuffer(verifier))
    return nullptr;
  return kb::kbm::GetModule(bytes.data());
}

class CorpusTest : public kb::test::KernelBenchTest {
protected:
  CorpusTest() : KernelBenchTest("kb_corpus_test") {}
  void SetUp() override {
    REQUIRE_TOOL("glslc");
    REQUIRE_TOOL("spirv-val");
    KernelBenchTest::SetUp();
  }
};

TEST_F(CorpusTest, BuildsSubstitutesAndAgreesOnVulkan) {
  const bool cuda = kb::test::haveTool("nvcc") && kb::test::haveTool("ptxas");
  kb::test::CliRun b = buildProject(kCorpus);
  ASSERT_EQ(b.exitCode, 0) << b.output;
  json report = buildJson();

  // Every job built, ABI-checked (a mismatch fails the job).
  std::set<std::string> kernels;
  for (const json &job : report.at("jobs")) {
    EXPECT_EQ(job.at("status"), "ok") << job.dump(2);
    kernels.insert(job.at("kernel").get<std::string>());
  }
  EXPECT_GE(kernels.size(), cuda ? 10u : 6u) << report.dump(2);
  // relu, square and leaky_relu (three kernels of activations.cu, the same
  // flags) share one nvcc + ptxas: one job ran the tools, two reused it.
  if (cuda) {
    int shared = 0, ran = 0;
    for (const json &job : report.at("jobs"))
      if (job.at("source").get<std::string>().find("activations.cu") !=
          std::string::npos)
        ++(job.at("shared_compile_with").is_null() ? ran : shared);
    EXPECT_EQ(ran, 1) << report.dump(2);
    EXPECT_EQ(shared, 2) << report.dump(2);
  }

  // Four kernels substitute the program's executables on every target.
  const json &program = report.at("program");
  ASSERT_EQ(program.at("status"), "ok") << program.dump(2);
  std::map<std::string, int> substituted;
  for (const json &s : program.at("substitutions"))
    ++substituted[s.at("kernel").get<std::string>()];
  for (const char *kernel : {"relu", "square", "gather_rows", "block_sum"})
    EXPECT_EQ(substituted[kernel], cuda ? 2 : 1) << kernel;

  // block_sum's dynamic shared memory ("WARPS*4" = 32 bytes, kernel.toml) is
  // its own variants'; the generated reference keeps the export's (none).
  {
    std::string bytes = readFile(out_ / "program.kbm");
    const kb::kbm::Module *module = verifiedModule(bytes);
    ASSERT_NE(module, nullptr);
    int candidates = 0, references = 0;
    for (const kb::kbm::Executable *e : *module->executables()) {
      if (e->name()->str() != "block_sum")
        continue;
      for (const kb::kbm::ExecutableVariant *v : *e->variants()) {
        bool candidate = v->role() == kb::kbm::VariantRole::Candidate;
        ++(candidate ? candidates : references);
        EXPECT_EQ(v->exports()->Get(0)->dynamic_shared_memory_bytes(),
                  candidate ? 32u : 0u)
            << v->target()->str();
      }
    }
    EXPECT_EQ(candidates, cuda ? 2 : 1);
    EXPECT_GE(references, cuda ? 2 : 1); // CUDA: a PTX and a cubin
  }

  // leaky_relu's [bench] init (x uniform in [-8, 8)) reaches its program.
  {
    std::string bytes = readFile(out_ / "standalone/leaky_relu/program.kbm");
    const kb::kbm::Module *module = verifiedModule(bytes);
    ASSERT_NE(module, nullptr);
    const kb::kbm::InitSpec *x =
        module->functions()->Get(0)->buffers()->Get(0)->init();
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->distribution(), kb::kbm::Distribution::Uniform);
    EXPECT_EQ(x->low(), -8.0);
    EXPECT_EQ(x->high(), 8.0);
  }

  // tile_sum's [specialization] (local_size_x = 64 by dimension, TILE = 8
  // by name) is resolved against its SPIR-V and stored on its variant.
  {
    std::string bytes = readFile(out_ / "standalone/tile_sum/program.kbm");
    const kb::kbm::Module *module = verifiedModule(bytes);
    ASSERT_NE(module, nullptr);
    int candidates = 0;
    for (const kb::kbm::ExecutableVariant *v :
         *module->executables()->Get(0)->variants()) {
      const kb::kbm::Export *e = v->exports()->Get(0);
      if (v->role() != kb::kbm::VariantRole::Candidate) {
        EXPECT_EQ(e->specialization(), nullptr); // the generated reference
        continue;
      }
      ++candidates;
      ASSERT_NE(e->specialization(), nullptr);
      ASSERT_EQ(e->specialization()->size(), 2u);
      const kb::kbm::SpecializationConstant *x = e->specialization()->Get(0);
      const kb::kbm::SpecializationConstant *tile = e->specialization()->Get(1);
      EXPECT_EQ(x->id(), 0u);
      EXPECT_EQ(x->name()->str(), "local_size_x");
      EXPECT_EQ(x->size(), 4u);
      EXPECT_EQ(x->bits(), 64u);
      EXPECT_EQ(tile->id(), 1u);
      EXPECT_EQ(tile->name()->str(), "TILE");
      EXPECT_EQ(tile->bits(), 8u);
      EXPECT_EQ(e->subgroup_size(), 0u);
    }
    EXPECT_EQ(candidates, 1);
  }

  // Every standalone kernel got its benchmark program.
  std::map<std::string, json> standalone;
  for (const json &entry : program.at("standalone"))
    standalone[entry.at("kernel").get<std::string>()] = entry;
  std::vector<std::string> expected = {
      "leaky_relu", "spec_scale", "workgroup_max", "tile_sum", "own_workgroup"};
  if (cuda)
    for (const char *k : {"bf16_scale", "add_offset_i64", "transpose_tile"})
      expected.push_back(k);
  for (const std::string &name : expected) {
    ASSERT_TRUE(standalone.count(name)) << name << ": " << program.dump(2);
    EXPECT_EQ(standalone[name].at("status"), "ok") << name;
    EXPECT_FALSE(standalone[name].at("targets").empty()) << name;
    // Benchmarks carry the kernel.toml name, never the entry (`main`, a
    // mangled C++ name such as _Z12scale_kernelI13__nv_bfloat16E...).
    const json &benchmarks = standalone[name].at("benchmarks");
    ASSERT_EQ(benchmarks.size(), 1u) << name;
    EXPECT_THAT(benchmarks[0].at("name").get<std::string>(),
                ::testing::MatchesRegex(name + "_[0-9]+x[0-9]+x[0-9]+"));
  }
  EXPECT_EQ(standalone["spec_scale"].at("benchmarks")[0].at("name"),
            "spec_scale_10000x1x1");
  if (cuda)
    EXPECT_EQ(standalone["bf16_scale"].at("benchmarks")[0].at("name"),
              "bf16_scale_1048576x1x1");

  // own_workgroup's launch is its own (128, ceil(n / 128) workgroups), not
  // its reference's (1, n workgroups): build.json and `abi` say so.
  {
    const json &sub = standalone["own_workgroup"].at("substitutions").at(0);
    EXPECT_EQ(sub.at("launch").at("workgroup_size"), json({128, 1, 1}))
        << sub.dump(2);
    EXPECT_EQ(
        standalone["own_workgroup"].at("benchmarks")[0].at("workgroup_count"),
        json({10000, 1, 1}));
    kb::test::CliRun abi = run(
        {"abi", (out_ / "standalone/own_workgroup").string(), "own_workgroup"});
    EXPECT_EQ(abi.exitCode, 0) << abi.output;
    EXPECT_THAT(abi.output,
                HasSubstr("handwritten kernel:     128x1x1 on vulkan:1.2, "
                          "ceil(workload / 128x1x1) workgroups"));
    EXPECT_THAT(abi.output, HasSubstr("handwritten (vulkan:1.2): 79x1x1 "
                                      "workgroups of 128x1x1"));
  }

  // The program with the substitutions agrees with the generated one.
  kb::test::CliRun r = run({"run", out_.string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("result: outputs agree"));
  // own_workgroup runs at its own workgroup size (128), not its
  // reference's (1), without declaring a count rule.
  for (const char *name : {"leaky_relu", "spec_scale", "workgroup_max",
                           "tile_sum", "own_workgroup"}) {
    kb::test::CliRun k = run(
        {"run", (out_ / "standalone" / name).string(), "--device", "vulkan"});
    EXPECT_EQ(k.exitCode, 0) << name << ": " << k.output;
    EXPECT_THAT(k.output, HasSubstr("result: outputs agree")) << name;
  }
}

} // namespace

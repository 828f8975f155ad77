//===- tests/e2e/cuda_template_test.cpp - a templated CUDA entry ----------===//
//
// tests/corpus/matrix_mul: a cuda-samples-style MatrixMulCUDA<BLOCK_SIZE>
// that its source never instantiates, with `entry = "MatrixMulCUDA<
// BLOCK_SIZE>"` and BLOCK_SIZE tuned. `build` instantiates the instance of
// each configuration's value, checks its ABI, reports the workgroup size as
// unchecked (no __launch_bounds__) and launches the mangled entry from the
// .kbm. No GPU is needed: build, ABI check and the module's contents.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "common/kbm/kbm_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

namespace {

const fs::path kKernel = fs::path(KB_SOURCE_DIR) / "tests/corpus/matrix_mul";

class CudaTemplateTest : public kb::test::KernelBenchTest {
protected:
  CudaTemplateTest() : KernelBenchTest("kb_cuda_template_test") {}
  void SetUp() override {
    REQUIRE_TOOL("nvcc");
    REQUIRE_TOOL("ptxas");
    KernelBenchTest::SetUp();
    // A copy, so that a tuned.toml can sit beside it.
    kernel_ = tmp_ / "matrix_mul";
    fs::copy(kKernel, kernel_, fs::copy_options::recursive);
    std::ofstream(tmp_ / "workbench.toml")
        << "[project]\nname = \"p\"\nkernels = [\"matrix_mul\"]\n"
           "targets = [\"cuda:sm_90\"]\n";
  }
  /// The entry and workgroup size of the candidate variant of the
  /// standalone program's module.
  std::pair<std::string, std::vector<uint32_t>> candidateExport() {
    std::ifstream in(out_ / "standalone/matrix_mul/program.kbm",
                     std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    flatbuffers::Verifier verifier(
        reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
    if (!kb::kbm::VerifyModuleBuffer(verifier))
      return {"(no module)", {}};
    const kb::kbm::Module *module = kb::kbm::GetModule(bytes.data());
    for (const kb::kbm::ExecutableVariant *v :
         *module->executables()->Get(0)->variants())
      if (v->role() == kb::kbm::VariantRole::Candidate) {
        const kb::kbm::Export *e = v->exports()->Get(0);
        const kb::kbm::Dim3 *d = e->workgroup_size();
        std::vector<uint32_t> size = {d->x(), d->y(), d->z()};
        return {e->entry()->str(), size};
      }
    return {"(no candidate)", {}};
  }
  fs::path kernel_;
};

TEST_F(CudaTemplateTest, EachConfigurationBuildsAndLaunchesItsInstance) {
  kb::test::CliRun b = buildProject(tmp_, {"-j", "2"});
  ASSERT_EQ(b.exitCode, 0) << b.output;
  json report = buildJson();
  ASSERT_EQ(report.at("jobs").size(), 1u);
  const json &job = report.at("jobs")[0];
  EXPECT_EQ(job.at("status"), "ok") << job.dump(2);
  EXPECT_EQ(job.at("entry").get<std::string>(), "MatrixMulCUDA<16>");
  // BLOCK_SIZE is the template's argument, not a macro that would replace
  // the template parameter of that name.
  EXPECT_THAT(job.at("commands").dump(), ::testing::Not(HasSubstr("-DBLOCK")));
  // The rerunnable nvcc command compiles a published instance file that
  // includes the user's source, not the private directory's copy.
  fs::path instance = out_ / "kernels/matrix_mul/sm_90.instance.cu";
  EXPECT_THAT(job.at("commands")[0].at("rerun").get<std::string>(),
              HasSubstr(instance.string()));
  EXPECT_THAT(
      kb::test::readFile(instance),
      HasSubstr("#include \"" + (kernel_ / "matrix_mul.cu").string() + "\"\n"));
  EXPECT_THAT(kb::test::readFile(instance), HasSubstr("&MatrixMulCUDA<16>;"));
  // No __launch_bounds__: the workgroup size is said to be unchecked.
  EXPECT_THAT(job.at("diagnostics").dump(),
              HasSubstr("the workgroup size 16x16x1 cannot be checked against "
                        "`_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii`"));
  EXPECT_THAT(b.output, HasSubstr("add __launch_bounds__"));
  auto [entry, size] = candidateExport();
  EXPECT_EQ(entry, "_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii");
  EXPECT_EQ(size, (std::vector<uint32_t>{16, 16, 1}));
  // Benchmarked under the kernel's name, whatever the instance.
  const json &standalone = report.at("program").at("standalone").at(0);
  EXPECT_EQ(standalone.at("status"), "ok") << standalone.dump(2);
  EXPECT_EQ(standalone.at("benchmarks")[0].at("name"), "matrix_mul_128x192x1");

  // The other configuration `tune` builds, as tuned.toml gives it to build.
  std::ofstream(kernel_ / "tuned.toml")
      << "[[best]]\nbackend = \"cuda\"\nvalues = { BLOCK_SIZE = 32 }\n";
  b = buildProject(tmp_, {"-j", "2"});
  ASSERT_EQ(b.exitCode, 0) << b.output;
  EXPECT_EQ(buildJson().at("jobs")[0].at("entry").get<std::string>(),
            "MatrixMulCUDA<32>");
  std::tie(entry, size) = candidateExport();
  EXPECT_EQ(entry, "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii");
  EXPECT_EQ(size, (std::vector<uint32_t>{32, 32, 1}));
}

// The messages a user meets, end to end: the build fails for the kernel
// and says why.
TEST_F(CudaTemplateTest, AnEntryThatNamesNoInstanceIsRefused) {
  // Edits the copy's kernel.toml.
  auto entry = [&](const std::string &from, const std::string &to) {
    std::ifstream in(kernel_ / "kernel.toml");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    text.replace(text.find(from), from.size(), to);
    std::ofstream(kernel_ / "kernel.toml") << text;
  };
  entry("entry = \"MatrixMulCUDA<BLOCK_SIZE>\"",
        "entry = \"MatMul<BLOCK_SIZE>\"");
  kb::test::CliRun b = buildProject(tmp_);
  EXPECT_EQ(b.exitCode, 1) << b.output;
  EXPECT_THAT(b.output,
              HasSubstr("`entry` names the template `MatMul`, which "));
  EXPECT_THAT(b.output, HasSubstr("matrix_mul.cu does not define"));

  entry("entry = \"MatMul<BLOCK_SIZE>\"", "entry = \"MatrixMulCUDA<TILE>\"");
  b = buildProject(tmp_);
  EXPECT_EQ(b.exitCode, 1) << b.output;
  EXPECT_THAT(b.output, HasSubstr("template argument `TILE` is neither tuned"));

  // A tile edge of 0: nvcc's own error, in the user's file.
  entry("default = 16 }", "default = 16 }\n[kernel.defines]\nZERO = 0");
  entry("entry = \"MatrixMulCUDA<TILE>\"", "entry = \"MatrixMulCUDA<ZERO>\"");
  b = buildProject(tmp_);
  EXPECT_EQ(b.exitCode, 1) << b.output;
  EXPECT_THAT(b.output,
              HasSubstr("instantiating `MatrixMulCUDA<0>` (`entry`): "));
  EXPECT_THAT(b.output, HasSubstr("matrix_mul.cu:"));
}

} // namespace

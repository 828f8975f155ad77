//===- workbench/project/kernel_toml_pipeline_test.cpp --------------------===//
// kernel.toml's `subgroup_size`, `full_subgroups` and [specialization]: what
// is read, and every bad input (file:line, key, what to do). The values are
// checked against the SPIR-V after the build (common/specialization_test).
#include "workbench/project/kernel_toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

using toolchains::Language;

constexpr const char *kAbi = R"(
[abi]
workgroup_size = [64, 1, 1]
bindings = [{ name = "x", type = "f32", access = "readwrite" }]
)";

class KernelTomlPipelineTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kb_kernel_toml_pipeline_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ / "k.comp") << "// glsl\n";
    std::ofstream(dir_ / "k.cu") << "// cuda\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// kernel.toml with [kernel] for |sources|, |abiExtra| appended to [abi]
  /// and |rest| after it.
  StatusOr<Kernel> load(const std::string &sources, const std::string &abiExtra,
                        const std::string &rest = "",
                        const std::string &kernelExtra = "") {
    std::ofstream(dir_ / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsources = [" << sources << "]\n"
        << kernelExtra << kAbi << abiExtra << "\n"
        << rest;
    return loadKernel(dir_ / "kernel.toml", {});
  }
  std::string error(const std::string &sources, const std::string &abiExtra,
                    const std::string &rest = "",
                    const std::string &kernelExtra = "") {
    auto kernel = load(sources, abiExtra, rest, kernelExtra);
    EXPECT_FALSE(kernel.ok());
    if (kernel.ok())
      return "";
    EXPECT_EQ(kernel.status().code(), StatusCode::InvalidArgument);
    EXPECT_THAT(kernel.status().message(), HasSubstr("kernel.toml:"));
    return kernel.status().message();
  }

  fs::path dir_;
};

TEST_F(KernelTomlPipelineTest, ReadsSubgroupSizeAndSpecialization) {
  auto kernel =
      load("\"k.comp\", \"k.cu\"", "subgroup_size = 32\nfull_subgroups = true",
           "[specialization]\nTILE = 8\nSCALE = 0.5\nFLAG = true\n"
           "local_size_x = 64\n");
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  ASSERT_EQ(kernel->specs.size(), 2u);
  for (const toolchains::KernelSpec &spec : kernel->specs) {
    EXPECT_EQ(spec.abi.subgroupSize, 32u);
    EXPECT_TRUE(spec.abi.fullSubgroups);
    if (spec.language == Language::Cuda) {
      EXPECT_TRUE(spec.specialization.empty()); // SPIR-V only
      continue;
    }
    ASSERT_EQ(spec.specialization.size(), 4u);
    std::map<std::string, std::string> values;
    for (const SpecializationSetting &s : spec.specialization)
      values[s.key] = s.value;
    EXPECT_EQ(values["TILE"], "8");
    EXPECT_EQ(values["SCALE"], "0.5");
    EXPECT_EQ(values["FLAG"], "true");
    EXPECT_EQ(values["local_size_x"], "64");
  }
}

TEST_F(KernelTomlPipelineTest, SubgroupSizeIsAPowerOfTwoUpTo128) {
  for (const char *bad : {"48", "0", "256", "\"32\""}) {
    std::string e = error("\"k.comp\"", std::string("subgroup_size = ") + bad);
    EXPECT_THAT(e, HasSubstr("subgroup_size")) << bad;
    EXPECT_THAT(e, HasSubstr("power of two")) << bad;
  }
}

TEST_F(KernelTomlPipelineTest, CudaWarpsAreAlways32) {
  std::string e = error("\"k.comp\", \"k.cu\"", "subgroup_size = 64");
  EXPECT_THAT(e, HasSubstr("`subgroup_size` = 64"));
  EXPECT_THAT(e, HasSubstr("CUDA source"));
  EXPECT_THAT(e, HasSubstr("always 32 wide"));
  EXPECT_TRUE(load("\"k.cu\"", "subgroup_size = 32").ok());
}

TEST_F(KernelTomlPipelineTest, FullSubgroupsNeedASizeAndAMultipleOfIt) {
  EXPECT_THAT(error("\"k.comp\"", "full_subgroups = true"),
              HasSubstr("`full_subgroups` needs `subgroup_size`"));
  std::string e = error("\"k.comp\"", "subgroup_size = 128\n"
                                      "full_subgroups = true");
  EXPECT_THAT(e, HasSubstr("workgroup_size x (64) to be a multiple of "
                           "subgroup_size (128)"));
}

TEST_F(KernelTomlPipelineTest, SpecializationOnACudaOnlyKernel) {
  std::string e = error("\"k.cu\"", "", "[specialization]\nTILE = 8\n");
  EXPECT_THAT(e, HasSubstr("SPIR-V specialization constants"));
  EXPECT_THAT(e, HasSubstr("no GLSL source"));
  EXPECT_THAT(e, HasSubstr("use [kernel.defines] instead"));
}

TEST_F(KernelTomlPipelineTest, ANameIsADefineOrASpecializationConstant) {
  std::string e = error("\"k.comp\"", "", "[specialization]\nTILE = 8\n",
                        "defines = { TILE = 4, OTHER = 1 }\n");
  EXPECT_THAT(e, HasSubstr("`TILE` is both a define"));
  EXPECT_THAT(e, HasSubstr("[kernel.defines]"));
  EXPECT_THAT(e, HasSubstr("[specialization]"));
  // Both places are located: the define's line (4) and the table's.
  EXPECT_THAT(e, HasSubstr("kernel.toml:4:"));
}

TEST_F(KernelTomlPipelineTest, SpecializationValuesAreNumbersOrBooleans) {
  std::string e = error("\"k.comp\"", "", "[specialization]\nTILE = \"8\"\n");
  EXPECT_THAT(e, HasSubstr("specialization.TILE"));
  EXPECT_THAT(e, HasSubstr("an integer, a float or a boolean"));
}

TEST_F(KernelTomlPipelineTest, UnknownKeyInAbiStillSuggests) {
  EXPECT_THAT(error("\"k.comp\"", "subgroupsize = 32"),
              HasSubstr("subgroup_size"));
}

} // namespace
} // namespace kb::workbench

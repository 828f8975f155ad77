//===- tests/e2e/own_terms_test.cpp - A CUDA kernel on its own terms ------===//
//
// tests/corpus/own_terms: a cuda-samples-style transposeNaive(odata, idata,
// width, height), C++ linkage, substitutes a program's @transpose, whose
// bindings are (idata, odata), under its own name (`entry`) and in its own
// parameter order ([abi] `parameters`). The build checks its PTX in that
// order and the .kbm carries the order to the launch; where a CUDA device
// exists, `run` checks it against the generated transpose. Without
// `parameters` the PTX fits just as well (two pointers), so the source's
// parameter names are what refuse it.
//
//===----------------------------------------------------------------------===//
#include "common/kbm/kbm_generated.h"
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kProject = fs::path(KB_SOURCE_DIR) / "tests/corpus/own_terms";

class OwnTermsTest : public kb::test::KernelBenchTest {
protected:
  OwnTermsTest() : KernelBenchTest("kb_own_terms_test") {}
  void SetUp() override {
    REQUIRE_TOOL("nvcc");
    REQUIRE_TOOL("ptxas");
    KernelBenchTest::SetUp();
  }
};

/// The parameter order and entry of |module|'s candidate CUDA variant of
/// @transpose; the entry is empty when there is none.
std::pair<std::string, std::vector<uint32_t>>
candidateLaunch(const std::string &bytes) {
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  if (!kb::kbm::VerifyModuleBuffer(verifier))
    return {};
  for (const kb::kbm::Executable *exe :
       *kb::kbm::GetModule(bytes.data())->executables()) {
    if (exe->name()->str() != "transpose")
      continue;
    for (const kb::kbm::ExecutableVariant *variant : *exe->variants()) {
      if (variant->role() != kb::kbm::VariantRole::Candidate ||
          variant->format() == kb::kbm::ExecutableFormat::Spirv)
        continue;
      const kb::kbm::Export *e = variant->exports()->Get(0);
      std::vector<uint32_t> order;
      if (e->parameter_order())
        order.assign(e->parameter_order()->begin(),
                     e->parameter_order()->end());
      return {e->entry()->str(), order};
    }
  }
  return {};
}

TEST_F(OwnTermsTest, SubstitutesUnderItsOwnNameAndParameterOrder) {
  kb::test::CliRun built = buildProject(kProject);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  auto [entry, order] =
      candidateLaunch(kb::test::readFile(out_ / "program.kbm"));
  // The mangled name of transposeNaive(float*, float const*, int, int).
  EXPECT_EQ(entry, "_Z14transposeNaivePfPKfii");
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 0, 2, 3}));

  // Skipped for the machine, not for kernel-bench's exit 77: that would also
  // hide "no variant for cuda:0" on a machine with a GPU.
  if (!kb::testing::cudaDeviceListed())
    GTEST_SKIP() << kb::testing::noCudaReason()
                 << ": the launch in the kernel's own order runs where there "
                    "is one";
  kb::test::CliRun ran = run({"run", out_.string(), "--device", "cuda"});
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
}

TEST_F(OwnTermsTest, SourceNamesRefuseTheDispatchOrderWithoutParameters) {
  fs::path copy = tmp_ / "project";
  fs::copy(kProject, copy, fs::copy_options::recursive);
  fs::path toml = copy / "transpose_naive/kernel.toml";
  std::string text = kb::test::readFile(toml);
  text = std::regex_replace(text, std::regex("\nparameters = [^\n]*"), "");
  std::ofstream(toml, std::ios::trunc) << text;

  kb::test::CliRun built = buildProject(copy);
  EXPECT_EQ(built.exitCode, 1) << built.output;
  EXPECT_THAT(built.output,
              HasSubstr("declares its parameters as (odata, idata, width, "
                        "height), but [abi] passes (idata, odata, width, "
                        "height)"));
  EXPECT_THAT(built.output, HasSubstr("parameters = [\"odata\", \"idata\", "
                                      "\"width\", \"height\"]"));
}

TEST_F(OwnTermsTest, ParametersNameEveryBindingAndConstantOnce) {
  fs::path copy = tmp_ / "project";
  fs::copy(kProject, copy, fs::copy_options::recursive);
  fs::path toml = copy / "transpose_naive/kernel.toml";
  std::string text = kb::test::readFile(toml);
  std::string fewer =
      std::regex_replace(text, std::regex("parameters = [^\n]*"),
                         "parameters = [\"odata\", \"idata\", \"width\"]");
  std::ofstream(toml, std::ios::trunc) << fewer;
  kb::test::CliRun missing = buildProject(copy);
  EXPECT_EQ(missing.exitCode, 1) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("kernel.toml:"));
  EXPECT_THAT(missing.output, HasSubstr("constant 1 (`height`) is missing"));

  std::string unknown = std::regex_replace(
      text, std::regex("parameters = [^\n]*"),
      "parameters = [\"out\", \"idata\", \"width\", \"height\"]");
  std::ofstream(toml, std::ios::trunc) << unknown;
  kb::test::CliRun typo = buildProject(copy);
  EXPECT_EQ(typo.exitCode, 1) << typo.output;
  EXPECT_THAT(typo.output,
              HasSubstr("parameters[0]: `out` names no binding or constant"));
}

} // namespace

//===- kernels/kernels_test.cpp - Build and ABI-check every bundled kernel
//-===//
//
// For each kernels/*/kernel.toml, read by the product's reader (loadKernel,
// so [tune] defaults, tuned.toml and launch-shape expressions are applied
// exactly as `build` applies them): CUDA sources through `nvcc -ptx
// -arch=sm_90` and `ptxas -arch=sm_90 -v --warn-on-spills
// --warning-as-error`, GLSL sources through `glslc --target-env=vulkan1.2`
// and `spirv-val --target-env vulkan1.2`, each with the spec's defines; then
// the PTX `.entry` and the SPIR-V interface are checked against the spec's
// evaluated ABI with common/abi_check. Tools that are missing skip their
// half with the reason.
//
//===----------------------------------------------------------------------===//
#include "common/abi_check.h"
#include "common/test_util.h"
#include "workbench/project/kernel_toml.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

namespace kb {
namespace {

namespace fs = std::filesystem;
using ::kb::testing::findTool;
using ::kb::testing::readFile;
using ::kb::testing::runCommand;
using ::kb::testing::shellQuote;
using toolchains::Language;

std::string kernelsDir() { return std::string(KB_SOURCE_DIR) + "/kernels"; }

std::vector<std::string> kernelNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(kernelsDir(), ec))
    if (entry.is_directory() && fs::exists(entry.path() / "kernel.toml"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// The spec's defines and include directories as tool flags (`-DNAME=VALUE`
/// works for nvcc and glslc alike).
std::string sourceFlags(const toolchains::KernelSpec &spec) {
  std::string flags;
  for (const auto &[name, value] : spec.defines)
    flags += " " + shellQuote("-D" + name + "=" + value);
  for (const fs::path &dir : spec.includeDirs)
    flags += " -I " + shellQuote(dir.string());
  return flags;
}

/// An ABI that must not fit: one more u32 constant.
KernelAbi perturbed(KernelAbi abi) {
  abi.constants.push_back({"extra", ScalarType::U32});
  return abi;
}

class BundledKernel : public ::testing::TestWithParam<std::string> {
protected:
  std::string dir() const { return kernelsDir() + "/" + GetParam(); }
  /// The kernel as `build` reads it; fails the test when it does not load.
  workbench::Kernel load() const {
    StatusOr<workbench::Kernel> kernel =
        workbench::loadKernel(fs::path(dir()) / "kernel.toml", {});
    EXPECT_TRUE(kernel.ok()) << kernel.status().message();
    if (!kernel.ok())
      return {};
    EXPECT_EQ(kernel->name, GetParam()) << "the name should be the directory";
    return *kernel;
  }
};

TEST_P(BundledKernel, HasCudaAndGlslSourcesAndSizeConstants) {
  workbench::Kernel kernel = load();
  bool cuda = false, glsl = false;
  for (const toolchains::KernelSpec &spec : kernel.specs) {
    EXPECT_TRUE(fs::exists(spec.source)) << spec.source;
    cuda = cuda || spec.language == Language::Cuda;
    glsl = glsl || spec.language == Language::Glsl;
    // Every kernel takes its sizes as u32 constants, so the workload can be
    // derived from them.
    bool hasSize = false;
    for (const Constant &c : spec.abi.constants)
      hasSize = hasSize || c.type == ScalarType::U32;
    EXPECT_TRUE(hasSize) << spec.source;
    EXPECT_FALSE(spec.abi.bindings.empty()) << spec.source;
  }
  EXPECT_TRUE(cuda) << "no .cu source";
  EXPECT_TRUE(glsl) << "no GLSL source";
}

TEST_P(BundledKernel, CudaBuildsForSm90WithoutSpillsAndFitsItsAbi) {
  auto nvcc = findTool("nvcc");
  auto ptxas = findTool("ptxas");
  if (!nvcc || !ptxas)
    GTEST_SKIP() << "nvcc/ptxas not found on PATH, $CUDA_PATH/bin or "
                    "/usr/local/cuda/bin";
  workbench::Kernel kernel = load();
  kb::TempDir tmp = kb::testing::makeTempDir();
  for (const toolchains::KernelSpec &spec : kernel.specs) {
    if (spec.language != Language::Cuda)
      continue;
    SCOPED_TRACE(spec.source.string());
    std::string ptx = tmp.file("k.ptx");
    auto nvccRun = runCommand(
        shellQuote(*nvcc) + " -ptx -arch=sm_90" + sourceFlags(spec) + " " +
            shellQuote(spec.source.string()) + " -o " + shellQuote(ptx),
        tmp.file("nvcc.log"));
    ASSERT_EQ(nvccRun.exitCode, 0) << nvccRun.output;
    EXPECT_EQ(nvccRun.output, "") << "nvcc warnings";
    auto ptxasRun = runCommand(
        shellQuote(*ptxas) +
            " -arch=sm_90 -v --warn-on-spills --warning-as-error " +
            shellQuote(ptx) + " -o " + shellQuote(tmp.file("k.cubin")),
        tmp.file("ptxas.log"));
    ASSERT_EQ(ptxasRun.exitCode, 0) << ptxasRun.output;
    EXPECT_NE(ptxasRun.output.find("0 bytes spill stores, 0 bytes spill loads"),
              std::string::npos)
        << ptxasRun.output;

    StatusOr<PtxModule> module = readPtx(readFile(ptx));
    ASSERT_TRUE(module.ok()) << module.status().message();
    EXPECT_EQ(formatMismatches(checkPtxAbi(*module, spec.abi)), "");
    EXPECT_NE(formatMismatches(checkPtxAbi(*module, perturbed(spec.abi))), "");
  }
}

TEST_P(BundledKernel, GlslBuildsForVulkan12AndFitsItsAbi) {
  auto glslc = findTool("glslc");
  auto spirvVal = findTool("spirv-val");
  if (!glslc || !spirvVal)
    GTEST_SKIP() << "glslc/spirv-val not found on PATH (apt-get install "
                    "glslc spirv-tools)";
  workbench::Kernel kernel = load();
  kb::TempDir tmp = kb::testing::makeTempDir();
  for (const toolchains::KernelSpec &spec : kernel.specs) {
    if (spec.language != Language::Glsl)
      continue;
    SCOPED_TRACE(spec.source.string());
    std::string spv = tmp.file("k.spv");
    auto glslcRun = runCommand(
        shellQuote(*glslc) + " -fshader-stage=compute --target-env=vulkan1.2" +
            sourceFlags(spec) + " " + shellQuote(spec.source.string()) +
            " -o " + shellQuote(spv),
        tmp.file("glslc.log"));
    ASSERT_EQ(glslcRun.exitCode, 0) << glslcRun.output;
    EXPECT_EQ(glslcRun.output, "") << "glslc warnings";
    auto valRun = runCommand(shellQuote(*spirvVal) +
                                 " --target-env vulkan1.2 " + shellQuote(spv),
                             tmp.file("val.log"));
    ASSERT_EQ(valRun.exitCode, 0) << valRun.output;

    StatusOr<SpirvModule> module = readSpirvBytes(readFile(spv));
    ASSERT_TRUE(module.ok()) << module.status().message();
    EXPECT_EQ(formatMismatches(checkSpirvAbi(*module, spec.abi)), "");
    EXPECT_NE(formatMismatches(checkSpirvAbi(*module, perturbed(spec.abi))),
              "");
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, BundledKernel,
                         ::testing::ValuesIn(kernelNames()),
                         [](const auto &info) { return info.param; });

TEST(KernelLibrary, HoldsTheDocumentedKernels) {
  std::vector<std::string> expected = {
      "copy",  "matmul_naive", "matmul_tiled", "reduce_sum",
      "saxpy", "softmax",      "transpose"};
  std::vector<std::string> names = kernelNames();
  for (const std::string &name : expected)
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end())
        << "kernels/" << name << "/kernel.toml is missing";
}

} // namespace
} // namespace kb

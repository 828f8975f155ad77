//===- kernels/kernels_test.cpp - Build and ABI-check every bundled kernel
//-===//
//
// For each kernels/*/kernel.toml: CUDA sources through `nvcc -ptx
// -arch=sm_90` and `ptxas -arch=sm_90 -v --warn-on-spills --warning-as-error`,
// GLSL sources through `glslc --target-env=vulkan1.2` and `spirv-val
// --target-env vulkan1.2`; then the PTX `.entry` and the SPIR-V interface are
// checked against the [abi] table with common/abi_check. Tools that are
// missing skip their half with the reason.
//
// The kernel.toml reading here is test-only and covers the fields this test
// needs; the product's reader lives in workbench/.
//
//===----------------------------------------------------------------------===//
#include "common/abi_check.h"
#include "common/test_util.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include "workbench/toml.h"

namespace kb {
namespace {

namespace fs = std::filesystem;
using ::kb::testing::findTool;
using ::kb::testing::readFile;
using ::kb::testing::runCommand;
using ::kb::testing::shellQuote;

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

struct KernelSpec {
  std::vector<std::string> sources;
  KernelAbi abi;
};

/// Reads the fields of kernel.toml this test needs; fails the test on
/// anything it cannot read.
KernelSpec readSpec(const std::string &dir, const std::string &name) {
  KernelSpec spec;
  std::string path = dir + "/kernel.toml";
  // Debian's toml++ is built with exceptions: parse errors throw.
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error &error) {
    ADD_FAILURE() << path << ": " << error.description();
    return spec;
  }
  if (auto sources = t["kernel"]["sources"].as_array()) {
    for (const auto &s : *sources)
      spec.sources.push_back(s.value_or(std::string()));
  } else if (auto source = t["kernel"]["source"].value<std::string>()) {
    spec.sources.push_back(*source);
  }
  std::string kernelName = t["kernel"]["name"].value_or(name);
  EXPECT_EQ(kernelName, name) << path << ": the name should be the directory";
  spec.abi.entry = t["kernel"]["entry"].value_or(kernelName);

  const auto abi = t["abi"];
  if (auto wg = abi["workgroup_size"].as_array()) {
    EXPECT_EQ(wg->size(), 3u) << path;
    for (size_t i = 0; i < std::min<size_t>(3, wg->size()); ++i)
      spec.abi.workgroupSize[i] =
          static_cast<uint32_t>((*wg)[i].value_or(int64_t{0}));
  } else {
    ADD_FAILURE() << path << ": [abi] workgroup_size missing";
  }
  spec.abi.dynamicSharedMemoryBytes =
      static_cast<uint32_t>(abi["dynamic_shared_memory"].value_or(int64_t{0}));
  if (auto bindings = abi["bindings"].as_array()) {
    for (const auto &node : *bindings) {
      const toml::table *b = node.as_table();
      if (!b) {
        ADD_FAILURE() << path << ": a binding is not an inline table";
        continue;
      }
      Binding binding;
      binding.name = (*b)["name"].value_or(std::string());
      auto type = parseElementType((*b)["type"].value_or(std::string()));
      auto access = parseAccess((*b)["access"].value_or(std::string()));
      EXPECT_TRUE(type && access) << path << ": binding `" << binding.name
                                  << "` has a bad type or access";
      binding.elementType = type.value_or(ElementType::F32);
      binding.access = access.value_or(Access::ReadWrite);
      spec.abi.bindings.push_back(binding);
    }
  }
  if (auto constants = abi["constants"].as_array()) {
    for (const auto &node : *constants) {
      const toml::table *c = node.as_table();
      if (!c) {
        ADD_FAILURE() << path << ": a constant is not an inline table";
        continue;
      }
      Constant constant;
      constant.name = (*c)["name"].value_or(std::string());
      auto type = parseScalarType((*c)["type"].value_or(std::string()));
      EXPECT_TRUE(type) << path << ": constant `" << constant.name
                        << "` has a bad type";
      constant.type = type.value_or(ScalarType::U32);
      spec.abi.constants.push_back(constant);
    }
  }
  return spec;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// An ABI that must not fit: one more u32 constant.
KernelAbi perturbed(KernelAbi abi) {
  abi.constants.push_back({"extra", ScalarType::U32});
  return abi;
}

class BundledKernel : public ::testing::TestWithParam<std::string> {
protected:
  std::string dir() const { return kernelsDir() + "/" + GetParam(); }
};

TEST_P(BundledKernel, HasCudaAndGlslSourcesAndSizeConstants) {
  KernelSpec spec = readSpec(dir(), GetParam());
  bool cuda = false, glsl = false;
  for (const std::string &s : spec.sources) {
    EXPECT_TRUE(fs::exists(dir() + "/" + s)) << s;
    cuda = cuda || endsWith(s, ".cu");
    glsl = glsl || endsWith(s, ".comp") || endsWith(s, ".glsl");
  }
  EXPECT_TRUE(cuda) << "no .cu source";
  EXPECT_TRUE(glsl) << "no GLSL source";
  // Every kernel takes its sizes as u32 constants, so the workload can be
  // derived from them.
  bool hasSize = false;
  for (const Constant &c : spec.abi.constants)
    hasSize = hasSize || c.type == ScalarType::U32;
  EXPECT_TRUE(hasSize);
  EXPECT_FALSE(spec.abi.bindings.empty());
}

TEST_P(BundledKernel, CudaBuildsForSm90WithoutSpillsAndFitsItsAbi) {
  auto nvcc = findTool("nvcc");
  auto ptxas = findTool("ptxas");
  if (!nvcc || !ptxas)
    GTEST_SKIP() << "nvcc/ptxas not found on PATH, $CUDA_PATH/bin or "
                    "/usr/local/cuda/bin";
  KernelSpec spec = readSpec(dir(), GetParam());
  kb::TempDir tmp = kb::testing::makeTempDir();
  for (const std::string &source : spec.sources) {
    if (!endsWith(source, ".cu"))
      continue;
    SCOPED_TRACE(source);
    std::string ptx = tmp.file("k.ptx");
    auto nvccRun = runCommand(shellQuote(*nvcc) + " -ptx -arch=sm_90 " +
                                  shellQuote(dir() + "/" + source) + " -o " +
                                  shellQuote(ptx),
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
  KernelSpec spec = readSpec(dir(), GetParam());
  kb::TempDir tmp = kb::testing::makeTempDir();
  for (const std::string &source : spec.sources) {
    if (!endsWith(source, ".comp") && !endsWith(source, ".glsl"))
      continue;
    SCOPED_TRACE(source);
    std::string spv = tmp.file("k.spv");
    auto glslcRun = runCommand(
        shellQuote(*glslc) + " -fshader-stage=compute --target-env=vulkan1.2 " +
            shellQuote(dir() + "/" + source) + " -o " + shellQuote(spv),
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

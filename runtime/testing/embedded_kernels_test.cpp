//===- runtime/testing/embedded_kernels_test.cpp - Shipped PTX assembles --===//
//
// The runtime ships kernels of its own as embedded PTX and SPIR-V (GPU hosts
// have neither nvcc nor glslc): the measurement engine's SM clock stamp and
// the copy-bandwidth probe's copy. Checked here with the real ptxas and
// spirv-val where they are installed (skipped otherwise), and against the
// ABI the engine dispatches them with. Lives in runtime/testing because it
// runs toolchains.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/clock_stamp.h"
#include "runtime/bench/copy_bandwidth.h"
#include "common/process.h"
#include "common/tool_search.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace kb::bench {
namespace {
namespace fs = std::filesystem;

/// Runs |tool| once per entry of |runs|: its arguments, then the path of
/// |text| written to a file named |name|. Skips the calling test when
/// |tool| is not installed.
void expectToolAccepts(const char *tool, const std::string &name,
                       std::string_view text,
                       const std::vector<std::vector<std::string>> &runs) {
  auto path = searchTool(tool);
  if (!path.ok())
    GTEST_SKIP() << path.status().message();
  fs::path dir = fs::temp_directory_path() /
                 ("kb_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / name, std::ios::binary) << text; }
  for (const std::vector<std::string> &args : runs) {
    kb::ProcessOptions run;
    run.argv = {path->string()};
    run.argv.insert(run.argv.end(), args.begin(), args.end());
    run.argv.push_back((dir / name).string());
    auto result = kb::runProcess(run);
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_TRUE(result->succeeded())
        << tool << " " << args.front() << ": " << result->stderrText;
  }
  fs::remove_all(dir);
}

/// Assembled for the oldest target the PTX names and for Hopper.
const std::vector<std::vector<std::string>> kPtxasRuns = {
    {"-arch=sm_75", "-o", "/dev/null"}, {"-arch=sm_90", "-o", "/dev/null"}};

TEST(EmbeddedKernelsTest, ClockStampPtxMatchesItsAbiAndAssembles) {
  std::string_view ptx = clockStampPtx();
  EXPECT_NE(ptx.find(".visible .entry kb_clock_stamp("), std::string::npos);
  EXPECT_NE(ptx.find("%globaltimer"), std::string::npos);
  EXPECT_NE(ptx.find("%clock64"), std::string::npos);
  KernelAbi abi = clockStampAbi();
  EXPECT_EQ(abi.entry, "kb_clock_stamp");
  ASSERT_EQ(abi.bindings.size(), 1u);
  EXPECT_EQ(abi.bindings[0].elementType, ElementType::U64);
  ASSERT_EQ(abi.constants.size(), 1u);
  EXPECT_EQ(abi.constants[0].type, ScalarType::U32);

  expectToolAccepts("ptxas", "clock_stamp.ptx", ptx, kPtxasRuns);
}

TEST(EmbeddedKernelsTest, CopyVec4PtxMatchesItsAbiAndAssembles) {
  std::string_view ptx = copyVec4Ptx();
  EXPECT_NE(ptx.find(".visible .entry kb_copy_vec4("), std::string::npos);
  // One 16-byte load and store per element: the probe measures DRAM.
  EXPECT_NE(ptx.find("ld.global.nc.v4"), std::string::npos);
  EXPECT_NE(ptx.find("st.global.v4"), std::string::npos);
  KernelAbi abi = copyVec4Abi();
  EXPECT_EQ(abi.entry, "kb_copy_vec4");
  ASSERT_EQ(abi.bindings.size(), 2u);
  ASSERT_EQ(abi.constants.size(), 1u);
  EXPECT_EQ(abi.constants[0].type, ScalarType::U32);
  expectToolAccepts("ptxas", "copy_vec4.ptx", ptx, kPtxasRuns);
}

TEST(EmbeddedKernelsTest, CopyVec4SpirvIsValidVulkan10) {
  expectToolAccepts("spirv-val", "copy_vec4.spv", copyVec4Spirv(),
                    {{"--target-env", "vulkan1.0"}});
}

} // namespace
} // namespace kb::bench

//===- runtime/testing/embedded_kernels_test.cpp - Shipped PTX assembles --===//
//
// The runtime ships kernels of its own as embedded PTX (GPU hosts have no
// nvcc): the measurement engine's SM clock stamp. Checked here with the
// real ptxas where the CUDA toolkit is installed (skipped otherwise), and
// against the ABI the engine dispatches it with. Lives in runtime/testing
// because it runs a toolchain.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/clock_stamp.h"
#include "common/process.h"
#include "common/tool_search.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace kb::bench {
namespace {

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

  auto ptxas = searchTool("ptxas");
  if (!ptxas.ok())
    GTEST_SKIP() << ptxas.status().message();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("kb_clock_stamp_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "clock_stamp.ptx") << ptx; }
  for (const char *arch : {"-arch=sm_75", "-arch=sm_90"}) {
    kb::ProcessOptions run;
    run.argv = {ptxas->string(), arch, (dir / "clock_stamp.ptx").string(), "-o",
                (dir / "clock_stamp.cubin").string()};
    auto result = kb::runProcess(run);
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_TRUE(result->succeeded()) << arch << ": " << result->stderrText;
  }
  fs::remove_all(dir);
}

} // namespace
} // namespace kb::bench

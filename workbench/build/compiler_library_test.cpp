// The C interface end to end: kernel-bench's half (CompilerLibrary) opens
// the built libKBCompiler.so and gets back the driver's typed records.
#include "workbench/build/compiler_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

const fs::path kSource = KB_SOURCE_DIR;
const fs::path kInputs = kSource / "compiler/test/Dialect/KB/Transforms/Inputs";

class CompilerLibraryTest : public ::testing::Test {
protected:
  void SetUp() override {
    ::setenv(kCompilerLibraryEnv, KB_COMPILER_LIBRARY_FILE, 1);
    StatusOr<const CompilerLibrary *> opened = CompilerLibrary::open();
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    library_ = *opened;
    tmp_ = fs::path(::testing::TempDir()) /
           ("kb_compiler_library_test_" + std::to_string(::getpid()));
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }

  const CompilerLibrary *library_ = nullptr;
  fs::path tmp_;
};

TEST_F(CompilerLibraryTest, CompilesAndReturnsTypedRecords) {
  driver::CompileOptions options;
  options.programPath = (kSource / "examples/quickstart/program.mlir").string();
  options.targets = {*kb::Target::cuda(90), *kb::Target::vulkan(1, 2)};
  options.emitCubin = false;
  options.outputDir = (tmp_ / "out").string();
  options.objectSubstitutions = {
      {"saxpy", (kInputs / "saxpy.spv").string(), "kernels/saxpy/kernel.toml"}};
  driver::CompileResult result = library_->compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.substitutions.size(), 1u);
  const driver::AppliedSubstitution &s = result.substitutions[0];
  EXPECT_EQ(s.executable, "saxpy");
  EXPECT_EQ(s.variant, "vulkan_1_2");
  EXPECT_EQ(s.kind, kb::driver::SubstitutionKind::Object);
  EXPECT_EQ(s.reference, "vulkan_1_2_reference");
  EXPECT_EQ(s.origin, "kernels/saxpy/kernel.toml");
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_THAT(result.notes[0], HasSubstr("NOTE: kb.executable @saxpy"));
  EXPECT_FALSE(result.codegen.empty());
  ASSERT_FALSE(result.benchmarks.empty());
  const driver::BenchmarkRecord &b = result.benchmarks[0];
  EXPECT_EQ(b.workload.size(), 3u);
  EXPECT_EQ(b.workgroupCount.size(), 3u);
  EXPECT_THAT(b.candidates, ::testing::Contains("vulkan_1_2"));
  EXPECT_THAT(b.file, ::testing::StartsWith("bench/"));
  EXPECT_THAT(result.writtenFiles,
              ::testing::Contains((tmp_ / "out/program.kbm").string()));
  EXPECT_GT(result.kbmBytes, 0u);
  EXPECT_TRUE(fs::is_regular_file(tmp_ / "out/program.kbm"));
}

TEST_F(CompilerLibraryTest, FatalLlvmErrorIsAFailedResultAndTheLibraryGoesOn) {
  // The NVPTX backend cannot call the i128 -> f32 libcall: LLVM reports a
  // fatal error, which must not end this process.
  fs::path program = tmp_ / "fatal.mlir";
  std::ofstream(program) << R"(
kb.executable @wide {
  kb.export @wide bindings(x: i64 readonly, y: f32 writeonly)
      workgroup_size = [64, 1, 1]
  builtin.module {
    func.func @wide() {
      %x = kb.binding 0 : memref<?xi64>
      %y = kb.binding 1 : memref<?xf32>
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xi64>
      %w = arith.extsi %v : i64 to i128
      %wide = arith.muli %w, %w : i128
      %f = arith.sitofp %wide : i128 to f32
      memref.store %f, %y[%tid] : memref<?xf32>
      return
    }
  }
}
)";
  driver::CompileOptions options;
  options.programPath = program.string();
  options.targets = {*kb::Target::cuda(90)};
  options.emitCubin = false;
  options.outputPath = (tmp_ / "out.mlir").string();
  driver::CompileResult failed = library_->compile(options);
  EXPECT_FALSE(failed.ok);
  EXPECT_THAT(failed.diagnostics,
              HasSubstr("stopped LLVM with a fatal error in the cuda:sm_90 "
                        "codegen of kb.executable @wide (variant "
                        "@cuda_sm_90): Undefined external symbol"));
  EXPECT_FALSE(fs::exists(tmp_ / "out.mlir"));

  // The same library compiles the next program.
  options.programPath = (kSource / "examples/quickstart/program.mlir").string();
  driver::CompileResult ok = library_->compile(options);
  EXPECT_TRUE(ok.ok) << ok.diagnostics;
  EXPECT_TRUE(fs::is_regular_file(tmp_ / "out.mlir"));
}

TEST_F(CompilerLibraryTest, StandaloneProgramErrorsCrossTheInterface) {
  driver::StandaloneKernel kernel;
  kernel.name = "k";
  kernel.entry = "k";
  kernel.workgroupSize = {64, 1, 1};
  kernel.workload = {64};
  kernel.bindings = {{"x", kb::ElementType::F32, kb::Access::ReadWrite, 64}};
  kernel.referenceExecutable = (tmp_ / "missing.mlir").string();
  Status status =
      library_->writeStandaloneProgram(kernel, (tmp_ / "p.mlir").string());
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("missing.mlir"));
}

TEST(CompilerLibraryLocateTest, OverrideNamingNoFileIsNotFound) {
  ::setenv(kCompilerLibraryEnv, "/nonexistent/libKBCompiler.so", 1);
  StatusOr<fs::path> located = CompilerLibrary::locate();
  EXPECT_FALSE(located.ok());
  EXPECT_THAT(located.status().message(),
              HasSubstr("KB_COMPILER_LIBRARY=/nonexistent/libKBCompiler.so "
                        "names no file"));
  // Without the override: next to this test binary, where the build puts
  // the library beside kernel-bench.
  ::unsetenv(kCompilerLibraryEnv);
  located = CompilerLibrary::locate();
  ASSERT_TRUE(located.ok()) << located.status().message();
  EXPECT_EQ(located->filename(), "libKBCompiler.so");
}

} // namespace
} // namespace kb::workbench

// Tests of the KBDriver API as the workbench uses it. This file is built
// like workbench/ code (exceptions on, no LLVM flags) and sees only
// kb/Driver/Driver.h, which is what the API promises.
#include "common/file_util.h"
#include "common/test_util.h"
#include "kb/Driver/Driver.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace {

const std::string kProgram =
    std::string(KB_SOURCE_DIR) + "/examples/quickstart/program.mlir";
const std::string kInputs =
    std::string(KB_SOURCE_DIR) + "/compiler/test/Dialect/KB/Transforms/Inputs";

/// This process's own scratch directory, removed at exit: ctest runs the
/// tests in parallel processes, and fixed names under /tmp would collide.
const std::filesystem::path &scratchDir() {
  static kb::TempDir dir = [] {
    auto made = kb::TempDir::create(::testing::TempDir(), "kb_driver_test");
    if (!made.ok()) {
      std::fprintf(stderr, "%s\n", made.status().message().c_str());
      std::abort();
    }
    return std::move(*made);
  }();
  return dir.path();
}

TEST(DriverTest, SubstitutesObjectsAndReportsThem) {
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(90), *kb::Target::vulkan(1, 2)};
  options.objectSubstitutions = {
      {"saxpy", kInputs + "/saxpy.ptx", "kernels/saxpy/kernel.toml"},
      {"saxpy", kInputs + "/saxpy.spv", "kernels/saxpy/kernel.toml"}};
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.substitutions.size(), 2u);
  EXPECT_EQ(result.substitutions[0].executable, "saxpy");
  EXPECT_EQ(result.substitutions[0].variant, "cuda_sm_90");
  EXPECT_EQ(result.substitutions[0].kind, kb::driver::SubstitutionKind::Object);
  EXPECT_EQ(result.substitutions[0].reference, "cuda_sm_90_reference");
  EXPECT_EQ(result.substitutions[0].origin, "kernels/saxpy/kernel.toml");
  EXPECT_EQ(result.substitutions[1].variant, "vulkan_1_2");
  ASSERT_EQ(result.notes.size(), 2u);
  EXPECT_EQ(result.notes[0].rfind(
                "NOTE: kb.executable @saxpy variant @cuda_sm_90", 0),
            0u)
      << result.notes[0];
}

TEST(DriverTest, DuplicateKeysFromTwoKernelsNameBoth) {
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(90)};
  options.objectSubstitutions = {
      {"saxpy", kInputs + "/saxpy.ptx", "kernels/a/kernel.toml"},
      {"saxpy", kInputs + "/saxpy.ptx", "kernels/b/kernel.toml"}};
  kb::driver::CompileResult result = kb::driver::compile(options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("kernels/a/kernel.toml"), std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("kernels/b/kernel.toml"), std::string::npos)
      << result.diagnostics;
}

TEST(DriverTest, ErrorWritesNoOutput) {
  std::string output = (scratchDir() / "out.mlir").string();
  std::remove(output.c_str());
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(90)};
  options.outputPath = output;
  options.objectSubstitutions = {
      {"saxpy", kInputs + "/saxpy_wrong_abi.ptx", "kernels/saxpy/kernel.toml"}};
  kb::driver::CompileResult result = kb::driver::compile(options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("does not match the ABI of export @saxpy"),
            std::string::npos)
      << result.diagnostics;
  EXPECT_FALSE(std::ifstream(output).good());
}

/// A full disk is a diagnostic naming the file, for every file the
/// compiler writes: an LLVM stream that failed to write used to end the
/// process from its destructor ("LLVM ERROR: IO failure on output stream:
/// No space left on device"), taking kernel-bench's build with it.
TEST(DriverTest, AFullDiskIsAnErrorNamingTheFile) {
  std::string why;
  kb::testing::SmallDisk disk(scratchDir() / "full", 4096, why);
  if (!why.empty())
    GTEST_SKIP() << why;
  struct Case {
    const char *what;
    std::function<void(kb::driver::CompileOptions &)> set;
    std::string file;
  } cases[] = {
      {"the output",
       [&](auto &o) { o.outputPath = (disk.path() / "out.mlir").string(); },
       (disk.path() / "out.mlir").string()},
      {"the modules", [&](auto &o) { o.outputDir = disk.path().string(); },
       (disk.path() / "program.kbm").string()},
      {"the source dumps",
       [&](auto &o) { o.dumpSourcesDir = (disk.path() / "src").string(); },
       (disk.path() / "src").string()},
      {"the binary dumps",
       [&](auto &o) { o.dumpBinariesDir = (disk.path() / "bin").string(); },
       (disk.path() / "bin").string()},
  };
  for (const Case &c : cases) {
    kb::driver::CompileOptions options;
    options.programPath = kProgram;
    options.targets = {*kb::Target::vulkan(1, 2)};
    c.set(options);
    kb::driver::CompileResult result = kb::driver::compile(options);
    EXPECT_FALSE(result.ok) << c.what;
    EXPECT_NE(result.diagnostics.find("No space left on device"),
              std::string::npos)
        << c.what << ": " << result.diagnostics;
    EXPECT_NE(result.diagnostics.find(c.file), std::string::npos)
        << c.what << ": " << result.diagnostics;
    EXPECT_EQ(result.diagnostics.find("LLVM ERROR"), std::string::npos);
    // Nothing half-written is left on the disk.
    EXPECT_FALSE(std::filesystem::exists(disk.path() / "out.mlir"));
    EXPECT_FALSE(std::filesystem::exists(disk.path() / "program.kbm"));
  }
}

TEST(DriverTest, StrictUnknownExecutableNamesItsKernelToml) {
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::vulkan(1, 2)};
  options.strict = true;
  options.objectSubstitutions = {
      {"nope", kInputs + "/saxpy.spv", "kernels/x/kernel.toml"}};
  kb::driver::CompileResult result = kb::driver::compile(options);
  EXPECT_FALSE(result.ok);
  // Where the substitution came from, and the program it missed in; not a
  // made-up `program.mlir:0:0` location.
  EXPECT_EQ(result.diagnostics.rfind(
                "error: kb-substitute-executables: no kb.executable matches "
                "'nope' (substitution 'nope=",
                0),
            0u)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("from kernels/x/kernel.toml, file '"),
            std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find(
                "') in '" + kProgram +
                "'; executables: @saxpy, @reduce_sum, @softmax, @matmul"),
            std::string::npos)
      << result.diagnostics;
  EXPECT_EQ(result.diagnostics.find(":0:0"), std::string::npos)
      << result.diagnostics;
}

TEST(DriverTest, ParseSubstitution) {
  kb::driver::Substitution s;
  std::string error;
  EXPECT_TRUE(kb::driver::parseSubstitution("saxpy=a=b.ptx", s, error));
  EXPECT_EQ(s.executable, "saxpy");
  EXPECT_EQ(s.file, "a=b.ptx");
  EXPECT_FALSE(kb::driver::parseSubstitution("saxpy.ptx", s, error));
  EXPECT_NE(error.find("expected NAME=FILE"), std::string::npos);
  EXPECT_FALSE(kb::driver::parseSubstitution("=x.ptx", s, error));
  EXPECT_FALSE(kb::driver::parseSubstitution("saxpy=", s, error));
}

TEST(DriverTest, PerTargetKeys) {
  // One PTX per CUDA architecture, each into its own variant.
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(80), *kb::Target::cuda(90)};
  for (const kb::Target &target : options.targets)
    options.objectSubstitutions.push_back({"saxpy/" + target.variantName(),
                                           kInputs + "/saxpy.ptx",
                                           "kernels/saxpy/kernel.toml"});
  kb::driver::CompileResult result = kb::driver::compile(options);
  // The fixture PTX targets sm_90, which an sm_80 variant cannot load.
  EXPECT_FALSE(result.ok);
  EXPECT_NE(
      result.diagnostics.find("targets sm_90, newer than variant @cuda_sm_80"),
      std::string::npos)
      << result.diagnostics;
  options.objectSubstitutions.erase(options.objectSubstitutions.begin());
  result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.substitutions.size(), 1u);
  EXPECT_EQ(result.substitutions[0].variant, "cuda_sm_90");
}

TEST(DriverTest, MissingProgram) {
  kb::driver::CompileOptions options;
  options.programPath = kInputs + "/no_such_program.mlir";
  kb::driver::CompileResult result = kb::driver::compile(options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("cannot read program"), std::string::npos)
      << result.diagnostics;
}

} // namespace

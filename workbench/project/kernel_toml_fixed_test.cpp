//===- workbench/project/kernel_toml_fixed_test.cpp - .npy in [bench] -----===//
#include "workbench/project/kernel_toml_fixed.h"

#include "common/file_util.h"
#include "common/npy.h"
#include "workbench/project/project.h"
#include "workbench/project/project_testing.h"
#include "workbench/project/workbench_toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

class KernelTomlFixedTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb_fixed_test_");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/x.npy", npy::encode(ElementType::F32, {8}, std::string(32, 0)));
    write("k/y.npy", npy::encode(ElementType::F32, {2, 4}, std::string(32, 0)));
  }

  void write(const std::string &rel, const std::string &bytes) {
    fs::path p = dir_->path() / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  }

  /// A standalone kernel: x f32 readonly, y f32 |yAccess|, 8 elements each,
  /// with |bench| appended to its [bench].
  StatusOr<Project> load(const std::string &bench,
                         const std::string &yAccess = "writeonly") {
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
          "[abi]\nworkgroup_size = [64, 1, 1]\nbindings = [\n"
          "  { name = \"x\", type = \"f32\", access = \"readonly\" },\n"
          "  { name = \"y\", type = \"f32\", access = \"" +
              yAccess +
              "\" },\n]\n"
              "[bench]\nworkload = [8]\nelements = { x = 8, y = 8 }\n" +
              bench);
    return loadEveryKernel(dir_->path());
  }

  std::string errorOf(const std::string &bench,
                      const std::string &yAccess = "writeonly") {
    StatusOr<Project> project = load(bench, yAccess);
    EXPECT_FALSE(project.ok());
    return project.ok() ? "" : project.status().message();
  }

  std::optional<TempDir> dir_;
};

TEST_F(KernelTomlFixedTest, FixedInputsAndExpectedOutputsAreDeclared) {
  StatusOr<Project> project =
      load("init = { x = { file = \"x.npy\" } }\n"
           "reference = { outputs = { y = \"y.npy\" } }\n");
  ASSERT_TRUE(project.ok()) << project.status().message();
  const Kernel &k = project->kernels[0];
  ASSERT_EQ(k.declared.fixedInputs.size(), 1u);
  const bench::FixedArray &x = k.declared.fixedInputs[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.binding, 0u);
  EXPECT_EQ(x.source, "x.npy");
  EXPECT_EQ(x.file, dir_->path() / "k/x.npy");
  EXPECT_EQ(x.stored, "standalone/k/data/init/x.npy");
  EXPECT_EQ(x.sha256.size(), 64u);
  ASSERT_EQ(k.declared.expectedOutputs.size(), 1u);
  EXPECT_EQ(k.declared.expectedOutputs[0].binding, 1u);
  EXPECT_EQ(k.declared.expectedOutputs[0].stored,
            "standalone/k/data/expected/y.npy");
  // No reference executable or twin: the expected outputs are the reference.
  EXPECT_TRUE(k.bench->reference.empty());
  EXPECT_TRUE(k.referenceSpecs.empty());
  EXPECT_FALSE(k.declared.empty());
}

TEST_F(KernelTomlFixedTest, AReadWriteBindingHasAnInputAndAnOutputFile) {
  StatusOr<Project> project =
      load("init = { x = { file = \"x.npy\" }, y = { file = \"y.npy\" } }\n"
           "reference = { outputs = { y = \"y.npy\" } }\n",
           "readwrite");
  ASSERT_TRUE(project.ok()) << project.status().message();
  const bench::KernelDeclared &d = project->kernels[0].declared;
  ASSERT_EQ(d.fixedInputs.size(), 2u);
  ASSERT_EQ(d.expectedOutputs.size(), 1u);
  EXPECT_EQ(d.fixedInputs[1].stored, "standalone/k/data/init/y.npy");
  EXPECT_EQ(d.expectedOutputs[0].stored, "standalone/k/data/expected/y.npy");
}

TEST_F(KernelTomlFixedTest, FixedInputsWithoutExpectedOutputs) {
  StatusOr<Project> project = load("init = { x = { file = \"x.npy\" } }\n");
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->kernels[0].declared.fixedInputs.size(), 1u);
  EXPECT_TRUE(project->kernels[0].declared.expectedOutputs.empty());
}

TEST_F(KernelTomlFixedTest, BadFilesAreRefusedWhereTheyAreNamed) {
  write("k/bad_magic.npy", "PK\3\4");
  write("k/f64.npy", npy::encode(ElementType::F64, {8}, std::string(64, 0)));
  write("k/short.npy", npy::encode(ElementType::F32, {7}, std::string(28, 0)));
  std::string truncated =
      npy::encode(ElementType::F32, {8}, std::string(32, 0));
  write("k/truncated.npy", truncated.substr(0, 20));
  const std::pair<std::string, std::string> bad[] = {
      {"missing.npy", "`init.x.file`: file `missing.npy` not found"},
      {"bad_magic.npy", "not a NumPy .npy file"},
      {"f64.npy", "dtype `<f8` (float64) does not match binding 0 `x` (f32"},
      {"short.npy", "7 elements (shape (7,)), but binding 0 `x` has 8"},
      {"truncated.npy", "truncated .npy header"},
  };
  for (const auto &[name, message] : bad) {
    SCOPED_TRACE(name);
    std::string error = errorOf("init = { x = { file = \"" + name + "\" } }\n");
    EXPECT_THAT(error, HasSubstr("kernel.toml:13:23: `init.x.file`: "));
    EXPECT_THAT(error, HasSubstr(message));
  }
}

TEST_F(KernelTomlFixedTest, OutputsMustBeWrittenBindingsOfFixedInputs) {
  EXPECT_THAT(errorOf("init = { x = { file = \"x.npy\" } }\n"
                      "reference = { outputs = { z = \"y.npy\" } }\n"),
              HasSubstr("unknown key `z` in [bench] reference.outputs"));
  EXPECT_THAT(errorOf("init = { x = { file = \"x.npy\" } }\n"
                      "reference = { outputs = { x = \"x.npy\" } }\n"),
              HasSubstr("binding 0 `x` is readonly: the kernel writes nothing "
                        "there to compare"));
  EXPECT_THAT(errorOf("reference = { outputs = { y = \"y.npy\" } }\n"),
              HasSubstr("binding 0 `x` is read by the kernel but its input "
                        "is drawn here"));
  // A read-write output is an input too: it needs its file.
  EXPECT_THAT(errorOf("init = { x = { file = \"x.npy\" } }\n"
                      "reference = { outputs = { y = \"y.npy\" } }\n",
                      "readwrite"),
              HasSubstr("binding 1 `y` is read by the kernel"));
  EXPECT_THAT(errorOf("init = { x = { file = \"x.npy\" } }\n"
                      "reference = { outputs = { } }\n"),
              HasSubstr("`reference.outputs` names no output"));
  EXPECT_THAT(errorOf("init = { x = { file = \"x.npy\" } }\n"
                      "reference = { outputs = { y = \"y.npy\" }, "
                      "entry = \"e\" }\n"),
              HasSubstr("unknown key `entry` in [bench] reference"));
  EXPECT_THAT(errorOf("init = { y = { file = \"y.npy\" } }\n"),
              HasSubstr("`y` is writeonly"));
}

TEST_F(KernelTomlFixedTest, SpecialValuesDoNotApplyToFixedInputs) {
  EXPECT_THAT(errorOf("init = { x = { file = \"x.npy\" } }\n"
                      "special_values = [\"nan\"]\n"),
              HasSubstr("`special_values`: binding `x` has fixed inputs"));
}

} // namespace
} // namespace kb::workbench

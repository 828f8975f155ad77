//===- workbench/project/kernel_toml_entry_test.cpp -----------------------===//
//
// `entry = "MatrixMulCUDA<BLOCK_SIZE>"`: each CUDA spec gets the instance
// its values name (tuned default, tuned.toml, a tune configuration, an
// integer define), and an argument that cannot name one is refused at load.
//
//===----------------------------------------------------------------------===//
#include "workbench/project/kernel_toml_entry.h"

#include "workbench/project/kernel_toml_launch.h"
#include "workbench/project/kernel_toml_tune.h"
#include "workbench/project/project_testing.h"

#include "common/file_util.h"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TemplateEntryTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb_entry_test_");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"cuda:sm_90\", \"vulkan:1.2\"]\n");
    write("k/k.cu", "// cuda\n");
    write("k/k.comp", "// glsl\n");
  }
  void write(const std::string &rel, const std::string &text) {
    fs::path p = dir_->path() / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  /// The project with |entry| and |extra| (defines, [tune]) in k/kernel.toml.
  StatusOr<Project> load(const std::string &entry, const std::string &defines,
                         const std::string &tune) {
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsources = [\"k.cu\", \"k.comp\"]\n"
          "entry = \"" +
              entry + "\"\n" + defines +
              "[abi]\nworkgroup_size = [\"B\", \"B\", 1]\n"
              "bindings = [{ name = \"c\", type = \"f32\", "
              "access = \"writeonly\" }]\n" +
              tune);
    return loadEveryKernel(dir_->path());
  }
  std::string error(const std::string &entry, const std::string &defines,
                    const std::string &tune) {
    StatusOr<Project> project = load(entry, defines, tune);
    EXPECT_FALSE(project.ok());
    return project.ok() ? "" : project.status().message();
  }
  std::optional<TempDir> dir_;
  const std::string tuned = "[tune]\nB = { values = [16, 32], default = 16 }\n";
};

TEST_F(TemplateEntryTest, EachCudaSpecNamesTheInstanceOfItsValues) {
  StatusOr<Project> project =
      load("MatrixMulCUDA<B, 2, WIDE>", "defines = { WIDE = 4 }\n", tuned);
  ASSERT_TRUE(project.ok()) << project.status().message();
  Kernel &kernel = project->kernels[0];
  EXPECT_EQ(kernel.entry, "MatrixMulCUDA<B, 2, WIDE>");
  const toolchains::KernelSpec &cuda = kernel.specs[0];
  EXPECT_EQ(cuda.templateInstance, "MatrixMulCUDA<16, 2, 4>");
  EXPECT_EQ(cuda.entry, "MatrixMulCUDA<16, 2, 4>");
  EXPECT_EQ(cuda.abi.entry, "MatrixMulCUDA<16, 2, 4>");
  // Arguments, not macros that would replace template parameters so named.
  EXPECT_EQ(cuda.templateArgumentNames,
            (std::vector<std::string>{"B", "WIDE"}));
  // GLSL's entry is `main`, whatever `entry` says.
  EXPECT_EQ(kernel.specs[1].templateInstance, "");
  EXPECT_EQ(kernel.specs[1].entry, "main");

  // A tune configuration: its values, its instance (and its launch).
  Kernel configuration = kernel;
  for (toolchains::KernelSpec &spec : configuration.specs)
    applyTuneValues(configuration.tune, {{"B", 32}}, spec);
  ASSERT_TRUE(resolveLaunch(configuration).ok());
  EXPECT_EQ(configuration.specs[0].templateInstance, "MatrixMulCUDA<32, 2, 4>");
  EXPECT_EQ(configuration.specs[0].abi.workgroupSize[0], 32u);

  EXPECT_EQ(entryExportName("ns::MatrixMulCUDA<B>"), "MatrixMulCUDA");
  EXPECT_EQ(entryExportName("saxpy"), "saxpy");
}

TEST_F(TemplateEntryTest, TunedTomlValuesNameTheInstance) {
  write("k/tuned.toml", "[[best]]\nbackend = \"cuda\"\n"
                        "values = { B = 32 }\n\n"
                        "[[best]]\ndevice = \"x\"\nbackend = \"cuda\"\n"
                        "values = { B = 16 }\n");
  StatusOr<Project> project = load("ns::mm<B>", "", tuned);
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->kernels[0].specs[0].templateInstance, "ns::mm<32>");
  ASSERT_EQ(project->kernels[0].tunedSpecs.size(), 1u);
  EXPECT_EQ(project->kernels[0].tunedSpecs[0].templateInstance, "ns::mm<16>");
}

TEST_F(TemplateEntryTest, AnArgumentThatNamesNoIntegerIsRefused) {
  EXPECT_THAT(error("mm<2 * B>", "", tuned),
              HasSubstr("kernel.toml:4:9: `entry` = \"mm<2 * B>\": template "
                        "argument `2 * B` is neither an integer nor a name"));
  EXPECT_THAT(error("mm<TILE>", "", tuned),
              HasSubstr("template argument `TILE` is neither tuned ([tune]) "
                        "nor defined (`defines`)"));
  EXPECT_THAT(error("mm<V>", "defines = { V = \"1.5f\" }\n", tuned),
              HasSubstr("template argument the define `V` is \"1.5f\", not "
                        "an integer"));
  EXPECT_THAT(error("mm<B", "", tuned),
              HasSubstr("`entry`: expected a function template's name and "
                        "its arguments"));
}

// `build` needs a value for the instance, as for the launch shape.
TEST_F(TemplateEntryTest, ATunedArgumentNeedsADefault) {
  std::string message = error("mm<C>", "",
                              "[tune]\nB = { values = [16], default = 16 }\n"
                              "C = [1, 2]\n");
  EXPECT_THAT(message, HasSubstr("`entry` = \"mm<C>\": `C` is tuned and has "
                                 "no value here: a tuned name the entry uses "
                                 "needs a default in [tune]"));
}

} // namespace
} // namespace kb::workbench

//===- workbench/project/project_test.cpp - workbench.toml / kernel.toml --===//
#include "common/file_util.h"
#include "workbench/project/job_plan.h"
#include "workbench/project/kernel_toml.h"
#include "workbench/project/project.h"
#include "workbench/support/spelling.h"
#include "workbench/project/toml.h"
#include "workbench/project/project_testing.h"
#include "workbench/project/workbench_toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;
using kb::StatusCode;
using kb::Target;
using kb::toolchains::Language;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

class ProjectTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb_project_test_");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    root_ = dir_->path();
  }
  void TearDown() override { dir_.reset(); }

  void write(const std::string &rel, const std::string &text) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }

  // A valid one-kernel project; tests overwrite pieces of it.
  void writeValidProject() {
    write("workbench.toml", R"([project]
name = "demo"
kernels = ["kernels/*"]
targets = ["cuda:sm_90", "vulkan:1.2"]
)");
    write("kernels/saxpy/saxpy.cu", "// cuda\n");
    write("kernels/saxpy/saxpy.comp", "// glsl\n");
    write("kernels/saxpy/include/common.h", "\n");
    write("kernels/saxpy/kernel.toml", kSaxpyToml);
  }

  // Returns the error message of loading the project (expects failure).
  std::string loadError(StatusCode expectedCode = StatusCode::InvalidArgument) {
    StatusOr<Project> project = loadEveryKernel(root_);
    EXPECT_FALSE(project.ok());
    if (project.ok())
      return "";
    EXPECT_EQ(project.status().code(), expectedCode)
        << project.status().message();
    return project.status().message();
  }

  static constexpr const char *kSaxpyToml = R"([kernel]
name = "saxpy"
sources = ["saxpy.cu", "saxpy.comp"]
entry = "saxpy_kernel"
defines = { BLOCK = "256", UNROLL = 4 }
include_dirs = ["include"]
substitutes = "elementwise"
spills_are_errors = true

[kernel.flags]
nvcc = ["-O3"]

[abi]
workgroup_size = [256, 1, 1]
dynamic_shared_memory = 128
bindings = [
  { name = "x", type = "f32", access = "readonly" },
  { name = "y", type = "f32", access = "readwrite" },
]
constants = [
  { name = "a", type = "f32" },
  { name = "n", type = "u32" },
]
)";

  // The kernel.toml with |from| replaced by |to| (exactly once).
  void writeSaxpyWith(const std::string &from, const std::string &to) {
    std::string text = kSaxpyToml;
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    write("kernels/saxpy/kernel.toml", text);
  }

  std::string manifest() const {
    return (root_ / "kernels/saxpy/kernel.toml").string();
  }

  std::optional<TempDir> dir_;
  fs::path root_;
};

TEST_F(ProjectTest, LoadsAValidProject) {
  writeValidProject();
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->name, "demo");
  EXPECT_EQ(project->directory, root_);
  EXPECT_EQ(project->outputDir, root_ / "kb-out");
  ASSERT_EQ(project->targets.size(), 2u);
  ASSERT_EQ(project->kernels.size(), 1u);

  const Kernel &k = project->kernels[0];
  EXPECT_EQ(k.name, "saxpy");
  EXPECT_EQ(k.substitutes, "elementwise");
  EXPECT_FALSE(k.declaresTargets);
  ASSERT_EQ(k.specs.size(), 2u);

  const toolchains::KernelSpec &cuda = k.specs[0];
  EXPECT_EQ(cuda.language, Language::Cuda);
  EXPECT_TRUE(cuda.source.is_absolute());
  EXPECT_EQ(cuda.source, root_ / "kernels/saxpy/saxpy.cu");
  EXPECT_EQ(cuda.entry, "saxpy_kernel");
  EXPECT_EQ(cuda.abi.entry, "saxpy_kernel");
  EXPECT_TRUE(cuda.spillsAreErrors);
  EXPECT_EQ(cuda.manifest, root_ / "kernels/saxpy/kernel.toml");
  ASSERT_EQ(cuda.includeDirs.size(), 1u);
  EXPECT_EQ(cuda.includeDirs[0], root_ / "kernels/saxpy/include");
  EXPECT_THAT(cuda.defines,
              ::testing::ElementsAre(std::make_pair("BLOCK", "256"),
                                     std::make_pair("UNROLL", "4")));
  EXPECT_THAT(cuda.extraFlags.at("nvcc"), ::testing::ElementsAre("-O3"));
  EXPECT_EQ(cuda.abi.bindings.size(), 2u);
  EXPECT_EQ(cuda.abi.bindings[0].access, Access::ReadOnly);
  EXPECT_EQ(cuda.abi.constants[1].type, ScalarType::U32);
  EXPECT_EQ(cuda.abi.workgroupSize[0], 256u);
  EXPECT_EQ(cuda.abi.dynamicSharedMemoryBytes, 128u);

  const toolchains::KernelSpec &glsl = k.specs[1];
  EXPECT_EQ(glsl.language, Language::Glsl);
  EXPECT_EQ(glsl.entry, "main");
  EXPECT_EQ(glsl.abi.entry, "main");

  StatusOr<std::vector<PlannedJob>> jobs = planJobs(*project, {});
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].target.toString(), "cuda:sm_90");
  EXPECT_EQ((*jobs)[0].spec->language, Language::Cuda);
  EXPECT_EQ((*jobs)[1].target.toString(), "vulkan:1.2");
  EXPECT_EQ((*jobs)[1].spec->language, Language::Glsl);
}

// [bench] constants: every integer type keeps its value and is range
// checked; a u64 above 2^63-1 (which a TOML integer cannot hold) is written
// as a decimal string.
TEST_F(ProjectTest, BenchConstantsOfEveryTypeAndTheStringForm) {
  auto kernelWith = [&](const std::string &type, const std::string &value) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/kernel.toml", "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
                           "[abi]\nworkgroup_size = [64, 1, 1]\n"
                           "bindings = [{ name = \"x\", type = \"f32\", "
                           "access = \"readwrite\" }]\n"
                           "constants = [{ name = \"c\", type = \"" +
                               type +
                               "\" }]\n"
                               "[bench]\nworkload = [64]\n"
                               "elements = { x = 64 }\n"
                               "constants = { c = " +
                               value + " }\n");
    return loadEveryKernel(root_);
  };
  const std::tuple<std::string, std::string, std::string> good[] = {
      {"u32", "8", "8"},
      {"u32", "9", "9"},
      {"u32", "4294967295", "4294967295"},
      {"i32", "-2147483648", "-2147483648"},
      {"i32", "2147483647", "2147483647"},
      {"i64", "-9223372036854775808", "-9223372036854775808"},
      {"u64", "9223372036854775807", "9223372036854775807"},
      {"u64", "\"9223372036854775808\"", "9223372036854775808"},
      {"u64", "\"18446744073709551615\"", "18446744073709551615"},
      {"i64", "\"-9223372036854775808\"", "-9223372036854775808"},
      {"u32", "\"255\"", "255"},
      {"f32", "8", "8"},
      {"f64", "-0.5", "-0.5"},
  };
  for (const auto &[type, value, stored] : good) {
    SCOPED_TRACE(type + " = " + value);
    StatusOr<Project> project = kernelWith(type, value);
    ASSERT_TRUE(project.ok()) << project.status().message();
    ASSERT_TRUE(project->kernels[0].bench);
    EXPECT_THAT(project->kernels[0].bench->constantValues,
                ::testing::ElementsAre(stored));
  }
  const std::pair<std::string, std::string> bad[] = {
      {"u32", "-1"},         {"u32", "4294967296"},
      {"i32", "2147483648"}, {"i32", "-2147483649"},
      {"u64", "-1"},         {"u64", "\"18446744073709551616\""},
      {"u64", "\"-1\""},     {"i64", "\"9223372036854775808\""},
      {"u32", "\"0x10\""},   {"u32", "\"8 \""},
      {"u32", "\"\""},       {"u32", "1.5"},
  };
  for (const auto &[type, value] : bad) {
    SCOPED_TRACE(type + " = " + value);
    StatusOr<Project> project = kernelWith(type, value);
    ASSERT_FALSE(project.ok());
    EXPECT_THAT(
        project.status().message(),
        HasSubstr("`constants.c`: expected an integer that fits " + type));
  }
}

// A binding of structs (`type = "struct"`): bytes until the build reads the
// layout from the SPIR-V; standalone GLSL kernels without a reference only,
// each other use refused at the binding's type, saying why.
TEST_F(ProjectTest, StructBindingsAreStandaloneGlslOnly) {
  auto kernelWith = [&](const std::string &source, const std::string &extra,
                        const std::string &bench) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/k.cu", "// cuda\n");
    write("k/ref.cpp", "// c++\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsource = \"" + source + "\"\n" + extra +
              "[abi]\nworkgroup_size = [64, 1, 1]\n"
              "bindings = [{ name = \"particles\", type = \"struct\", "
              "access = \"readwrite\" }]\n"
              "constants = [{ name = \"n\", type = \"u32\" }]\n" +
              bench);
    return loadEveryKernel(root_);
  };
  const std::string bench =
      "[bench]\nworkload = [\"n\"]\nconstants = { n = 64 }\n"
      "elements = { particles = \"n\" }\n"
      "init = { particles = { uniform = [-1, 1] } }\n";
  StatusOr<Project> ok = kernelWith("k.comp", "", bench);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  const Binding &binding = ok->kernels[0].specs[0].abi.bindings[0];
  ASSERT_TRUE(binding.structLayout);
  EXPECT_EQ(binding.structLayout->stride, 0u); // read at build
  EXPECT_EQ(binding.elementType, ElementType::U8);
  EXPECT_EQ(ok->kernels[0].bench->elementCounts[0], 64u);

  StatusOr<Project> substitutes =
      kernelWith("k.comp", "substitutes = \"step\"\n", "");
  ASSERT_FALSE(substitutes.ok());
  EXPECT_THAT(substitutes.status().message(), HasSubstr("kernel.toml:7:"));
  EXPECT_THAT(substitutes.status().message(),
              HasSubstr("binding 0 (`particles`) is type = "
                        "\"struct\" and the kernel `substitutes` `step`: a "
                        "program dispatch's bindings are arrays of scalars, "
                        "so a struct-element kernel can only be benchmarked "
                        "standalone ([bench]); remove `substitutes` or "
                        "declare the binding's scalar type"));
  StatusOr<Project> cuda = kernelWith("k.cu", "", bench);
  ASSERT_FALSE(cuda.ok());
  EXPECT_THAT(cuda.status().message(),
              HasSubstr("binding 0 (`particles`) is type = \"struct\", whose "
                        "layout is read from a GLSL kernel's SPIR-V;"));
  StatusOr<Project> reference =
      kernelWith("k.comp", "", bench + "reference = \"ref.cpp\"\n");
  ASSERT_FALSE(reference.ok());
  EXPECT_THAT(reference.status().message(),
              HasSubstr("and its reference would hold arrays of scalars (an "
                        "MLIR kb.executable, a C/C++ function's pointers, "
                        ".npy arrays); give a GLSL twin with the same struct"));
  // A GLSL twin holds the same structs: it is compared member by member.
  write("k/naive.comp", "// glsl\n");
  StatusOr<Project> twin =
      kernelWith("k.comp", "", bench + "reference = \"naive.comp\"\n");
  ASSERT_TRUE(twin.ok()) << twin.status().message();
  // Built and checked only, without [bench]: nothing to refuse.
  StatusOr<Project> built = kernelWith("k.comp", "", "");
  ASSERT_TRUE(built.ok()) << built.status().message();
}

// Push constants holding an array and a struct, declared flattened: an
// array by its `count` (one constant per entry), a struct's members by
// dotted names; [bench] gives the array a list and the struct a table.
TEST_F(ProjectTest, ArrayAndStructConstantsAreDeclaredFlattened) {
  auto kernelWith = [&](const std::string &extra, const std::string &values) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n" + extra +
              "[abi]\nworkgroup_size = [64, 1, 1]\n"
              "bindings = [{ name = \"x\", type = \"f32\", "
              "access = \"readwrite\" }]\n"
              "constants = [{ name = \"coeffs\", type = \"f32\", count = 3 "
              "},\n  { name = \"step.n\", type = \"u32\" }]\n" +
              (values.empty() ? ""
                              : "[bench]\nworkload = [64]\n"
                                "elements = { x = 64 }\n"
                                "constants = " +
                                    values + "\n"));
    return loadEveryKernel(root_);
  };
  for (const char *values : {"{ coeffs = [0.5, 1, 2.5], step = { n = 7 } }",
                             "{ coeffs = [0.5, 1, 2.5], step.n = 7 }"}) {
    SCOPED_TRACE(values);
    StatusOr<Project> ok = kernelWith("", values);
    ASSERT_TRUE(ok.ok()) << ok.status().message();
    std::vector<std::string> names;
    for (const Constant &c : ok->kernels[0].specs[0].abi.constants)
      names.push_back(c.name);
    EXPECT_THAT(names, ::testing::ElementsAre("coeffs[0]", "coeffs[1]",
                                              "coeffs[2]", "step.n"));
    EXPECT_THAT(ok->kernels[0].bench->constantValues,
                ::testing::ElementsAre("0.5", "1", "2.5", "7"));
  }
  StatusOr<Project> short_ = kernelWith("", "{ coeffs = [0.5], step.n = 7 }");
  ASSERT_FALSE(short_.ok());
  EXPECT_THAT(short_.status().message(),
              HasSubstr("no value for constant 1 `coeffs[1]` (f32); give "
                        "every [abi] constant a value (an array takes a list"));
  // A value no [abi] constant takes is refused, not ignored.
  for (const char *extra : {"{ coeffs = [0.5, 1, 2.5, 7.0], step.n = 7 }",
                            "{ coeffs = [0.5, 1, 2.5], step = { n = 7, m = 3 } "
                            "}"}) {
    SCOPED_TRACE(extra);
    StatusOr<Project> refused = kernelWith("", extra);
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.status().message(),
                HasSubstr("is no constant of [abi] (an array entry past its "
                          "count, or a member the block does not have)"));
    EXPECT_THAT(refused.status().message(), HasSubstr("kernel.toml:"));
  }
  StatusOr<Project> substitutes = kernelWith("substitutes = \"step\"\n", "");
  ASSERT_FALSE(substitutes.ok());
  EXPECT_THAT(substitutes.status().message(),
              HasSubstr("`constants[0]` is an array or a struct member, and "
                        "the kernel `substitutes` `step`: a program "
                        "dispatch's constants are its export's scalars"));
}

// [bench] sizes are expressions (+ - * / and parentheses) of integer
// [bench] constants and integer [specialization] values; one that is not a
// positive whole number is refused where it is written.
TEST_F(ProjectTest, BenchSizesAreExpressions) {
  auto kernelWith = [&](const std::string &workload) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
          "[abi]\nworkgroup_size = [64, 1, 1]\n"
          "bindings = [{ name = \"x\", type = \"f32\", access = "
          "\"readwrite\" }]\n"
          "constants = [{ name = \"n\", type = \"u32\" }]\n"
          "[specialization]\nVEC = 4\n"
          "[bench]\nworkload = [" +
              workload +
              "]\nconstants = { n = 1000 }\n"
              "elements = { x = \"(n + VEC - 4) * 2 / VEC\" }\n");
    return loadEveryKernel(root_);
  };
  StatusOr<Project> project = kernelWith("\"n / VEC\"");
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->kernels[0].bench->workload, (std::vector<int64_t>{250}));
  EXPECT_EQ(project->kernels[0].bench->elementCounts,
            (std::vector<uint64_t>{500}));
  StatusOr<Project> fraction = kernelWith("\"n / 3\"");
  ASSERT_FALSE(fraction.ok());
  EXPECT_THAT(fraction.status().message(),
              HasSubstr("kernel.toml:11:13: `workload[0]`: `n / 3` is "
                        "333.333333; expected a positive whole number"));
  StatusOr<Project> negative = kernelWith("\"n - 2000\"");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(),
              HasSubstr("expected a positive whole number"));
}

// Dynamic shared memory as an expression of integer defines
// and (standalone kernels) integer [bench] constants; bad ones are located.
TEST_F(ProjectTest, DynamicSharedMemoryExpressions) {
  auto kernelWith = [&](const std::string &shared, bool bench) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
          "defines = { BLOCK = 256, WARPS = \"8\", NAME = \"x\" }\n"
          "[abi]\nworkgroup_size = [64, 1, 1]\n"
          "dynamic_shared_memory = " +
              shared +
              "\n"
              "bindings = [{ name = \"x\", type = \"f32\", "
              "access = \"readwrite\" }]\n"
              "constants = [{ name = \"n\", type = \"u32\" }]\n" +
              (bench ? "[bench]\nworkload = [64]\nelements = { x = 64 }\n"
                       "constants = { n = 3 }\n"
                     : ""));
    return loadEveryKernel(root_);
  };
  const std::tuple<std::string, bool, uint32_t> good[] = {
      {"48", false, 48},
      {"\"4*BLOCK\"", false, 1024},
      {"\"WARPS * 4 + 16\"", false, 48},
      {"\"4*n*BLOCK\"", true, 3072},
      {"\"0\"", false, 0},
  };
  for (const auto &[shared, bench, bytes] : good) {
    SCOPED_TRACE(shared);
    StatusOr<Project> project = kernelWith(shared, bench);
    ASSERT_TRUE(project.ok()) << project.status().message();
    EXPECT_EQ(project->kernels[0].specs[0].abi.dynamicSharedMemoryBytes, bytes);
  }
  const std::pair<std::string, std::string> bad[] = {
      {"\"4*n\"", "`dynamic_shared_memory`: `4*n` column 3: unknown name "
                  "`n`; known names: BLOCK, WARPS"},
      {"\"4*NAME\"", "the define `NAME` is \"x\", not an integer"},
      {"\"4*\"", "column 3: expected a number, a name or `(`"},
      {"\"4 + \"", "column 5: expected a number, a name or `(`"},
      {"\"-4\"", "`-4` is -4; expected an integer from 0 to 4294967295"},
      {"\"BLOCK*BLOCK*BLOCK*BLOCK\"", "is 4294967296; expected an integer "
                                      "from 0 to 4294967295"},
      {"\"BLOCK / 3\"", "`BLOCK / 3` is 85.33333333; expected an integer"},
      {"\"\"", "expected a byte count"},
      {"-1", "expected a byte count"},
      {"1.5", "expected a byte count"},
  };
  for (const auto &[shared, message] : bad) {
    SCOPED_TRACE(shared);
    StatusOr<Project> project = kernelWith(shared, false);
    ASSERT_FALSE(project.ok());
    EXPECT_THAT(project.status().message(), HasSubstr("kernel.toml:7:"));
    EXPECT_THAT(project.status().message(), HasSubstr(message));
  }
}

// The launch shape as expressions of tuned names, evaluated per
// source with the value tuned.toml (per backend) or the parameter's
// default gives it; workload_per_workgroup lives in [abi].
class LaunchShapeTest : public ProjectTest {
protected:
  void SetUp() override {
    ProjectTest::SetUp();
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\", \"cuda:sm_90\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/k.cu", "// cuda\n");
  }
  StatusOr<Project> kernelWith(const std::string &tune,
                               const std::string &bench) {
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsources = [\"k.comp\", \"k.cu\"]\n"
          "[abi]\nworkgroup_size = [\"TILE\", \"TILE / WPT\", 1]\n"
          "workload_per_workgroup = [\"TILE\", \"TILE\"]\n"
          "dynamic_shared_memory = \"4 * TILE * TILE\"\n"
          "bindings = [{ name = \"x\", type = \"f32\", "
          "access = \"readwrite\" }]\n"
          "[tune]\n" +
              tune + bench);
    return loadEveryKernel(root_);
  }
  /// The error loading the project gives with |tuned| as k/tuned.toml.
  std::string refusal(const std::string &tuned, const std::string &tune) {
    write("k/tuned.toml", tuned);
    StatusOr<Project> project = kernelWith(tune, "");
    EXPECT_FALSE(project.ok());
    return project.ok() ? "" : project.status().message();
  }
  const std::string space = "TILE = { values = [8, 16, 32], default = 16 }\n"
                            "WPT = { values = [1, 2, 4], default = 2 }\n";
};

// A source that #defines a tuned name itself, unguarded, would override
// -DTILE=...: the name is refused as not tunable, naming the line, when the
// kernel.toml is read. The usual #ifndef default is what tune can set.
TEST_F(LaunchShapeTest, ADefineTheSourceHardCodesIsNotTunable) {
  write("k/k.cu", "// cuda\n#define TILE 16\n");
  StatusOr<Project> project = kernelWith(space, "");
  ASSERT_FALSE(project.ok());
  EXPECT_THAT(project.status().message(),
              HasSubstr("[tune] `TILE` cannot be tuned: "));
  EXPECT_THAT(project.status().message(),
              HasSubstr("k/k.cu:2 #defines it itself"));
  EXPECT_THAT(project.status().message(),
              HasSubstr("wrap that #define in `#ifndef TILE` ... `#endif`"));

  write("k/k.cu", "// cuda\n#ifndef TILE\n#define TILE 16\n#endif\n");
  EXPECT_TRUE(kernelWith(space, "").ok());
}

// The same for a `defines` name: the source's own #define would win over
// -DBLOCK=..., so the kernel built would not be the one declared.
TEST_F(ProjectTest, ADefineTheSourceHardCodesCannotBeSet) {
  writeValidProject();
  write("kernels/saxpy/saxpy.cu", "// cuda\n\n#define BLOCK 128\n");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("kernel.toml:5:13: `defines`: `BLOCK` cannot "
                                 "be set: "));
  EXPECT_THAT(message, HasSubstr("saxpy/saxpy.cu:3 #defines it itself, which "
                                 "overrides -DBLOCK"));
  EXPECT_THAT(message, HasSubstr("`#ifndef BLOCK` / `#define BLOCK ...` / "
                                 "`#endif`, or remove `BLOCK` from `defines`"));

  write("kernels/saxpy/saxpy.cu",
        "// cuda\n#ifndef BLOCK\n#define BLOCK 128\n#endif\n");
  EXPECT_TRUE(loadEveryKernel(root_).ok());
}

TEST_F(LaunchShapeTest, FollowsTunedValuesPerSource) {
  StatusOr<Project> project = kernelWith(space, "");
  ASSERT_TRUE(project.ok()) << project.status().message();
  for (const toolchains::KernelSpec &spec : project->kernels[0].specs) {
    EXPECT_EQ(spec.abi.workgroupSize, (std::array<uint32_t, 3>{16, 8, 1}));
    EXPECT_EQ(spec.abi.workloadPerWorkgroup,
              (std::array<uint32_t, 3>{16, 16, 1}));
    EXPECT_EQ(spec.abi.dynamicSharedMemoryBytes, 1024u);
    // The defaults are defined, so the source sees what the shape assumes.
    EXPECT_THAT(
        spec.defines,
        ::testing::Contains(std::pair<std::string, std::string>("TILE", "16")));
  }

  // An entry without a device sets its backend's source; one with a device
  // a spec of its own for that model, with its own launch shape.
  write("k/tuned.toml", "[[best]]\nbackend = \"vulkan\"\n"
                        "values = { TILE = 32, WPT = 4 }\n\n"
                        "[[best]]\ndevice = \"x\"\nbackend = \"cuda\"\n"
                        "values = { TILE = 8, WPT = 1 }\n");
  project = kernelWith(space, "");
  ASSERT_TRUE(project.ok()) << project.status().message();
  for (const toolchains::KernelSpec &spec : project->kernels[0].specs) {
    bool glsl = spec.language == toolchains::Language::Glsl;
    EXPECT_EQ(spec.abi.workgroupSize,
              glsl ? (std::array<uint32_t, 3>{32, 8, 1})
                   : (std::array<uint32_t, 3>{16, 8, 1}));
    EXPECT_EQ(spec.abi.workloadPerWorkgroup[0], glsl ? 32u : 16u);
  }
  ASSERT_EQ(project->kernels[0].tunedSpecs.size(), 1u);
  const toolchains::KernelSpec &tuned = project->kernels[0].tunedSpecs[0];
  EXPECT_EQ(tuned.language, toolchains::Language::Cuda);
  EXPECT_EQ(tuned.abi.workgroupSize, (std::array<uint32_t, 3>{8, 8, 1}));
  EXPECT_EQ(tuned.abi.workloadPerWorkgroup[0], 8u);
  EXPECT_EQ(tuned.abi.dynamicSharedMemoryBytes, 256u);
  fs::remove(root_ / "k/tuned.toml");
}

TEST_F(LaunchShapeTest, BadValuesAndShapesAreRefusedWhereTheyAre) {
  // A value [tune] does not give was never measured: refused.
  EXPECT_THAT(refusal("[[best]]\nbackend = \"vulkan\"\n"
                      "values = { TILE = 32, WPT = 3 }\n",
                      space),
              HasSubstr("`WPT = 3` is not one of the values [tune] gives "
                        "`WPT` (1, 2, 4; "));
  // A launch error names the source, the values and where they came from.
  const std::string wide = "TILE = { values = [8, 64], default = 8 }\n"
                           "WPT = { values = [1, 2], default = 1 }\n";
  std::string error = refusal("[[best]]\nbackend = \"vulkan\"\n"
                              "values = { TILE = 64, WPT = 1 }\n",
                              wide);
  EXPECT_THAT(error,
              HasSubstr("`workgroup_size` is 64x64x1 (4096 invocations)"));
  EXPECT_THAT(error,
              HasSubstr("(k.comp with TILE=64, WPT=1); the tuned values are "));
  EXPECT_THAT(error, HasSubstr("tuned.toml's"));
  // The same values tuned for one model: that entry's error.
  error = refusal("[[best]]\ndevice = \"x\"\nbackend = \"vulkan\"\n"
                  "values = { TILE = 64, WPT = 1 }\n",
                  wide);
  EXPECT_THAT(error, HasSubstr("tuned.toml:1:1: the values tuned for `x` give "
                               "an invalid launch shape: "));
  EXPECT_THAT(error, HasSubstr("tuned for x)"));
  fs::remove(root_ / "k/tuned.toml");
  StatusOr<Project> project = kernelWith(space, "");

  const std::pair<std::string, std::string> bad[] = {
      {"TILE = { values = [8, 16, 32], default = 16 }\nWPT = [1, 2]\n",
       "kernel.toml:5:27: `workgroup_size[1]`: `WPT` is tuned and has no "
       "value here: a tuned name the launch shape uses needs a default in "
       "[tune]"},
      {"TILE = { values = [8, 16], default = 12 }\nWPT = [1]\n",
       "`tune.TILE.default`: expected one of the parameter's values"},
      {"TILE = { values = [64], default = 64 }\n"
       "WPT = { values = [1], default = 1 }\n",
       "`workgroup_size` is 64x64x1 (4096 invocations)"},
  };
  for (const auto &[tune, message] : bad) {
    SCOPED_TRACE(tune);
    project = kernelWith(tune, "");
    ASSERT_FALSE(project.ok());
    EXPECT_THAT(project.status().message(), HasSubstr(message));
  }
  // A define that is not an integer is said to be one, not "unknown".
  write("k/kernel.toml",
        "[kernel]\nname = \"k\"\nsources = [\"k.comp\"]\n"
        "defines = { WPT = \"two\" }\n"
        "[abi]\nworkgroup_size = [\"64 / WPT\", 1, 1]\n"
        "bindings = [{ name = \"x\", type = \"f32\", access = \"readwrite\" "
        "}]\n");
  project = loadEveryKernel(root_);
  ASSERT_FALSE(project.ok());
  EXPECT_THAT(project.status().message(),
              HasSubstr("the define `WPT` is \"two\", not an integer"));
  project = kernelWith(space, "[bench]\nworkload = [64]\n"
                              "workload_per_workgroup = [16]\n"
                              "elements = { x = 64 }\n");
  ASSERT_FALSE(project.ok());
  EXPECT_THAT(project.status().message(),
              HasSubstr("`workload_per_workgroup` belongs in [abi]"));
  // A count rule must cover each dimension of the workload.
  project = kernelWith(space, "[bench]\nworkload = [64, 64, 2]\n"
                              "elements = { x = 4096 }\n");
  ASSERT_FALSE(project.ok());
  EXPECT_THAT(project.status().message(),
              HasSubstr("kernel.toml:6:27: `workload_per_workgroup` has 2 "
                        "entries, but [bench] workload has 3 dimensions"));
}

// [bench] init per binding; bad tables are located errors.
TEST_F(ProjectTest, BenchInitPerBinding) {
  auto kernelWith = [&](const std::string &init) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
          "[abi]\nworkgroup_size = [64, 1, 1]\n"
          "bindings = [\n"
          "  { name = \"idx\", type = \"i32\", access = \"readonly\" },\n"
          "  { name = \"x\", type = \"f32\", access = \"readonly\" },\n"
          "  { name = \"y\", type = \"f32\", access = \"writeonly\" },\n"
          "]\n"
          "[bench]\nworkload = [64]\nelements = { idx = 64, x = 64, y = 64 }\n"
          "init = " +
              init + "\n");
    return loadEveryKernel(root_);
  };
  StatusOr<Project> project = kernelWith(
      "{ idx = { uniform = [0, 1000] }, x = { normal = [0, 0.5] } }");
  ASSERT_TRUE(project.ok()) << project.status().message();
  const std::vector<BufferInit> &init = project->kernels[0].bench->init;
  ASSERT_EQ(init.size(), 3u);
  EXPECT_EQ(init[0].distribution, "uniform");
  EXPECT_EQ(init[0].low, 0);
  EXPECT_EQ(init[0].high, 1000);
  EXPECT_EQ(init[1].distribution, "normal");
  EXPECT_EQ(init[1].stddev, 0.5);
  EXPECT_EQ(init[2].distribution, "");
  project = kernelWith("{ x = { constant = 2.5 }, idx = { range = [0, 3] } }");
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->kernels[0].bench->init[1].distribution, "range");
  EXPECT_EQ(project->kernels[0].bench->init[1].start, 2.5);
  EXPECT_EQ(project->kernels[0].bench->init[1].step, 0);

  const std::pair<std::string, std::string> bad[] = {
      {"{ idx = { uniform = [0.5, 10] } }",
       "`init.idx.uniform`: expected an integer (binding `idx` holds i32)"},
      {"{ x = { uniform = [1, 1] } }", "with low < high"},
      {"{ x = { normal = [0, -1] } }", "stddev >= 0"},
      {"{ x = { uniform = [1] } }", "an array of 2 numbers"},
      {"{ x = { poisson = 1 } }", "unknown key `poisson` in [bench] init.x"},
      {"{ x = { uniform = [0, 1], normal = [0, 1] } }", "a table with one of"},
      {"{ y = { constant = 1 } }", "`y` is writeonly"},
      {"{ z = { constant = 1 } }", "unknown key `z` in [bench] init"},
  };
  for (const auto &[init, message] : bad) {
    SCOPED_TRACE(init);
    StatusOr<Project> failed = kernelWith(init);
    ASSERT_FALSE(failed.ok());
    EXPECT_THAT(failed.status().message(), HasSubstr("kernel.toml:14:"));
    EXPECT_THAT(failed.status().message(), HasSubstr(message));
  }
}

TEST_F(ProjectTest, TwinReferenceBuildsLikeTheKernel) {
  auto kernelWith = [&](const std::string &reference) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\", \"cuda:sm_90\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/k.cu", "// cuda\n");
    write("k/naive.comp", "// glsl\n");
    write("k/naive.cu", "// cuda\n");
    write("k/ref.txt", "\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsources = [\"k.cu\", \"k.comp\"]\n"
          "entry = \"fast\"\ndefines = { B = 4 }\n"
          "[abi]\nworkgroup_size = [64, 1, 1]\n"
          "bindings = [{ name = \"y\", type = \"f32\", access = "
          "\"writeonly\" }]\n"
          "[bench]\nworkload = [64]\nelements = { y = 64 }\n"
          "reference = " +
              reference + "\n");
    return loadEveryKernel(root_);
  };
  StatusOr<Project> project = kernelWith(
      "{ sources = [\"naive.cu\", \"naive.comp\"], entry = \"slow\" }");
  ASSERT_TRUE(project.ok()) << project.status().message();
  const Kernel &k = project->kernels[0];
  ASSERT_EQ(k.referenceSpecs.size(), 2u);
  for (const toolchains::KernelSpec &twin : k.referenceSpecs) {
    EXPECT_EQ(twin.name, "k@reference");
    EXPECT_TRUE(k.isReferenceSpec(&twin));
    EXPECT_EQ(twin.defines, k.specs[0].defines);
    EXPECT_EQ(twin.abi.workgroupSize, k.specs[0].abi.workgroupSize);
    EXPECT_EQ(twin.source.filename().string(),
              twin.language == toolchains::Language::Cuda ? "naive.cu"
                                                          : "naive.comp");
    EXPECT_EQ(twin.entry,
              twin.language == toolchains::Language::Cuda ? "slow" : "main");
  }
  EXPECT_FALSE(k.isReferenceSpec(&k.specs[0]));
  EXPECT_TRUE(k.bench->reference.empty());

  const std::pair<std::string, std::string> bad[] = {
      {"\"naive.comp\"", "the kernel has a CUDA source but the twin none"},
      {"[\"naive.comp\", \"naive.comp\", \"naive.cu\"]",
       "two GLSL twin sources"},
      {"\"ref.txt\"", "expected a .mlir/.mlirbc"},
      {"[\"k.mlir\"]", "expected the .cu/.comp/.glsl source of a twin"},
      {"\"missing.cu\"", "file `missing.cu` not found"},
      {"{ sources = [\"naive.cu\"], entyr = \"x\" }", "unknown key `entyr`"},
      {"[]", "names no source"},
      {"3", "a list of twin sources"},
  };
  for (const auto &[reference, message] : bad) {
    SCOPED_TRACE(reference);
    StatusOr<Project> failed = kernelWith(reference);
    ASSERT_FALSE(failed.ok());
    EXPECT_THAT(failed.status().message(), HasSubstr(message));
  }
}

TEST_F(ProjectTest, HostReferenceIsOneCOrCxxFile) {
  auto kernelWith = [&](const std::string &name, const std::string &reference,
                        const std::string &extra = "") {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/naive.comp", "// glsl\n");
    write("k/ref.cpp", "// c++\n");
    write("k/ref.c", "// c\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"" + name + "\"\nsources = [\"k.comp\"]\n" +
              extra +
              "[abi]\nworkgroup_size = [64, 1, 1]\n"
              "bindings = [{ name = \"y\", type = \"f32\", access = "
              "\"writeonly\" }]\n"
              "[bench]\nworkload = [64]\nelements = { y = 64 }\n"
              "reference = " +
              reference + "\n");
    return loadEveryKernel(root_);
  };
  StatusOr<Project> project = kernelWith("k", "\"ref.cpp\"");
  ASSERT_TRUE(project.ok()) << project.status().message();
  const Kernel &k = project->kernels[0];
  EXPECT_EQ(k.bench->hostReference.filename(), "ref.cpp");
  EXPECT_TRUE(k.referenceSpecs.empty());
  ASSERT_TRUE(k.declared.hostReference);
  EXPECT_EQ(k.declared.hostReference->function, "k");
  EXPECT_EQ(k.declared.hostReference->stored, "standalone/k/reference/k.so");
  EXPECT_TRUE(k.declared.hostReference->sha256.empty()); // the build's to set

  project =
      kernelWith("my-kernel", "{ sources = [\"ref.c\"], entry = \"gold\" }");
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->kernels[0].declared.hostReference->function, "gold");

  const std::pair<std::vector<std::string>, std::string> bad[] = {
      {{"my-kernel", "\"ref.cpp\""},
       "`my-kernel`, which is not a C identifier; name it: reference = { "
       "sources = [\"ref.cpp\"], entry = \"my_reference\" }"},
      {{"k", "[\"ref.cpp\", \"naive.comp\"]"},
       "a host reference is one C or C++ file"},
      {{"k", "[\"naive.comp\", \"ref.cpp\"]"},
       "a host reference is one C or C++ file"},
      {{"k", "[\"ref.cpp\", \"ref.c\"]"},
       "a host reference is one C or C++ file"},
      {{"k", "\"missing.cpp\""}, "file `missing.cpp` not found"},
      {{"k", "\"ref.cpp\"", "substitutes = \"k\"\n"},
       "[bench] is for a standalone kernel"},
  };
  for (const auto &[args, message] : bad) {
    SCOPED_TRACE(args[1]);
    StatusOr<Project> failed = args.size() == 3
                                   ? kernelWith(args[0], args[1], args[2])
                                   : kernelWith(args[0], args[1]);
    ASSERT_FALSE(failed.ok());
    EXPECT_THAT(failed.status().message(), HasSubstr("kernel.toml:"));
    EXPECT_THAT(failed.status().message(), HasSubstr(message));
  }
}

TEST_F(ProjectTest, ParametersOrderTheCudaSourcesSlots) {
  auto kernelWith = [&](const std::string &sources) {
    write("workbench.toml", "[project]\nkernels = [\"k\"]\n"
                            "targets = [\"vulkan:1.2\", \"cuda:sm_90\"]\n");
    write("k/k.comp", "// glsl\n");
    write("k/k.cu", "// cuda\n");
    write("k/kernel.toml",
          "[kernel]\nname = \"k\"\nsources = " + sources +
              "\n[abi]\nworkgroup_size = [64, 1, 1]\n"
              "bindings = [{ name = \"in\", type = \"f32\", access = "
              "\"readonly\" }, { name = \"out\", type = \"f32\", access "
              "= \"writeonly\" }]\n"
              "constants = [{ name = \"n\", type = \"u32\" }]\n"
              "parameters = [\"out\", \"n\", \"in\"]\n");
    return loadEveryKernel(root_);
  };
  StatusOr<Project> both = kernelWith("[\"k.cu\", \"k.comp\"]");
  ASSERT_TRUE(both.ok()) << both.status().message();
  for (const toolchains::KernelSpec &spec : both->kernels[0].specs)
    EXPECT_EQ(spec.abi.parameterOrder,
              spec.language == toolchains::Language::Cuda
                  ? std::vector<uint32_t>({1, 2, 0})
                  : std::vector<uint32_t>())
        << spec.source;
  StatusOr<Project> glsl = kernelWith("[\"k.comp\"]");
  ASSERT_FALSE(glsl.ok());
  EXPECT_THAT(glsl.status().message(), HasSubstr("kernel.toml:8:"));
  EXPECT_THAT(glsl.status().message(),
              HasSubstr("parameters orders a CUDA kernel's parameters, but "
                        "`sources` has no .cu"));
}

TEST_F(ProjectTest, ImportPlaceholdersAreRefusedByLine) {
  writeValidProject();
  writeSaxpyWith("dynamic_shared_memory = 128",
                 "dynamic_shared_memory = \"TODO: the bytes\"");
  std::string error = loadError();
  EXPECT_THAT(error, HasSubstr("1 value is still a \"TODO:\" placeholder"));
  EXPECT_THAT(error,
              HasSubstr("kernel.toml:15:25: `abi.dynamic_shared_memory`: "
                        "TODO: the bytes"));
}

TEST_F(ProjectTest, ProgramAndSettingsAreKept) {
  writeValidProject();
  write("program.mlir", "// program\n");
  write("workbench.toml", R"([project]
name = "demo"
program = "program.mlir"
kernels = ["kernels/saxpy"]
targets = ["cuda:sm_90"]
output_dir = "out"

[build]
jobs = 3
timeout = 2.5
cache_dir = "cache"

[toolchains]
nvcc = "/opt/cuda/bin/nvcc"
glslc = "tools/glslc"
)");
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->program, root_ / "program.mlir");
  EXPECT_EQ(project->outputDir, root_ / "out");
  EXPECT_EQ(project->build.jobs, 3u);
  EXPECT_EQ(project->build.timeoutSeconds, 2.5);
  EXPECT_EQ(project->build.cacheDir, root_ / "cache");
  EXPECT_EQ(project->toolOverrides.at("nvcc"), "/opt/cuda/bin/nvcc");
  EXPECT_EQ(project->toolOverrides.at("glslc"), root_ / "tools/glslc");
}

TEST_F(ProjectTest, MissingWorkbenchToml) {
  EXPECT_THAT(loadError(StatusCode::NotFound), HasSubstr("no workbench.toml"));
}

TEST_F(ProjectTest, MalformedTomlNamesFileLineAndColumn) {
  writeValidProject();
  write("workbench.toml", "[project]\nname = \"demo\nkernels = []\n");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("workbench.toml:2:"));
  EXPECT_THAT(message, HasSubstr("malformed TOML"));
}

// Found by workbench/fuzz: toml++ 3.3.0 had undefined behaviour (an
// unreachable branch) when it asked whether some non-ASCII characters are
// whitespace. workbench/project/toml.h makes that test total: such characters
// between tokens are ordinary syntax errors, and inside strings and comments
// valid.
TEST_F(ProjectTest, NonAsciiBetweenTokensIsAnErrorNotUndefinedBehaviour) {
  writeValidProject();
  write("workbench.toml", "\xef\xb9\xbf kernel that is right[p[\"vu byl");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("workbench.toml:1:1: malformed TOML"));

  writeValidProject();
  write("workbench.toml", "[project]\nname =\xc2\xa1 \"demo\"\n");
  EXPECT_THAT(loadError(), HasSubstr("workbench.toml:2:"));

  writeValidProject();
  write("workbench.toml",
        "# caf\xc3\xa9\n[project]\nname = \"caf\xc3\xa9 \xef\xb9\xbf\"\n"
        "kernels = [\"kernels/*\"]\n");
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();
  EXPECT_EQ(project->name, "caf\xc3\xa9 \xef\xb9\xbf");
}

// The table behind that test, over every code point: exactly TOML's
// non-ASCII horizontal whitespace (Unicode Zs, U+180E and U+FEFF, as the
// table was generated) is whitespace, nothing else.
TEST(TomlHeader, NonAsciiHorizontalWhitespaceIsTotal) {
  auto expected = [](char32_t c) {
    return c == 0xA0 || c == 0x1680 || c == 0x180E ||
           (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F ||
           c == 0x2060 || c == 0x3000 || c == 0xFEFF;
  };
  int wrong = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c)
    if (toml::impl::is_non_ascii_horizontal_whitespace(c) != expected(c))
      ++wrong;
  EXPECT_EQ(wrong, 0);
}

TEST_F(ProjectTest, MalformedKernelToml) {
  writeValidProject();
  write("kernels/saxpy/kernel.toml", "[kernel\nname = 1\n");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("kernel.toml:1:"));
  EXPECT_THAT(message, HasSubstr("malformed TOML"));
}

TEST_F(ProjectTest, UnknownKeySuggestsNearest) {
  writeValidProject();
  writeSaxpyWith("include_dirs =", "include_dir =");
  std::string message = loadError();
  EXPECT_THAT(
      message,
      HasSubstr("kernel.toml:6:1: unknown key `include_dir` in [kernel]"));
  EXPECT_THAT(message, HasSubstr("did you mean `include_dirs`?"));
}

TEST_F(ProjectTest, UnknownKeyFarFromAnyListsValidKeys) {
  writeValidProject();
  writeSaxpyWith("[abi]\n", "[abi]\ncolour = 1\n");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("unknown key `colour` in [abi]"));
  EXPECT_THAT(message, HasSubstr("valid keys: `workgroup_size`"));
}

TEST_F(ProjectTest, UnknownKeyInProjectAndFlags) {
  writeValidProject();
  write("workbench.toml",
        "[project]\nname = \"d\"\ntarget = [\"cuda:sm_90\"]\n");
  EXPECT_THAT(loadError(), HasSubstr("did you mean `targets`?"));

  writeValidProject();
  writeSaxpyWith("nvcc = [\"-O3\"]", "nvc = [\"-O3\"]");
  EXPECT_THAT(
      loadError(),
      HasSubstr("unknown key `nvc` in [kernel.flags]; did you mean `nvcc`?"));
}

TEST_F(ProjectTest, MissingSourceFile) {
  writeValidProject();
  fs::remove(root_ / "kernels/saxpy/saxpy.cu");
  std::string message = loadError();
  EXPECT_THAT(message,
              HasSubstr("kernel.toml:3:12: source file `saxpy.cu` not found"));
  EXPECT_THAT(message, HasSubstr("kernels/saxpy/saxpy.cu"));
}

TEST_F(ProjectTest, UnknownSourceExtension) {
  writeValidProject();
  write("kernels/saxpy/saxpy.hip", "\n");
  writeSaxpyWith("\"saxpy.cu\"", "\"saxpy.hip\"");
  EXPECT_THAT(loadError(),
              HasSubstr("expected a `.cu` (CUDA), `.glsl` or `.comp`"));
}

TEST_F(ProjectTest, TwoSourcesOfOneLanguage) {
  writeValidProject();
  write("kernels/saxpy/other.cu", "\n");
  writeSaxpyWith("\"saxpy.comp\"", "\"other.cu\"");
  EXPECT_THAT(loadError(), HasSubstr("a second CUDA source `other.cu`"));
}

TEST_F(ProjectTest, DuplicateKernelNamesNameBothFiles) {
  writeValidProject();
  write("kernels/copy/saxpy.cu", "\n");
  write("kernels/copy/kernel.toml", R"([kernel]
name = "saxpy"
source = "saxpy.cu"
[abi]
workgroup_size = [64, 1, 1]
)");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("duplicate kernel name `saxpy`"));
  EXPECT_THAT(message, HasSubstr("kernels/copy/kernel.toml:2:8"));
  EXPECT_THAT(message, HasSubstr("kernels/saxpy/kernel.toml:2:8"));
}

TEST_F(ProjectTest, BadElementTypeListsValidOnes) {
  writeValidProject();
  writeSaxpyWith("type = \"f32\", access = \"readonly\"",
                 "type = \"float\", access = \"readonly\"");
  std::string message = loadError();
  EXPECT_THAT(
      message,
      HasSubstr(
          "kernel.toml:17:24: `bindings[0].type`: expected one of i8, u8"));
  EXPECT_THAT(message, HasSubstr("found a string \"float\""));
}

TEST_F(ProjectTest, BadAccessListsValidOnes) {
  writeValidProject();
  writeSaxpyWith("access = \"readwrite\"", "access = \"rw\"");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("`bindings[1].access`: expected one of "
                                 "readonly, writeonly, readwrite"));
  EXPECT_THAT(message, HasSubstr("found a string \"rw\""));
}

TEST_F(ProjectTest, MissingAccess) {
  writeValidProject();
  writeSaxpyWith(", access = \"readwrite\"", "");
  EXPECT_THAT(loadError(), HasSubstr("`bindings[1]` is missing `access`"));
}

TEST_F(ProjectTest, BadConstantTypeListsValidOnes) {
  writeValidProject();
  writeSaxpyWith("name = \"n\", type = \"u32\"", "name = \"n\", type = \"u8\"");
  std::string message = loadError();
  EXPECT_THAT(
      message,
      HasSubstr(
          "`constants[1].type`: expected one of i32, u32, f32, i64, u64, f64"));
  EXPECT_THAT(message, HasSubstr("found a string \"u8\""));
}

TEST_F(ProjectTest, WorkgroupSizeMustBeThreePositiveIntegers) {
  writeValidProject();
  writeSaxpyWith("[256, 1, 1]", "[256, 1]");
  std::string message = loadError();
  EXPECT_THAT(message, HasSubstr("kernel.toml:14:18: `workgroup_size`: "
                                 "expected an array of 3 positive integers"));
  EXPECT_THAT(message, HasSubstr("found an array of 2 elements"));

  writeSaxpyWith("[256, 1, 1]", "[256, 0, 1]");
  EXPECT_THAT(loadError(), HasSubstr("`workgroup_size[1]`: expected a positive "
                                     "integer, or a string expression"));
  EXPECT_THAT(loadError(), HasSubstr("found an integer (0)"));

  // Expressions are evaluated, then checked against every device's limits.
  writeSaxpyWith("[256, 1, 1]", "[\"2 * 512\", 2, 1]");
  EXPECT_THAT(loadError(), HasSubstr("`workgroup_size` is 1024x2x1 (2048 "
                                     "invocations); a workgroup has at most "
                                     "1024 invocations"));
  writeSaxpyWith("[256, 1, 1]", "[\"TILE\", 1, 1]");
  EXPECT_THAT(loadError(), HasSubstr("`workgroup_size[0]`: `TILE` column 1: "
                                     "unknown name `TILE`"));

  writeSaxpyWith("[256, 1, 1]", "\"256\"");
  EXPECT_THAT(loadError(), HasSubstr("found a string \"256\""));

  writeSaxpyWith("workgroup_size = [256, 1, 1]\n", "");
  EXPECT_THAT(loadError(), HasSubstr("[abi] is missing `workgroup_size`"));
}

TEST_F(ProjectTest, BadTargetUsesTargetParseMessage) {
  writeValidProject();
  write("workbench.toml", R"([project]
kernels = ["kernels/*"]
targets = ["cuda:sm_90", "metal:3"]
)");
  std::string message = loadError();
  StatusOr<Target> parsed = Target::parse("metal:3");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(message, HasSubstr("workbench.toml:3:26: `targets[1]`: "));
  EXPECT_THAT(message, HasSubstr(parsed.status().message()));
}

TEST_F(ProjectTest, DeclaredTargetNeedsASource) {
  writeValidProject();
  writeSaxpyWith("sources = [\"saxpy.cu\", \"saxpy.comp\"]",
                 "sources = [\"saxpy.cu\"]\ntargets = [\"vulkan:1.2\"]");
  EXPECT_THAT(loadError(),
              HasSubstr("target vulkan:1.2 needs a GLSL (.glsl/.comp) source"));
}

TEST_F(ProjectTest, WrongValueTypes) {
  writeValidProject();
  writeSaxpyWith("spills_are_errors = true", "spills_are_errors = \"yes\"");
  EXPECT_THAT(loadError(), HasSubstr("`spills_are_errors`: expected true or "
                                     "false, found a string \"yes\""));

  writeValidProject();
  writeSaxpyWith("include_dirs = [\"include\"]", "include_dirs = \"include\"");
  EXPECT_THAT(
      loadError(),
      HasSubstr(
          "`include_dirs`: expected an array of strings, found a string"));

  writeValidProject();
  writeSaxpyWith("include_dirs = [\"include\"]",
                 "include_dirs = [\"missing\"]");
  EXPECT_THAT(loadError(), HasSubstr("directory `missing` not found"));

  // TOML has inf and nan; none of these is a timeout.
  for (const char *value : {"-1", "0", "inf", "nan", "-inf", "1e300"}) {
    writeValidProject();
    write("workbench.toml",
          std::string("[project]\nkernels = [\"kernels/*\"]\n[build]\n"
                      "timeout = ") +
              value + "\n");
    EXPECT_THAT(loadError(),
                HasSubstr("`timeout`: expected a number of seconds greater "
                          "than 0 and at most 86400"))
        << value;
  }
}

TEST_F(ProjectTest, KernelsGlobMustMatch) {
  writeValidProject();
  write("workbench.toml", "[project]\nkernels = [\"kernelz/*\"]\n");
  EXPECT_THAT(loadError(),
              HasSubstr("workbench.toml:2:12: `kernels`: `kernelz/*` matches "
                        "no directory with a kernel.toml"));
}

TEST_F(ProjectTest, MissingProgram) {
  writeValidProject();
  write("workbench.toml",
        "[project]\nprogram = \"p.mlir\"\nkernels = [\"kernels/*\"]\n");
  EXPECT_THAT(
      loadError(),
      HasSubstr("workbench.toml:2:11: `program`: file `p.mlir` not found"));
}

TEST_F(ProjectTest, UnknownToolOverride) {
  writeValidProject();
  write("workbench.toml", "[project]\nkernels = "
                          "[\"kernels/*\"]\n[toolchains]\nspirv_val = \"x\"\n");
  EXPECT_THAT(loadError(), HasSubstr("unknown key `spirv_val` in [toolchains]; "
                                     "did you mean `spirv-val`?"));
}

TEST_F(ProjectTest, DefaultKernelsAreFoundRecursively) {
  writeValidProject();
  write("workbench.toml", "[project]\ntargets = [\"vulkan:1.2\"]\n");
  write("kb-out/kernels/stale/kernel.toml", "not toml [");
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();
  ASSERT_EQ(project->kernels.size(), 1u);
}

TEST_F(ProjectTest, PlanJobsWithRequestedTargets) {
  writeValidProject();
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();

  auto vulkan = Target::parse("vulkan:1.2");
  ASSERT_TRUE(vulkan.ok());
  auto jobs = planJobs(*project, {*vulkan});
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].spec->language, Language::Glsl);

  auto sm80 = Target::parse("cuda:sm_80");
  ASSERT_TRUE(sm80.ok());
  jobs = planJobs(*project, {*sm80});
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].target.arch(), "sm_80");
}

TEST_F(ProjectTest, PlanJobsRejectsATargetNoKernelBuilds) {
  writeValidProject();
  writeSaxpyWith("sources = [\"saxpy.cu\", \"saxpy.comp\"]",
                 "sources = [\"saxpy.cu\"]");
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();
  auto vulkan = Target::parse("vulkan:1.2");
  ASSERT_TRUE(vulkan.ok());
  auto jobs = planJobs(*project, {*vulkan});
  ASSERT_FALSE(jobs.ok());
  EXPECT_THAT(
      jobs.status().message(),
      HasSubstr("--target vulkan:1.2: no kernel of the project builds for it"));
}

TEST_F(ProjectTest, PlanJobsWithoutTargets) {
  writeValidProject();
  write("workbench.toml", "[project]\nkernels = [\"kernels/*\"]\n");
  StatusOr<Project> project = loadEveryKernel(root_);
  ASSERT_TRUE(project.ok()) << project.status().message();
  auto jobs = planJobs(*project, {});
  ASSERT_FALSE(jobs.ok());
  EXPECT_THAT(jobs.status().message(), HasSubstr("has no targets"));
}

TEST(SpellingTest, EditDistance) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("include_dir", "include_dirs"), 1u);
  EXPECT_EQ(nearestSpelling("entyr", {"name", "entry"}), "entry");
  EXPECT_EQ(nearestSpelling("zzzzzz", {"name", "entry"}), std::nullopt);
}

} // namespace
} // namespace kb::workbench

//===- tests/cli/new_kernel_cli_test.cpp - `abi` and `new-kernel` ---------===//
//
// Through the built binary, on a real build of examples/quickstart (made
// once for the suite): `kernel-bench abi` lists and describes its
// executables (text and --json), and `kernel-bench new-kernel` writes, for
// every executable and both languages, a kernel directory that a project
// with the same program builds with the real nvcc/ptxas and glslc/spirv-val
// (--strict) and substitutes — the build's and the compiler's ABI checks
// pass with the empty bodies. A kernel for every element and constant type
// goes through the same checks. Then the refusals: an unknown executable, an
// output that is not a build, an existing directory or file, bad flags —
// each with nothing written.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "workbench/abi/kernel_scaffold.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

/// The tests that read the quickstart's build expect both of its targets
/// (cuda:sm_90, vulkan:1.2): without a toolchain the build would skip one.
#define NEED_QUICKSTART()                                                      \
  do {                                                                         \
    REQUIRE_TOOL("nvcc");                                                      \
    REQUIRE_TOOL("glslc");                                                     \
    ASSERT_NO_FATAL_FAILURE(needQuickstart());                                 \
  } while (false)

namespace {

using Cli = kb::test::CliRun;
const fs::path kSourceDir = KB_SOURCE_DIR;

void writeText(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// Names of everything in |dir| (not recursive), sorted.
std::vector<std::string> listDir(const fs::path &dir) {
  std::vector<std::string> names;
  for (const auto &e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class NewKernelCliTest : public kb::test::KernelBenchTest {
protected:
  NewKernelCliTest() : KernelBenchTest("kb_new_kernel_cli") {}

  /// One build of the quickstart per test process, made by the first test
  /// that needs it; the build cache is shared by the suite's processes
  /// (ctest runs each test in its own), so later ones hit it.
  static void SetUpTestSuite() {
    auto dir = kb::TempDir::create(fs::temp_directory_path(),
                                   "kb_new_kernel_quickstart_");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    suiteDir_.emplace(std::move(*dir));
    quickstart_ = suiteDir_->path() / "quickstart";
  }
  static void TearDownTestSuite() { suiteDir_.reset(); }

  void needQuickstart() {
    if (!quickstartBuild_)
      quickstartBuild_ = kb::test::runKernelBench(
          {"build", "examples/quickstart", "-o", quickstart_.string(),
           "--cache-dir", KB_NEW_KERNEL_TEST_CACHE});
    ASSERT_EQ(quickstartBuild_->exitCode, 0) << quickstartBuild_->output;
    ASSERT_TRUE(fs::exists(quickstart_ / "program.kbm"));
  }

  /// The quickstart's executables, from `abi --json`.
  std::vector<std::string> executables() {
    Cli r = run({"abi", quickstart_.string(), "--json"});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    std::vector<std::string> names;
    json doc = json::parse(r.output);
    for (const json &exe : doc["executables"])
      names.push_back(exe["name"]);
    return names;
  }

  /// A project holding the quickstart's program and kernels/*, targets as
  /// the quickstart's.
  fs::path makeProject() {
    fs::path project = tmp_ / "project";
    fs::create_directories(project / "kernels");
    fs::copy_file(kSourceDir / "examples/quickstart/program.mlir",
                  project / "program.mlir");
    writeText(project / "workbench.toml",
              "[project]\nname = \"mine\"\nprogram = \"program.mlir\"\n"
              "kernels = [\"kernels/*\"]\n"
              "targets = [\"cuda:sm_90\", \"vulkan:1.2\"]\n");
    return project;
  }

  static std::optional<kb::TempDir> suiteDir_;
  static fs::path quickstart_;
  static std::optional<Cli> quickstartBuild_;
};

std::optional<kb::TempDir> NewKernelCliTest::suiteDir_;
fs::path NewKernelCliTest::quickstart_;
std::optional<Cli> NewKernelCliTest::quickstartBuild_;

TEST_F(NewKernelCliTest, AbiListsEveryExecutable) {
  NEED_QUICKSTART();
  Cli r = run({"abi", quickstart_.string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("program.kbm: 4 executable(s)"));
  // One line each: signature, workgroup size, targets, substitution.
  EXPECT_THAT(
      r.output,
      ContainsRegex("\n  saxpy +saxpy\\(x: f32 readonly, y: f32 "
                    "readwrite; a: f32, n: u32\\) +256x1x1 +cuda:sm_90, "
                    "vulkan:1.2 +handwritten for cuda:sm_90, "
                    "vulkan:1.2\n"));
  EXPECT_THAT(r.output,
              ContainsRegex("\n  matmul +matmul_tiled\\(a: f32 readonly, b: "
                            "f32 readonly, c: f32 writeonly; M: u32, N: u32, "
                            "K: u32\\) +16x16x1 +cuda:sm_90, vulkan:1.2 "));
  EXPECT_EQ(executables(), (std::vector<std::string>{"saxpy", "reduce_sum",
                                                     "softmax", "matmul"}));
}

TEST_F(NewKernelCliTest, AbiOfOneExecutableIsWhatAKernelWrites) {
  NEED_QUICKSTART();
  Cli r = run({"abi", quickstart_.string(), "saxpy"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  for (const char *line : {
           "executable `saxpy` of ",
           "  compiled for:  cuda:sm_90, vulkan:1.2\n",
           "export `saxpy`\n",
           "  workgroup size:         256x1x1\n",
           "  dynamic shared memory:  0 bytes\n",
           "    index  name  type  access     CUDA param offset\n",
           "    0      x     f32   readonly   0\n",
           "    1      y     f32   readwrite  8\n",
           "one push-constant block of 8 bytes, or one uniform block of "
           "scalars at set 0 binding 2 or later, std140):\n",
           "    0      a     f32   4      16                 0\n",
           "    1      n     u32   4      20                 4\n",
           "  dispatched (the sizes a kernel is launched with):\n"
           "    `main` op 2: 4096x1x1 workgroups (workload 1048576x1x1); "
           "elements: x 1048576, y "
           "1048576\n",
           "    extern \"C\" __global__ void __launch_bounds__(256)\n"
           "    saxpy(const float *x, float *y, float a, unsigned n);\n",
           "    layout(set = 0, binding = 0) readonly buffer Binding0 { float "
           "x[]; };\n",
           "      layout(offset = 4) uint n;\n",
       })
    EXPECT_THAT(r.output, HasSubstr(line));
}

TEST_F(NewKernelCliTest, AbiJsonParsesBack) {
  NEED_QUICKSTART();
  Cli r = run({"abi", quickstart_.string(), "reduce_sum", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json doc = json::parse(r.output);
  const json &exe = doc["executable"];
  EXPECT_EQ(exe["name"], "reduce_sum");
  EXPECT_EQ(exe["targets"], json({"cuda:sm_90", "vulkan:1.2"}));
  EXPECT_EQ(exe["substituted_targets"], json({"cuda:sm_90", "vulkan:1.2"}));
  ASSERT_EQ(exe["exports"].size(), 1u);
  const json &e = exe["exports"][0];
  EXPECT_EQ(e["entry"], "reduce_sum");
  EXPECT_EQ(e["workgroup_size"], json({256, 1, 1}));
  EXPECT_EQ(e["bindings"][1], json({{"index", 1},
                                    {"name", "partials"},
                                    {"type", "f32"},
                                    {"access", "writeonly"},
                                    {"cuda_param_offset", 8}}));
  EXPECT_EQ(e["constants"][0]["push_constant_offset"], 0);
  EXPECT_EQ(e["constants"][0]["cuda_param_offset"], 16);
  EXPECT_EQ(e["push_constant_size"], 4);
  // Two passes: the second sums the first's 256 partials.
  EXPECT_EQ(e["sites"], json::parse(R"([
      {"function": "main", "op": 5, "workgroup_count": [256, 1, 1],
       "binding_elements": [1048576, 256]},
      {"function": "main", "op": 6, "workgroup_count": [1, 1, 1],
       "binding_elements": [256, 1]}])"));
  EXPECT_THAT(e["cuda"].get<std::string>(),
              HasSubstr("reduce_sum(const float *input_, float *partials, "
                        "unsigned n);"));
  EXPECT_THAT(e["glsl"].get<std::string>(),
              HasSubstr("writeonly buffer Binding1 { float partials[]; };"));
}

TEST_F(NewKernelCliTest, EveryGeneratedKernelBuildsAndIsSubstituted) {
  NEED_QUICKSTART();
  fs::path project = makeProject();
  std::vector<std::string> names = executables();
  ASSERT_EQ(names.size(), 4u);
  for (const std::string &name : names) {
    fs::path dir = project / "kernels" / name;
    Cli r = run({"new-kernel", quickstart_.string(), name, "-o", dir.string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("wrote "));
    EXPECT_EQ(listDir(dir), (std::vector<std::string>{
                                "kernel.toml", name + ".comp", name + ".cu"}));
    std::string cu = kb::test::readFile(dir / (name + ".cu"));
    EXPECT_THAT(cu, HasSubstr("extern \"C\" __global__ void "
                              "__launch_bounds__("));
    EXPECT_THAT(cu, HasSubstr("// TODO: your kernel"));
  }
  // --strict: a warning from any tool would fail it too.
  Cli built = buildProject(project, {"--strict"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  json report = buildJson();
  EXPECT_EQ(report["totals"]["failed"], 0) << report.dump(2);
  EXPECT_EQ(report["totals"]["succeeded"], 8) << report.dump(2);
  ASSERT_EQ(report["program"]["status"], "ok") << report.dump(2);
  std::set<std::string> substituted;
  for (const json &s : report["program"]["substitutions"])
    substituted.insert(s["executable"].get<std::string>() + "/" +
                       s["variant"].get<std::string>());
  for (const std::string &name : names)
    for (const char *variant : {"cuda_sm_90", "vulkan_1_2"})
      EXPECT_TRUE(substituted.count(name + "/" + variant))
          << name << "/" << variant << " not substituted: " << report.dump(2);
}

TEST_F(NewKernelCliTest, OneLanguageWritesOneSourceAndItsTargets) {
  NEED_QUICKSTART();
  Cli cuda = run({"new-kernel", quickstart_.string(), "softmax", "--lang",
                  "cuda", "-o", (tmp_ / "sm").string()});
  ASSERT_EQ(cuda.exitCode, 0) << cuda.output;
  EXPECT_EQ(listDir(tmp_ / "sm"),
            (std::vector<std::string>{"kernel.toml", "sm.cu"}));
  std::string toml = kb::test::readFile(tmp_ / "sm/kernel.toml");
  EXPECT_THAT(toml, HasSubstr("name = \"sm\"\nsources = [\"sm.cu\"]\n"
                              "entry = \"softmax\"\nsubstitutes = "
                              "\"softmax\"\ntargets = [\"cuda:sm_90\"]\n"));
  // The quickstart substitutes softmax already: the user is told.
  EXPECT_THAT(cuda.output, HasSubstr("note: this build already substitutes"));
  EXPECT_THAT(cuda.output, HasSubstr("next: write the body"));

  Cli glsl = run({"new-kernel", quickstart_.string(), "softmax", "--lang",
                  "glsl", "-o", (tmp_ / "vk").string()});
  ASSERT_EQ(glsl.exitCode, 0) << glsl.output;
  EXPECT_EQ(listDir(tmp_ / "vk"),
            (std::vector<std::string>{"kernel.toml", "vk.comp"}));
  EXPECT_THAT(kb::test::readFile(tmp_ / "vk/kernel.toml"),
              HasSubstr("targets = [\"vulkan:1.2\"]\n"));
  std::string comp = kb::test::readFile(tmp_ / "vk/vk.comp");
  EXPECT_THAT(comp, HasSubstr("#version 450\n"));
  EXPECT_THAT(comp, HasSubstr("// The constants: pc.rows, pc.cols.\n"));
}

TEST_F(NewKernelCliTest, BothMeansTheLanguagesOfTheProgramsTargets) {
  REQUIRE_TOOL("glslc");
  fs::path vulkanOnly = tmp_ / "vulkan_only";
  Cli built =
      run({"build", "examples/quickstart", "-o", vulkanOnly.string(),
           "--cache-dir", KB_NEW_KERNEL_TEST_CACHE, "--target", "vulkan:1.2"});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  Cli r = run({"new-kernel", vulkanOnly.string(), "saxpy", "-o",
               (tmp_ / "k").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(listDir(tmp_ / "k"),
            (std::vector<std::string>{"k.comp", "kernel.toml"}));
  EXPECT_THAT(kb::test::readFile(tmp_ / "k/kernel.toml"),
              HasSubstr("targets = [\"vulkan:1.2\"]\n"));
  // Asked for by name, a language without a target is an error.
  r = run({"new-kernel", vulkanOnly.string(), "saxpy", "--lang", "cuda", "-o",
           (tmp_ / "c").string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("was compiled for vulkan:1.2 only: a CUDA "
                                  "kernel would substitute nothing; pass "
                                  "--lang glsl"));
  EXPECT_FALSE(fs::exists(tmp_ / "c"));
}

TEST_F(NewKernelCliTest, DefaultDirectoryIsTheExecutableInTheCurrentOne) {
  NEED_QUICKSTART();
  std::string command = "cd " + tmp_.string() + " && " +
                        kb::test::kernelBenchBinary() + " new-kernel " +
                        quickstart_.string() + " saxpy > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(
      listDir(tmp_ / "saxpy"),
      (std::vector<std::string>{"kernel.toml", "saxpy.comp", "saxpy.cu"}));
}

TEST_F(NewKernelCliTest, EveryAbiTypeBuildsAndPassesTheCheck) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  // A dispatch no quickstart executable has: every element type, 64-bit
  // constants after 32-bit ones, names that are keywords, writeonly.
  using namespace kb;
  KernelAbi abi;
  abi.entry = "all_types";
  const ElementType types[] = {
      ElementType::I8,  ElementType::U8,   ElementType::I16, ElementType::U16,
      ElementType::I32, ElementType::U32,  ElementType::I64, ElementType::U64,
      ElementType::F16, ElementType::BF16, ElementType::F32, ElementType::F64};
  for (ElementType t : types)
    abi.bindings.push_back({toString(t), t, Access::ReadOnly});
  abi.bindings.push_back({"out", ElementType::F32, Access::WriteOnly});
  abi.bindings.push_back({"", ElementType::F64, Access::ReadWrite});
  abi.constants = {{"n", ScalarType::U32},     {"big", ScalarType::U64},
                   {"float", ScalarType::F32}, {"d", ScalarType::F64},
                   {"i", ScalarType::I32},     {"s", ScalarType::I64}};
  abi.workgroupSize = {8, 4, 2};
  abi.dynamicSharedMemoryBytes = 64;
  workbench::ProgramAbi program;
  program.modulePath = "synthetic.kbm";
  workbench::ExecutableAbi exe;
  exe.name = "all_types";
  exe.exports = {abi};
  exe.targets = {*Target::parse("cuda:sm_90"), *Target::parse("vulkan:1.2")};
  fs::path project = tmp_ / "types";
  workbench::ScaffoldRequest request{&program, &exe, true, true,
                                     project / "all_types"};
  StatusOr<std::vector<workbench::ScaffoldFile>> files =
      workbench::writeScaffold(request);
  ASSERT_TRUE(files.ok()) << files.status().message();
  // No program: a kernel.toml that substitutes builds its kernels alone.
  writeText(project / "workbench.toml",
            "[project]\nname = \"types\"\nkernels = [\"all_types\"]\n"
            "targets = [\"cuda:sm_90\", \"vulkan:1.2\"]\n");
  Cli built = buildProject(project, {"--strict", "--kernels-only"});
  EXPECT_EQ(built.exitCode, 0)
      << built.output << "\n"
      << kb::test::readFile(project / "all_types/all_types.cu")
      << kb::test::readFile(project / "all_types/all_types.comp");
}

// A project that has a program and no kernel yet builds the program alone,
// so a first kernel starts from `abi` and `new-kernel`; with no program
// either, there is nothing to build and the build says so.
TEST_F(NewKernelCliTest, AProgramWithoutKernelsBuildsForItsFirstKernel) {
  REQUIRE_TOOL("glslc");
  fs::path project = tmp_ / "fresh";
  fs::create_directories(project);
  fs::copy_file(kSourceDir / "examples/quickstart/program.mlir",
                project / "program.mlir");
  writeText(project / "workbench.toml",
            "[project]\nname = \"fresh\"\nprogram = \"program.mlir\"\n"
            "targets = [\"vulkan:1.2\"]\n");
  fs::path out = tmp_ / "fresh-out";
  Cli built = run({"build", project.string(), "-o", out.string(), "--cache-dir",
                   cache_.string()});
  ASSERT_EQ(built.exitCode, 0) << built.output;
  EXPECT_TRUE(fs::exists(out / "program.kbm"));
  Cli abi = run({"abi", out.string(), "saxpy"});
  EXPECT_EQ(abi.exitCode, 0) << abi.output;
  EXPECT_THAT(abi.output, HasSubstr("export `saxpy`"));
  Cli scaffold = run({"new-kernel", out.string(), "saxpy", "-o",
                      (project / "saxpy").string(), "--lang", "glsl"});
  EXPECT_EQ(scaffold.exitCode, 0) << scaffold.output;
  EXPECT_TRUE(fs::exists(project / "saxpy/kernel.toml"));

  fs::path empty = tmp_ / "empty";
  writeText(empty / "workbench.toml", "[project]\nname = \"empty\"\n");
  Cli nothing = run({"build", empty.string(), "-o", (tmp_ / "e").string()});
  EXPECT_EQ(nothing.exitCode, 1) << nothing.output;
  EXPECT_THAT(nothing.output, HasSubstr("no kernel.toml found below"));
}

TEST_F(NewKernelCliTest, UnknownExecutableListsTheNames) {
  NEED_QUICKSTART();
  for (const char *command : {"abi", "new-kernel"}) {
    Cli r = run(
        {command, quickstart_.string(), "saxpi", "-o", (tmp_ / "x").string()});
    if (std::string(command) == "abi")
      r = run({command, quickstart_.string(), "saxpi"});
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("has no executable `saxpi`; did you mean "
                                    "`saxpy`? (executables: saxpy, "
                                    "reduce_sum, softmax, matmul)"));
  }
  EXPECT_FALSE(fs::exists(tmp_ / "x"));
}

TEST_F(NewKernelCliTest, OutDirThatIsNotABuildOutput) {
  fs::path empty = tmp_ / "empty";
  fs::create_directories(empty);
  fs::path kernelsOnly = tmp_ / "kernels_only";
  writeText(kernelsOnly / "build.json", "{\"schema_version\": 1}\n");
  fs::path notKbm = tmp_ / "notes.kbm";
  writeText(notKbm, "not a module");
  struct Case {
    fs::path build;
    const char *message;
  } cases[] = {
      {tmp_ / "missing", "does not exist; pass the output directory of "
                         "`kernel-bench build` (its -o) or a .kbm file"},
      {empty, "is not a kernel-bench build output (no program.kbm, no "
              "build.json)"},
      {kernelsOnly, "is a build without a program (no program.kbm"},
      {notKbm, "notes.kbm"},
  };
  for (const Case &c : cases)
    for (const char *command : {"abi", "new-kernel"}) {
      Cli r = run(
          {command, c.build.string(), "saxpy", "-o", (tmp_ / "k").string()});
      if (std::string(command) == "abi")
        r = run({command, c.build.string()});
      EXPECT_EQ(r.exitCode, 1) << command << " " << c.build << r.output;
      EXPECT_THAT(r.output, HasSubstr(c.message)) << command;
    }
  EXPECT_FALSE(fs::exists(tmp_ / "k"));
}

TEST_F(NewKernelCliTest, NeverOverwritesAndLeavesNothingHalfWritten) {
  NEED_QUICKSTART();
  fs::path dir = tmp_ / "kernels/saxpy";
  writeText(dir / "mine.cu", "// my work");
  Cli r =
      run({"new-kernel", quickstart_.string(), "saxpy", "-o", dir.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("already exists; new-kernel never writes "
                                  "into an existing directory or over a file: "
                                  "pass another -o DIR, or remove it"));
  // Each refusal leaves what was there as it was: the names and the bytes.
  EXPECT_EQ(listDir(dir), (std::vector<std::string>{"mine.cu"}));
  EXPECT_EQ(kb::test::readFile(dir / "mine.cu"), "// my work");
  // The same directory spelled with a trailing slash.
  r = run(
      {"new-kernel", quickstart_.string(), "saxpy", "-o", dir.string() + "/"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("already exists"));
  EXPECT_EQ(listDir(dir), (std::vector<std::string>{"mine.cu"}));
  EXPECT_EQ(kb::test::readFile(dir / "mine.cu"), "// my work");

  fs::path file = tmp_ / "kernels/file";
  writeText(file, "data");
  r = run({"new-kernel", quickstart_.string(), "saxpy", "-o", file.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("already exists"));
  EXPECT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(kb::test::readFile(file), "data");

  fs::create_directories(tmp_ / "kernels/empty");
  r = run({"new-kernel", quickstart_.string(), "saxpy", "-o",
           (tmp_ / "kernels/empty").string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("already exists"));
  EXPECT_TRUE(listDir(tmp_ / "kernels/empty").empty());

  r = run({"new-kernel", quickstart_.string(), "saxpy", "-o",
           (tmp_ / "kernels/bad name").string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is not a valid kernel name"));
  // No temporary directory left behind.
  EXPECT_EQ(listDir(tmp_ / "kernels"),
            (std::vector<std::string>{"empty", "file", "saxpy"}));
}

TEST_F(NewKernelCliTest, UsageErrors) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"new-kernel", quickstart_.string(), "saxpy",
                                 "--lang", "fortran"},
        std::vector<std::string>{"new-kernel", quickstart_.string()},
        std::vector<std::string>{"abi"},
        std::vector<std::string>{"abi", quickstart_.string(), "--jsn"}}) {
    Cli r = run(args);
    EXPECT_EQ(r.exitCode, 2) << r.output;
  }
  EXPECT_FALSE(fs::exists(kSourceDir / "saxpy"));
}

} // namespace

//===- tests/cli/import_cli_test.cpp - `kernel-bench import` --------------===//
//
// Through the built binary with the real glslc/spirv-val and nvcc/ptxas, on
// the kernels of tests/corpus/import (written the way public projects write
// them): import reads the interface the compiled kernel declares (names,
// element types, access, push constants, specialization constants, the
// workgroup size; CUDA types from the mangled name), leaves what no binary
// says as "TODO:" placeholders that `build` refuses by line, and a kernel
// whose placeholders are filled builds — so what import wrote is what the
// build's own ABI check accepts. Then the refusals: an existing kernel.toml
// (untouched without --force), a source of no known language, a binding
// gap, two uniform buffers, a uniform block with a vector member, a kernel
// that does not compile, an extern "C"
// kernel's unknowable pointer types.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kCorpus = fs::path(KB_SOURCE_DIR) / "tests/corpus/import";

void writeText(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// Replaces every `KEY = "TODO: ..."` line (or a list or table of them)
/// whose key is in |values|.
void fillPlaceholders(const fs::path &toml,
                      const std::map<std::string, std::string> &values) {
  std::ifstream in(toml);
  std::string line, out;
  std::regex todo(R"re(^(\S+) = .*"TODO:.*$)re");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, todo) && values.count(m[1]))
      line = m[1].str() + " = " + values.at(m[1]);
    out += line + "\n";
  }
  in.close();
  writeText(toml, out);
}

class ImportCliTest : public kb::test::KernelBenchTest {
protected:
  ImportCliTest() : KernelBenchTest("kb_import_cli") {}

  /// A copy of corpus kernel |name| in the scratch directory.
  fs::path copyKernel(const std::string &name) {
    fs::path dir = tmp_ / "project" / name;
    fs::create_directories(dir.parent_path());
    fs::copy(kCorpus / name, dir, fs::copy_options::recursive);
    // The corpus keeps what import wrote, filled in; start from nothing.
    fs::remove(dir / "kernel.toml");
    return dir;
  }

  void writeProject(const std::string &kernel, const std::string &targets) {
    writeText(tmp_ / "project/workbench.toml",
              "[project]\nname = \"imported\"\nkernels = [\"" + kernel +
                  "\"]\ntargets = [" + targets + "]\n");
  }
};

TEST_F(ImportCliTest, GgmlStyleShaderGivesItsWholeInterface) {
  REQUIRE_TOOL("glslc");
  fs::path dir = copyKernel("ggml_add");
  kb::test::CliRun r = run({"import", (dir / "ggml_add.comp").string(), "-I",
                            (dir / "include").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("3 binding(s), 29 constant(s), 1 "
                                  "specialization constant(s)"));
  std::string toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("include_dirs = [\"include\"]"));
  EXPECT_THAT(toml, HasSubstr("workgroup_size = [256, 1, 1]"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"data_a\", type = \"f32\", access = "
                              "\"readonly\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"data_d\", type = \"f32\", access = "
                              "\"writeonly\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"nb13\", type = \"u32\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"param1\", type = \"f32\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"param3\", type = \"i32\" }"));
  EXPECT_THAT(toml, HasSubstr("BLOCK_SIZE = 256  # SpecId 0, u32; sets "
                              "local_size_x"));

  // The placeholders stop the build, each named by its line.
  writeProject("ggml_add", "\"vulkan:1.2\"");
  kb::test::CliRun build = buildProject(tmp_ / "project");
  EXPECT_EQ(build.exitCode, 1) << build.output;
  EXPECT_THAT(build.output,
              HasSubstr("33 values are still a \"TODO:\" placeholder"));
  EXPECT_THAT(build.output, testing::ContainsRegex(
                                "kernel.toml:[0-9]+:[0-9]+: "
                                "`bench.elements.data_b`: TODO: the element "
                                "count of `data_b`"));

  // Filled in, it builds: the build's ABI check accepts what import read.
  std::map<std::string, std::string> values = {
      {"workload", "[\"ne\"]"}, {"data_a", "\"ne\""}, {"data_b", "\"ne\""},
      {"data_d", "\"ne\""},     {"param1", "0.0"},    {"param2", "0.0"},
      {"param3", "0"}};
  for (const char *k :
       {"ne",   "ne00", "ne01", "ne02", "ne03",       "nb00", "nb01",
        "nb02", "nb03", "ne10", "ne11", "ne12",       "ne13", "nb10",
        "nb11", "nb12", "nb13", "ne20", "ne21",       "ne22", "ne23",
        "nb20", "nb21", "nb22", "nb23", "misc_offset"})
    values.emplace(k, "1");
  fillPlaceholders(dir / "kernel.toml", values);
  build = buildProject(tmp_ / "project", {"--kernels-only"});
  EXPECT_EQ(build.exitCode, 0) << build.output;
}

TEST_F(ImportCliTest, TemplatedCudaKernelIsTypedFromItsMangledName) {
  REQUIRE_TOOL("nvcc");
  fs::path dir = copyKernel("reduce_sum");
  kb::test::CliRun r = run({"import", (dir / "reduce_sum.cu").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("`void reduce<256u, true>(float const*, float*, "
                              "unsigned int)`, typed from its mangled name"));
  EXPECT_THAT(toml, HasSubstr("entry = \"reduce\""));
  EXPECT_THAT(toml, HasSubstr("workgroup_size = [256, 1, 1]  # "
                              "__launch_bounds__"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"g_idata\", type = \"f32\", access "
                              "= \"readonly\" },  # float const*"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"g_odata\", type = \"f32\", access "
                              "= \"readwrite\" },  # float*: readwrite "
                              "unverified"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"n\", type = \"u32\" },"));

  writeProject("reduce_sum", "\"cuda:sm_90\"");
  fillPlaceholders(dir / "kernel.toml", {{"workload", "[\"n\"]"},
                                         {"n", "65536"},
                                         {"g_idata", "\"n\""},
                                         {"g_odata", "128"}});
  kb::test::CliRun build = buildProject(tmp_ / "project", {"--kernels-only"});
  EXPECT_EQ(build.exitCode, 0) << build.output;
}

TEST_F(ImportCliTest, ExternCKernelLeavesPointerTypesToTheUser) {
  REQUIRE_TOOL("nvcc");
  fs::path source = tmp_ / "k/scale.cu";
  writeText(source, "extern \"C\" __global__ void scale(const float *x, float "
                    "*y, float a, unsigned n, long long stride) {\n"
                    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i < n) y[i] = a * x[i * stride];\n}\n");
  kb::test::CliRun r = run({"import", source.string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string toml = kb::test::readFile(tmp_ / "k/kernel.toml");
  EXPECT_THAT(toml, HasSubstr("extern \"C\": typed from parameter sizes"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"x\", type = \"TODO: the element "
                              "type of the buffer `x` points to"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"a\", type = \"f32\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"n\", type = \"u32\" },  # .u32 in "
                              "the PTX: i32 or u32"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"stride\", type = \"TODO: i64, u64 "
                              "or f64"));
  EXPECT_THAT(toml, HasSubstr("workgroup_size = \"TODO: the block size you "
                              "launch"));
}

TEST_F(ImportCliTest, NeverOverwritesWithoutForce) {
  REQUIRE_TOOL("glslc");
  fs::path dir = copyKernel("fib_values");
  writeText(dir / "kernel.toml", "# mine\n");
  kb::test::CliRun r = run({"import", (dir / "fib_values.comp").string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("exists; import never overwrites a file"));
  EXPECT_EQ(kb::test::readFile(dir / "kernel.toml"), "# mine\n");
  r = run({"import", (dir / "fib_values.comp").string(), "--force"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::string toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("{ name = \"values\", type = \"u32\", access = "
                              "\"readwrite\" }"));
  EXPECT_THAT(toml, HasSubstr("workgroup_size = [64, 1, 1]\n"));
  // No temporary file is left beside it.
  for (const auto &e : fs::directory_iterator(dir))
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".tmp-")));
}

TEST_F(ImportCliTest, InterfacesOutsideTheAbiAreRefusedWithTheReason) {
  REQUIRE_TOOL("glslc");
  struct Case {
    const char *name, *source, *message;
  } cases[] = {
      {"ubo.comp",
       "#version 450\nlayout(local_size_x = 64) in;\n"
       "layout(binding = 0) buffer A { float a[]; };\n"
       "layout(binding = 1) uniform P { float scale; } p;\n"
       "layout(binding = 2) uniform Q { float bias; } q;\n"
       "void main() { a[0] = a[0] * p.scale + q.bias; }\n",
       "binding 1 (`p`) is a uniform buffer, not a storage buffer"},
      {"ubo_vector.comp",
       "#version 450\nlayout(local_size_x = 64) in;\n"
       "layout(binding = 0) buffer A { float a[]; };\n"
       "layout(binding = 1) uniform P { vec2 scaleBias; } p;\n"
       "void main() { a[0] = a[0] * p.scaleBias.x + p.scaleBias.y; }\n",
       "uniform-block member 0 (`scaleBias`) is a vector; kernel ABI "
       "constants are scalars"},
      {"broken.comp", "#version 450\nvoid main() { undefined_thing(); }\n",
       "does not build for vulkan:1.2"},
  };
  for (const Case &c : cases) {
    fs::path source = tmp_ / "bad" / c.name;
    writeText(source, c.source);
    kb::test::CliRun r = run({"import", source.string(), "-o",
                              (tmp_ / "bad" / c.name).string() + ".d"});
    EXPECT_EQ(r.exitCode, 1) << c.name << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.name;
    EXPECT_FALSE(fs::exists(tmp_ / "bad" / (std::string(c.name) + ".d")))
        << c.name;
  }
  writeText(tmp_ / "bad/kernel.txt", "x");
  kb::test::CliRun r = run({"import", (tmp_ / "bad/kernel.txt").string()});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("expected a CUDA (.cu) or GLSL compute"));
  r = run({"import", (tmp_ / "bad/missing.comp").string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is not a file"));
  r = run({"import", (tmp_ / "bad/ubo.comp").string(), "--define", "1X=2"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

// ggml's interface: a binding left out keeps its number as an unused slot,
// a buffer declared twice (f16 and f16vec2) is one binding of f16, and the
// kernel.toml import writes builds against the same shader.
// computeparticles' way: the parameters in a uniform block after the
// storage buffers are the kernel's constants, not a binding.
TEST_F(ImportCliTest, AUniformBlockOfScalarsImportsAsTheConstants) {
  REQUIRE_TOOL("glslc");
  fs::path dir = tmp_ / "particles";
  fs::copy_file(fs::path(KB_SOURCE_DIR) /
                    "tests/corpus/uniform_params/particle_step/"
                    "particle_step.comp",
                tmp_ / "particle_step.comp");
  kb::test::CliRun r = run(
      {"import", (tmp_ / "particle_step.comp").string(), "-o", dir.string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 binding(s), 4 constant(s)"));
  std::string toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("{ name = \"velOut\", type = \"f32\", access "
                              "= \"writeonly\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"deltaT\", type = \"f32\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"particleCount\", type = \"i32\" }"));
  EXPECT_THAT(toml, Not(HasSubstr("unused4")));
}

// computeparticles' and computenbody's storage buffers of structs import
// as `type = "struct"` bindings with their layout, push constants holding
// an array and a struct as their flattened scalars.
TEST_F(ImportCliTest, StructBuffersAndAggregatePushConstantsImport) {
  REQUIRE_TOOL("glslc");
  fs::path corpus = fs::path(KB_SOURCE_DIR) / "tests/corpus/particles";
  fs::copy_file(corpus / "particles/particles.comp", tmp_ / "particles.comp");
  kb::test::CliRun r = run({"import", (tmp_ / "particles.comp").string(), "-o",
                            (tmp_ / "p").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string toml = kb::test::readFile(tmp_ / "p/kernel.toml");
  EXPECT_THAT(toml, HasSubstr("{ name = \"particles\", type = \"struct\", "
                              "access = \"readwrite\" }"));
  EXPECT_THAT(toml, HasSubstr("Particle, 32 bytes: pos vec2 at 0, vel vec2 "
                              "at 8, gradientPos vec4 at 16"));
  fs::path dir = tmp_ / "project/nbody_drift";
  fs::create_directories(dir);
  fs::copy_file(corpus / "nbody_drift/nbody_drift.comp",
                dir / "nbody_drift.comp");
  r = run({"import", (dir / "nbody_drift.comp").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("{ name = \"damping\", type = \"f32\", count "
                              "= 3 },"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"step.maxSpeed\", type = \"f32\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"bodyCount\", type = \"u32\" }"));
  // [bench] asks for the aggregates in the shape the build reads: a list
  // for the array, a table for the struct.
  EXPECT_THAT(toml, HasSubstr("damping = [\"TODO: the value of `damping[0]` "
                              "the benchmark passes\", \"TODO: the value of "
                              "`damping[1]`"));
  EXPECT_THAT(toml, HasSubstr("step = { deltaT = \"TODO: the value of "
                              "`step.deltaT` the benchmark passes\", "
                              "maxSpeed = \"TODO:"));
  writeProject("nbody_drift", "\"vulkan:1.2\"");
  fillPlaceholders(dir / "kernel.toml",
                   {{"workload", "[\"bodyCount\"]"},
                    {"damping", "[0.99, 0.98, 0.97]"},
                    {"step", "{ deltaT = 0.01, maxSpeed = 0.5 }"},
                    {"bodyCount", "8192"},
                    {"bodies", "\"bodyCount\""}});
  kb::test::CliRun build = buildProject(tmp_ / "project", {"--kernels-only"});
  EXPECT_EQ(build.exitCode, 0) << build.output;
}

// Vectors in push constants import as arrays of their components, an
// array of vectors as one per entry, and the filled-in kernel builds.
TEST_F(ImportCliTest, PushConstantVectorsImportAsArraysOfComponents) {
  REQUIRE_TOOL("glslc");
  fs::path dir = tmp_ / "project/push_vectors";
  fs::create_directories(dir);
  fs::copy_file(fs::path(KB_SOURCE_DIR) / "common/testdata/push_vectors.comp",
                dir / "push_vectors.comp");
  kb::test::CliRun r = run({"import", (dir / "push_vectors.comp").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("{ name = \"color\", type = \"f32\", count = 4 "
                              "},  # a vec4: [bench] gives `color = [...]`"));
  EXPECT_THAT(toml,
              HasSubstr("{ name = \"size\", type = \"u32\", count = 2 }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"taps[1]\", type = \"f32\", count = "
                              "2 }"));
  EXPECT_THAT(toml, HasSubstr("taps = [[\"TODO: the value of `taps[0][0]`"));
  writeProject("push_vectors", "\"vulkan:1.2\"");
  fillPlaceholders(dir / "kernel.toml", {{"workload", "[64]"},
                                         {"color", "[1.0, 0.5, 0.25, 1.0]"},
                                         {"size", "[8, 8]"},
                                         {"scale", "2.0"},
                                         {"pad", "0.0"},
                                         {"dir", "[1.0, -1.0]"},
                                         {"taps", "[[0.5, 0.5], [-0.5, 0.25]]"},
                                         {"r", "64"}});
  kb::test::CliRun build = buildProject(tmp_ / "project", {"--kernels-only"});
  EXPECT_EQ(build.exitCode, 0) << build.output;
}

TEST_F(ImportCliTest, GapsAndAliasedBindingsImportAsTheShaderBindsThem) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path dir = tmp_ / "aliased";
  fs::copy_file(fs::path(KB_SOURCE_DIR) / "common/testdata/aliased_gap.comp",
                tmp_ / "aliased_gap.comp");
  kb::test::CliRun r =
      run({"import", (tmp_ / "aliased_gap.comp").string(), "-o", dir.string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string toml = kb::test::readFile(dir / "kernel.toml");
  EXPECT_THAT(toml, HasSubstr("{ name = \"data_a\", type = \"f16\", access "
                              "= \"readonly\" }"));
  EXPECT_THAT(toml, HasSubstr("declared 2 times: data_a2 (2-vector of f16), "
                              "data_a (f16)"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"unused1\", type = \"u32\", "
                              "access = \"readonly\" }"));
  EXPECT_THAT(toml, HasSubstr("{ name = \"data_d\", type = \"f32\", access "
                              "= \"writeonly\" }"));
}

} // namespace

//===- tests/e2e/particles_test.cpp - Storage buffers of structs ----------===//
//
// tests/corpus/particles: a computeparticles-style GLSL kernel whose storage
// buffer holds structs (`Particle { vec2 pos; vec2 vel; vec4 gradientPos; }`)
// declared `type = "struct"` in its kernel.toml. The build reads the
// struct's layout from the SPIR-V (32 bytes a particle), sizes the buffer
// as count x stride and records the layout on the variant's binding; build
// .json and `abi` show it. nbody_drift also takes push constants holding
// an array and a nested struct, declared flattened. On Vulkan both run and
// are benchmarked: particles agrees with its GLSL twin member by member,
// nbody_drift has no reference. Declaring a
// scalar type for the buffer is a note that names the struct.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "common/kbm/kbm_generated.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kProject = fs::path(KB_SOURCE_DIR) / "tests/corpus/particles";

class StructCorpusTest : public kb::test::KernelBenchTest {
protected:
  StructCorpusTest() : KernelBenchTest("kb_struct_corpus_test") {}

  /// Builds TMP/p, a Vulkan project of the one kernel TMP/p/|kernel|.
  kb::test::CliRun buildOneKernel(const std::string &kernel) {
    EXPECT_TRUE(kb::writeFileAtomic(tmp_ / "p/workbench.toml",
                                    "[project]\nname = \"p\"\nkernels = "
                                    "[\"" +
                                        kernel +
                                        "\"]\ntargets = [\"vulkan:1.2\"]\n")
                    .ok());
    return buildProject(tmp_ / "p");
  }
  void SetUp() override {
    REQUIRE_TOOL("glslc");
    REQUIRE_TOOL("spirv-val");
    KernelBenchTest::SetUp();
  }
};

/// Particle as glslc lays it out (std430): each member's name, type (as
/// build.json spells it), offset and components.
const json kParticleMembers = json::parse(R"([
  {"name": "pos", "type": "f32", "glsl": "vec2", "offset": 0,
   "components": 2, "count": 1, "array_stride": 0},
  {"name": "vel", "type": "f32", "glsl": "vec2", "offset": 8,
   "components": 2, "count": 1, "array_stride": 0},
  {"name": "gradientPos", "type": "f32", "glsl": "vec4", "offset": 16,
   "components": 4, "count": 1, "array_stride": 0}])");

TEST_F(StructCorpusTest, BuildsShowsTheLayoutRunsAndBenchmarks) {
  kb::test::CliRun built = buildProject(kProject);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  json report = buildJson();
  for (const json &job : report.at("jobs"))
    EXPECT_EQ(job.at("status"), "ok") << job.dump(2);
  std::map<std::string, json> standalone;
  for (const json &entry : report.at("program").at("standalone")) {
    EXPECT_EQ(entry.at("status"), "ok") << entry.dump(2);
    standalone[entry.at("kernel").get<std::string>()] = entry;
  }
  ASSERT_EQ(standalone.size(), 2u) << report.dump(2);
  const json &structs = standalone["particles"].at("struct_bindings");
  ASSERT_EQ(structs.size(), 1u) << report.dump(2);
  EXPECT_EQ(structs[0].at("binding"), 0);
  EXPECT_EQ(structs[0].at("name"), "particles");
  EXPECT_EQ(structs[0].at("struct"), "Particle");
  EXPECT_EQ(structs[0].at("stride"), 32);
  EXPECT_EQ(structs[0].at("members"), kParticleMembers);

  // The buffer holds 16384 particles of 32 bytes; the binding records the
  // layout the runtime fills it by.
  std::string bytes =
      kb::test::readFile(out_ / "standalone/particles/program.kbm");
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  ASSERT_TRUE(kb::kbm::VerifyModuleBuffer(verifier));
  const kb::kbm::Module *module = kb::kbm::GetModule(bytes.data());
  const kb::kbm::Buffer *buffer =
      module->functions()->Get(0)->buffers()->Get(0);
  EXPECT_EQ(buffer->element_type(), kb::kbm::ElementType::U8);
  EXPECT_EQ(buffer->element_count(), 16384u * 32u);
  const kb::kbm::BindingLayout *binding = module->executables()
                                              ->Get(0)
                                              ->variants()
                                              ->Get(0)
                                              ->exports()
                                              ->Get(0)
                                              ->bindings()
                                              ->Get(0);
  ASSERT_NE(binding->struct_layout(), nullptr);
  EXPECT_EQ(binding->struct_layout()->stride(), 32u);
  EXPECT_EQ(binding->struct_layout()->members()->size(), 3u);

  kb::test::CliRun abi =
      run({"abi", (out_ / "standalone/particles").string(), "particles"});
  EXPECT_EQ(abi.exitCode, 0) << abi.output;
  EXPECT_THAT(abi.output, HasSubstr("struct Particle"));
  EXPECT_THAT(abi.output, HasSubstr("CUDA: none (a binding of structs is "
                                    "for Vulkan kernels only)"));
  EXPECT_THAT(abi.output, Not(HasSubstr("unsigned char *")));
  EXPECT_THAT(abi.output,
              HasSubstr("binding 0 (`particles`): Particle, 32 bytes: pos "
                        "vec2 at 0, vel vec2 at 8, gradientPos vec4 at 16"));

  // nbody_drift's bodies (two vec4) and its flattened push constants.
  EXPECT_EQ(standalone["nbody_drift"].at("struct_bindings")[0].at("stride"),
            32);
  kb::test::CliRun nbodyAbi =
      run({"abi", (out_ / "standalone/nbody_drift").string(), "nbody_drift"});
  EXPECT_EQ(nbodyAbi.exitCode, 0) << nbodyAbi.output;
  EXPECT_THAT(nbodyAbi.output,
              HasSubstr("binding 0 (`bodies`): Body, 32 bytes: pos vec4 at 0, "
                        "vel vec4 at 16"));
  EXPECT_THAT(nbodyAbi.output, HasSubstr("damping[2]"));
  EXPECT_THAT(nbodyAbi.output, HasSubstr("step.maxSpeed"));

  // particles agrees with its twin, member by member; nbody_drift has no
  // reference: it runs once.
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/particles").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("(struct Particle x 16384): OK"));
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
  ran = run({"run", (out_ / "standalone/nbody_drift").string(), "--device",
             "vulkan"});
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("(struct Body x 8192): not compared"));
  EXPECT_THAT(ran.output, HasSubstr("no reference"));
  // The hint names the one reference a struct buffer can have.
  EXPECT_THAT(ran.output, HasSubstr("a naive twin (.comp) declaring the "
                                    "same struct"));

  kb::test::CliRun bench =
      run({"bench", out_.string(), "--device", "vulkan", "--quick"},
          {{"KB_CACHE_DIR", cache_.string()}});
  EXPECT_EQ(bench.exitCode, 0) << bench.output;
  json results = kb::test::readJsonFile(out_ / "results/bench.json");
  std::set<std::string> timed;
  for (const json &b : results.at("benchmarks"))
    for (const json &v : b.at("variants")) {
      if (v.at("role") != "candidate" || v.at("timings").empty())
        continue;
      timed.insert(b.at("name").get<std::string>());
      if (b.at("name") == "particles_16384x1x1")
        EXPECT_EQ(v.at("correctness").at("status"), "correct") << v.dump(2);
    }
  EXPECT_EQ(timed, (std::set<std::string>{"nbody_drift_8192x1x1",
                                          "particles_16384x1x1"}))
      << results.dump(2);
}

TEST_F(StructCorpusTest, AScalarTypeForTheStructBufferIsANoteNamingIt) {
  fs::path copy = tmp_ / "project";
  fs::copy(kProject, copy, fs::copy_options::recursive);
  kb::test::replaceInFile(copy / "particles/kernel.toml",
                          "name = \"particles\", type = \"struct\"",
                          "name = \"particles\", type = \"f32\"");
  kb::test::CliRun built = buildProject(copy);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  std::string notes;
  json report = buildJson();
  for (const json &job : report.at("jobs"))
    for (const json &d : job.at("diagnostics"))
      notes += d.at("message").get<std::string>() + "\n";
  EXPECT_THAT(notes,
              HasSubstr("binding 0 (`particles`): holds structs (Particle, "
                        "32 bytes: pos vec2 at 0, vel vec2 at 8, gradientPos "
                        "vec4 at 16) read as f32 elements; its element count "
                        "counts f32 values"))
      << report.at("jobs").dump(2);
}

void writeText(const fs::path &file, const std::string &text) {
  ASSERT_TRUE(kb::writeFileAtomic(file, text).ok()) << file;
}

/// The layout line `abi` prints for binding `bodies`, and its GLSL
/// (unindented).
std::pair<std::string, std::string> abiLayoutAndGlsl(const std::string &text) {
  size_t layout = text.find("binding 0 (`bodies`): ");
  size_t glsl = text.find("  GLSL:\n");
  if (layout == std::string::npos || glsl == std::string::npos)
    return {};
  std::string glslText;
  std::istringstream lines(text.substr(glsl + 8));
  for (std::string line; std::getline(lines, line);)
    glslText += (line.rfind("    ", 0) == 0 ? line.substr(4) : line) + "\n";
  return {text.substr(layout, text.find('\n', layout) - layout), glslText};
}

// abi's GLSL for a struct holding a struct and an array of structs declares
// them (from the members' dotted names), and a kernel written against it
// has the very layout of the kernel it came from.
TEST_F(StructCorpusTest, AbiGlslOfNestedStructsRebuildsTheLayout) {
  const std::string body =
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
      "  if (i >= pc.n) return;\n  bodies[i].pos += "
      "vec4(bodies[i].inner.w[1] + bodies[i].lights[1].power);\n}\n";
  const std::string toml =
      "\n[abi]\nworkgroup_size = [64, 1, 1]\nbindings = [{ name = "
      "\"bodies\", type = \"struct\", access = \"readwrite\" }]\n"
      "constants = [{ name = \"n\", type = \"u32\" }]\n[bench]\n"
      "workload = [\"n\"]\nconstants = { n = 1000 }\n"
      "elements = { bodies = \"n\" }\n";
  auto writeKernel = [&](const std::string &name, const std::string &glsl) {
    fs::create_directories(tmp_ / "p" / name);
    writeText(tmp_ / "p" / name / (name + ".comp"), glsl);
    writeText(tmp_ / "p" / name / "kernel.toml", "[kernel]\nname = \"" + name +
                                                     "\"\nsource = \"" + name +
                                                     ".comp\"\n" + toml);
  };
  writeKernel("nested",
              "#version 450\nlayout(local_size_x = 64) in;\n"
              "struct Inner { uint id; float w[2]; };\n"
              "struct Light { vec2 pos; float power; };\n"
              "struct Body { vec4 pos; Inner inner; Light lights[2]; };\n"
              "layout(std430, binding = 0) buffer B { Body bodies[]; };\n"
              "layout(push_constant) uniform P { uint n; } pc;\n" +
                  body);
  kb::test::CliRun built = buildOneKernel("nested");
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun abi =
      run({"abi", (out_ / "standalone/nested").string(), "nested"});
  ASSERT_EQ(abi.exitCode, 0) << abi.output;
  auto [layout, glsl] = abiLayoutAndGlsl(abi.output);
  EXPECT_THAT(layout, HasSubstr("lights[1].power float at 56"));
  EXPECT_THAT(glsl, HasSubstr("Body_lights lights[2];"));

  writeKernel("rebuilt", glsl + body);
  built = buildOneKernel("rebuilt");
  ASSERT_EQ(built.exitCode, 0) << built.output << glsl;
  abi = run({"abi", (out_ / "standalone/rebuilt").string(), "rebuilt"});
  ASSERT_EQ(abi.exitCode, 0) << abi.output;
  EXPECT_EQ(abiLayoutAndGlsl(abi.output).first, layout);
}

// Vectors in push constants (`vec4 color; uvec2 size; ... vec2 taps[2]`)
// are declared as arrays of their components; each value reaches the
// kernel at its offset, which a C++ reference taking the flattened scalars
// confirms on the device.
TEST_F(StructCorpusTest, PushConstantVectorsReachTheKernel) {
  fs::path dir = tmp_ / "p/pv";
  fs::create_directories(dir);
  writeText(dir / "pv.comp",
            "#version 450\nlayout(local_size_x = 64) in;\n"
            "layout(std430, binding = 0) writeonly buffer O { float r[]; };\n"
            "layout(push_constant) uniform P { vec4 color; uvec2 size; "
            "float scale; float pad; vec2 dir; vec2 taps[2]; } pc;\n"
            "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
            "  if (i >= pc.size.x * pc.size.y) return;\n"
            "  vec2 v = pc.dir * pc.scale * pc.color.yz + pc.taps[i % 2];\n"
            "  r[i] = v.x * 3.0 + v.y + pc.color.w + float(pc.size.y);\n}\n");
  writeText(dir / "pv_ref.cpp",
            "#include <cstdint>\n"
            "extern \"C\" void pv(float *r, float c0, float c1, float c2, "
            "float c3, uint32_t sx, uint32_t sy, float scale, float pad, "
            "float d0, float d1, float t00, float t01, float t10, float t11, "
            "const uint64_t workload[3]) {\n"
            "  for (uint32_t i = 0; i < sx * sy; ++i) {\n"
            "    float vx = d0 * scale * c1 + (i % 2 ? t10 : t00);\n"
            "    float vy = d1 * scale * c2 + (i % 2 ? t11 : t01);\n"
            "    r[i] = vx * 3.0f + vy + c3 + float(sy);\n  }\n}\n");
  writeText(dir / "kernel.toml",
            "[kernel]\nname = \"pv\"\nsource = \"pv.comp\"\n[abi]\n"
            "workgroup_size = [64, 1, 1]\nbindings = [{ name = \"r\", type = "
            "\"f32\", access = \"writeonly\" }]\nconstants = [\n"
            "  { name = \"color\", type = \"f32\", count = 4 },\n"
            "  { name = \"size\", type = \"u32\", count = 2 },\n"
            "  { name = \"scale\", type = \"f32\" },\n"
            "  { name = \"pad\", type = \"f32\" },\n"
            "  { name = \"dir\", type = \"f32\", count = 2 },\n"
            "  { name = \"taps[0]\", type = \"f32\", count = 2 },\n"
            "  { name = \"taps[1]\", type = \"f32\", count = 2 },\n]\n"
            "[bench]\nworkload = [128]\nreference = \"pv_ref.cpp\"\n"
            "elements = { r = 128 }\nconstants = { color = [1.0, 0.5, 0.25, "
            "2.0], size = [16, 8], scale = 2.0, pad = 0.0, dir = [1.0, "
            "-1.0], taps = [[0.5, 0.5], [-0.5, 0.25]] }\n");
  kb::test::CliRun built = buildOneKernel("pv");
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun ran =
      run({"run", (out_ / "standalone/pv").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("pv.r (f32 x 128): OK (max abs error 0;"));
  EXPECT_THAT(ran.output, HasSubstr("result: outputs match the host function "
                                    "pv"));
}

// A kernel that substitutes a program dispatch sees the dispatch's arrays
// of scalars: one that reads structs there (scale_shift's x as `Sample {
// float v; }`) is refused by the compiler, the struct described and why.
TEST_F(StructCorpusTest, SubstitutingAStructKernelIsRefusedSayingWhy) {
  fs::path copy = tmp_ / "uniform_params";
  fs::copy(fs::path(KB_SOURCE_DIR) / "tests/corpus/uniform_params", copy,
           fs::copy_options::recursive);
  fs::path shader = copy / "scale_shift/scale_shift.comp";
  kb::test::replaceInFile(shader, "buffer X { float x[]; };",
                          "buffer X { Sample x[]; };");
  kb::test::replaceInFile(shader, "layout(set = 0, binding = 0)",
                          "struct Sample { float v; };\n"
                          "layout(set = 0, binding = 0)");
  kb::test::replaceInFile(shader, "x[i] + params.beta", "x[i].v + params.beta");
  kb::test::CliRun built = buildProject(copy);
  EXPECT_EQ(built.exitCode, 1) << built.output;
  EXPECT_THAT(built.output,
              HasSubstr("binding 0 (`x`) holds a struct (Sample, 4 bytes: v "
                        "float at 0); a program dispatch's bindings are "
                        "arrays of scalars, so a struct-element kernel can "
                        "only be benchmarked standalone ([bench], the binding "
                        "declared `type = \"struct\"`)"));
}

} // namespace

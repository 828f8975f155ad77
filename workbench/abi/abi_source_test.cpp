//===- workbench/abi/abi_source_test.cpp - ABI -> CUDA/GLSL declarations --===//
//
// The declarations `abi` prints and `new-kernel` writes, against the ones
// docs/kernel-abi.md gives for saxpy, and the naming and type rules. That
// they compile and pass the ABI check with the real tools is
// tests/cli/new_kernel_cli_test.cpp.
//
//===----------------------------------------------------------------------===//
#include "workbench/abi/abi_source.h"
#include "workbench/abi/kernel_scaffold.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

KernelAbi saxpy() {
  KernelAbi abi;
  abi.entry = "saxpy";
  abi.bindings = {{"x", ElementType::F32, Access::ReadOnly},
                  {"y", ElementType::F32, Access::ReadWrite}};
  abi.constants = {{"a", ScalarType::F32}, {"n", ScalarType::U32}};
  abi.workgroupSize = {256, 1, 1};
  return abi;
}

TEST(AbiSource, SaxpyIsTheDocumentedCudaDeclaration) {
  EXPECT_EQ(cudaDeclaration(saxpy(), false),
            "extern \"C\" __global__ void __launch_bounds__(256)\n"
            "saxpy(const float *x, float *y, float a, unsigned n);\n");
  EXPECT_EQ(cudaIncludes(saxpy()), "");
}

TEST(AbiSource, CommentedCudaParametersSayWhatEachIs) {
  std::string text = cudaDeclaration(saxpy(), true);
  EXPECT_EQ(text,
            "extern \"C\" __global__ void __launch_bounds__(256)\n"
            "saxpy(\n"
            "    const float *x, // binding 0 (`x`): f32 elements, readonly "
            "(param offset 0)\n"
            "    float *y,       // binding 1 (`y`): f32 elements, readwrite "
            "(param offset 8)\n"
            "    float a,        // constant 0 (`a`): f32 (param offset 16)\n"
            "    unsigned n) {   // constant 1 (`n`): u32 (param offset 20)\n");
}

TEST(AbiSource, SaxpyIsTheDocumentedGlslInterface) {
  EXPECT_EQ(glslInterface(saxpy(), false),
            "layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) "
            "in;\n"
            "layout(set = 0, binding = 0) readonly buffer Binding0 { float "
            "x[]; };\n"
            "layout(set = 0, binding = 1) buffer Binding1 { float y[]; };\n"
            "layout(push_constant) uniform Constants {\n"
            "  layout(offset = 0) float a;\n"
            "  layout(offset = 4) uint n;\n"
            "} pc;\n");
  EXPECT_EQ(glslExtensions(saxpy()), "");
  EXPECT_EQ(glslConstantAccess(saxpy(), 1), "pc.n");
}

TEST(AbiSource, SixtyFourBitConstantsUseThePushConstantLayout) {
  KernelAbi abi = saxpy();
  abi.constants = {{"n", ScalarType::U32}, {"big", ScalarType::U64}};
  std::string glsl = glslInterface(abi, false);
  EXPECT_THAT(glsl, HasSubstr("layout(offset = 8) uint64_t big;"));
  EXPECT_THAT(glslExtensions(abi),
              HasSubstr("GL_EXT_shader_explicit_arithmetic_types_int64"));
  EXPECT_THAT(cudaDeclaration(abi, true),
              HasSubstr("unsigned long long big) { // constant 1 (`big`): u64 "
                        "(param offset 24)"));
}

TEST(AbiSource, NamesThatCannotBeIdentifiersFallBack) {
  KernelAbi abi;
  abi.entry = "k";
  abi.bindings = {{"", ElementType::F32, Access::ReadOnly},
                  {"float", ElementType::F32, Access::ReadOnly},
                  {"vec3", ElementType::F32, Access::ReadOnly},
                  {"pc", ElementType::F32, Access::ReadOnly},
                  {"k", ElementType::F32, Access::ReadOnly},
                  {"out", ElementType::F32, Access::WriteOnly},
                  {"my-buf", ElementType::F32, Access::WriteOnly},
                  {"matrix", ElementType::F32, Access::ReadWrite},
                  {"image", ElementType::F32, Access::ReadWrite},
                  {"gl_x", ElementType::F32, Access::ReadWrite},
                  {"binding0", ElementType::F32, Access::ReadWrite}};
  abi.constants = {{"n", ScalarType::U32}, {"n", ScalarType::U32}};
  SourceNames names = sourceNames(abi);
  EXPECT_EQ(names.bindings,
            (std::vector<std::string>{"binding0", "float_", "vec3_", "pc_",
                                      "k_", "out_", "binding6", "matrix",
                                      "image", "binding9", "binding0_"}));
  EXPECT_EQ(names.constants, (std::vector<std::string>{"n", "n_"}));
  // The comments keep the ABI's own names.
  EXPECT_THAT(cudaDeclaration(abi, true),
              HasSubstr("    float *binding6,       // binding 6 (`my-buf`): "
                        "f32 elements, writeonly (param offset 48)\n"));
}

TEST(AbiSource, EveryElementTypeHasACudaAndAGlslType) {
  KernelAbi abi;
  abi.entry = "all";
  const ElementType types[] = {
      ElementType::I8,  ElementType::U8,   ElementType::I16, ElementType::U16,
      ElementType::I32, ElementType::U32,  ElementType::I64, ElementType::U64,
      ElementType::F16, ElementType::BF16, ElementType::F32, ElementType::F64};
  for (ElementType t : types)
    abi.bindings.push_back({toString(t), t, Access::ReadOnly});
  std::string cuda = cudaDeclaration(abi, false);
  for (const char *decl :
       {"const signed char *i8", "const unsigned char *u8", "const short *i16",
        "const unsigned short *u16", "const int *i32", "const unsigned *u32",
        "const long long *i64", "const unsigned long long *u64",
        "const __half *f16", "const __nv_bfloat16 *bf16", "const float *f32",
        "const double *f64"})
    EXPECT_THAT(cuda, HasSubstr(decl));
  EXPECT_EQ(cudaIncludes(abi),
            "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n");
  std::string glsl = glslInterface(abi, false);
  for (const char *decl :
       {"{ int8_t i8[]; }", "{ uint8_t u8[]; }", "{ int16_t i16[]; }",
        "{ uint16_t u16[]; }", "{ int i32[]; }", "{ uint u32[]; }",
        "{ int64_t i64[]; }", "{ uint64_t u64[]; }", "{ float16_t f16[]; }",
        "{ uint16_t bf16[]; }", "{ float f32[]; }", "{ double f64[]; }"})
    EXPECT_THAT(glsl, HasSubstr(decl));
  EXPECT_THAT(glslExtensions(abi), HasSubstr("GL_EXT_shader_8bit_storage"));
  EXPECT_THAT(glslExtensions(abi),
              HasSubstr("GL_EXT_shader_explicit_arithmetic_types_float16"));
}

TEST(AbiSource, WriteonlyAndNoConstants) {
  KernelAbi abi;
  abi.entry = "fill";
  abi.bindings = {{"out_", ElementType::U32, Access::WriteOnly}};
  abi.workgroupSize = {8, 8, 2};
  EXPECT_EQ(cudaDeclaration(abi, false),
            "extern \"C\" __global__ void __launch_bounds__(128)\n"
            "fill(unsigned *out_);\n");
  std::string glsl = glslInterface(abi, false);
  EXPECT_THAT(glsl, HasSubstr("local_size_x = 8, local_size_y = 8, "
                              "local_size_z = 2"));
  EXPECT_THAT(glsl, HasSubstr("writeonly buffer Binding0 { uint out_[]; }"));
  EXPECT_THAT(glsl, Not(HasSubstr("push_constant")));
}

// A struct element with a nested struct and an array of structs: GLSL
// declares the inner structs first, by the member names the SPIR-V gave.
TEST(AbiSource, NestedStructsAreDeclaredBeforeTheirElement) {
  KernelAbi abi;
  abi.entry = "main";
  abi.workgroupSize = {64, 1, 1};
  StructLayout body{"Body",
                    48,
                    {{"mass", ElementType::F32, 0, 1, 1, 0},
                     {"inner.id", ElementType::U32, 4, 1, 1, 0},
                     {"inner.taps", ElementType::I32, 8, 1, 2, 4},
                     {"lights[0].pos", ElementType::F32, 16, 2, 1, 0},
                     {"lights[1].pos", ElementType::F32, 24, 2, 1, 0}}};
  abi.bindings = {{"bodies", ElementType::U8, Access::ReadWrite, body}};
  std::string glsl = glslInterface(abi, false);
  EXPECT_THAT(glsl, HasSubstr("struct Body_inner {\n  uint id; // offset 4 "
                              "in the element\n  int taps[2]; // offset 8 in "
                              "the element\n};\n"));
  EXPECT_THAT(glsl, HasSubstr("struct Body_lights {\n  vec2 pos; // offset 16 "
                              "in the element\n};\n"));
  EXPECT_THAT(glsl, HasSubstr("struct Body { // 48 bytes, as the kernel's "
                              "SPIR-V lays it out\n  float mass; // offset "
                              "0\n  Body_inner inner;\n  Body_lights "
                              "lights[2];\n};\n"));
  // A name GLSL cannot declare keeps the layout as a comment.
  abi.bindings[0].structLayout->members[1].name = "inner.i-d";
  EXPECT_THAT(glslInterface(abi, false),
              HasSubstr("// Body, 48 bytes: mass float at 0"));
}

TEST(AbiSource, CudaEntryNames) {
  EXPECT_TRUE(isCudaEntryName("main_dispatch_2"));
  EXPECT_FALSE(isCudaEntryName("main$dispatch"));
  EXPECT_FALSE(isCudaEntryName("float"));
  EXPECT_FALSE(isCudaEntryName("2x"));
}

ExecutableAbi executable(std::vector<KernelAbi> exports) {
  ExecutableAbi exe;
  exe.name = "saxpy";
  exe.exports = std::move(exports);
  exe.targets = {*Target::parse("cuda:sm_90"), *Target::parse("vulkan:1.2")};
  return exe;
}

TEST(KernelScaffold, KernelTomlSubstitutesWithTheDispatchAbi) {
  ProgramAbi program;
  program.modulePath = "out/program.kbm";
  ExecutableAbi exe = executable({saxpy()});
  ScaffoldRequest request{&program, &exe, true, false, "kernels/my_saxpy"};
  StatusOr<std::vector<ScaffoldFile>> files = renderScaffold(request);
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name, "kernel.toml");
  EXPECT_EQ((*files)[1].name, "my_saxpy.cu");
  const std::string &toml = (*files)[0].text;
  EXPECT_THAT(toml, HasSubstr("name = \"my_saxpy\"\nsources = "
                              "[\"my_saxpy.cu\"]\nentry = \"saxpy\"\n"
                              "substitutes = \"saxpy\"\n"
                              "targets = [\"cuda:sm_90\"]\n"));
  EXPECT_THAT(toml, HasSubstr("[abi]\nworkgroup_size = [256, 1, 1]\n"));
  EXPECT_THAT(toml, HasSubstr("bindings = [\n"
                              "  { name = \"x\", type = \"f32\", access = "
                              "\"readonly\" },\n"));
  EXPECT_THAT(toml, HasSubstr("constants = [\n"
                              "  { name = \"a\", type = \"f32\" },\n"
                              "  { name = \"n\", type = \"u32\" },\n]\n"));
  const std::string &cu = (*files)[1].text;
  EXPECT_THAT(cu, HasSubstr("  // TODO: your kernel\n}\n"));
}

// A dispatch formed from a model: no constants, so the sources say where
// the sizes are — the program's launches, one line per site.
TEST(KernelScaffold, SourcesNameTheDispatchSizesOfADispatchWithoutConstants) {
  ProgramAbi program;
  program.modulePath = "out/program.kbm";
  KernelAbi formed;
  formed.entry = "main_dispatch_0";
  formed.bindings = {{"arg0", ElementType::F32, Access::ReadOnly},
                     {"", ElementType::F32, Access::WriteOnly}};
  formed.workgroupSize = {16, 16, 1};
  ExecutableAbi exe = executable({formed});
  exe.sites = {{"main", 3, 0, {32, 16, 1}, std::nullopt, {131072, 4096}},
               {"main", 7, 0, {2, 1, 1}, std::nullopt, {64, 16}}};
  ScaffoldRequest request{&program, &exe, true, true, "kernels/k"};
  StatusOr<std::vector<ScaffoldFile>> files = renderScaffold(request);
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 3u);
  for (size_t i : {1, 2}) {
    const std::string &source = (*files)[i].text;
    EXPECT_THAT(source,
                HasSubstr("workgroup count (`kernel-bench abi`):\n"
                          "//   `main` op 3: 32x16x1 workgroups; elements: "
                          "arg0 131072, binding 1 4096\n"
                          "//   `main` op 7: 2x1x1 workgroups; elements: "
                          "arg0 64, binding 1 16\n"
                          "// No constants: the sizes are fixed"))
        << (*files)[i].name;
    EXPECT_THAT(source, Not(HasSubstr("bound-check against the constants")));
  }
  // With constants and no site (a module whose function does not dispatch
  // it), the constants carry the sizes.
  ExecutableAbi withConstants = executable({saxpy()});
  request = {&program, &withConstants, true, false, "kernels/s"};
  files = renderScaffold(request);
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_THAT((*files)[1].text,
              HasSubstr("workgroup count.\n// Buffers carry no sizes: "
                        "bound-check against the constants.\n"));
}

TEST(KernelScaffold, RefusesWhatCannotBeOneKernel) {
  ProgramAbi program;
  ExecutableAbi two = executable({saxpy(), saxpy()});
  ScaffoldRequest request{&program, &two, true, true, "k"};
  StatusOr<std::vector<ScaffoldFile>> files = renderScaffold(request);
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(), HasSubstr("has 2 exports"));

  ExecutableAbi vulkanOnly = executable({saxpy()});
  vulkanOnly.targets = {*Target::parse("vulkan:1.2")};
  request = {&program, &vulkanOnly, true, false, "k"};
  files = renderScaffold(request);
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(),
              HasSubstr("compiled for vulkan:1.2 only: a CUDA kernel would "
                        "substitute nothing; pass --lang glsl"));

  ExecutableAbi one = executable({saxpy()});
  request = {&program, &one, true, true, "bad name"};
  files = renderScaffold(request);
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(),
              HasSubstr("`bad name` (the directory's name, which names the "
                        "kernel) is not a valid kernel name"));
}

} // namespace
} // namespace kb::workbench

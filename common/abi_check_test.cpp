//===- common/abi_check_test.cpp ------------------------------------------===//
#include "common/abi_check.h"
#include "common/test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

namespace kb {
namespace {

using ::kb::testing::readFile;
using ::kb::testing::sourcePath;

PtxModule ptxFixture() {
  StatusOr<PtxModule> m =
      readPtx(readFile(sourcePath("common/testdata/saxpy.ptx")));
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : PtxModule{};
}

SpirvModule spirvFixture(const std::string &name) {
  StatusOr<SpirvModule> m =
      readSpirvBytes(readFile(sourcePath("common/testdata/" + name)));
  EXPECT_TRUE(m.ok()) << name << ": " << m.status().message();
  return m.ok() ? *m : SpirvModule{};
}

/// The ABI of the saxpy fixtures: bindings first, then constants.
KernelAbi saxpyAbi(std::array<uint32_t, 3> workgroup = {256, 1, 1}) {
  KernelAbi abi;
  abi.entry = "saxpy";
  abi.bindings = {{"x", ElementType::F32, Access::ReadOnly},
                  {"y", ElementType::F32, Access::ReadWrite}};
  abi.constants = {{"a", ScalarType::F32}, {"n", ScalarType::U32}};
  abi.workgroupSize = workgroup;
  return abi;
}

std::vector<std::string> messages(const std::vector<AbiMismatch> &ms) {
  std::vector<std::string> out;
  for (const AbiMismatch &m : ms)
    out.push_back(m.message);
  return out;
}

using Messages = std::vector<std::string>;

TEST(PtxAbi, MatchingSignatureFits) {
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), saxpyAbi())), Messages{});
  // .maxntid 256 admits smaller blocks.
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), saxpyAbi({16, 16, 1}))),
            Messages{});
}

TEST(PtxAbi, ScalarOfTheWrongSize) {
  KernelAbi abi = saxpyAbi();
  abi.constants[1].type = ScalarType::U64;
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), abi)),
            Messages{"parameter 3 (constant 1 `n`): expected .u64 (8 bytes), "
                     "found .u32 (4 bytes)"});
}

TEST(PtxAbi, FloatWhereAnIntegerIsPassed) {
  KernelAbi abi = saxpyAbi();
  abi.constants[0].type = ScalarType::I32;
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), abi)),
            Messages{"parameter 2 (constant 0 `a`): expected .u32 (4 bytes), "
                     "found .f32 (4 bytes)"});
}

TEST(PtxAbi, ConstantWhereABindingIsExpected) {
  KernelAbi abi = saxpyAbi();
  abi.bindings.push_back({"z", ElementType::F32, Access::WriteOnly});
  std::vector<std::string> got = messages(checkPtxAbi(ptxFixture(), abi));
  EXPECT_EQ(got,
            (Messages{"`.entry saxpy` (line 15): expected 5 parameters (3 "
                      "bindings, then 2 constants), found 4",
                      "parameter 2 (binding 2 `z`): expected .u64 pointer (8 "
                      "bytes), found .f32 (4 bytes)",
                      "parameter 3 (constant 0 `a`): expected .f32 (4 bytes), "
                      "found .u32 (4 bytes)"}));
}

TEST(PtxAbi, ParametersAreCheckedInTheKernelsOwnOrder) {
  // saxpy(x, y, a, n) fits an ABI whose bindings are (y, x) when the
  // kernel.toml says so: pointers are pointers.
  KernelAbi swapped = saxpyAbi();
  std::swap(swapped.bindings[0], swapped.bindings[1]);
  swapped.parameterOrder = {1, 0, 2, 3};
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), swapped)), Messages{});
  // An order that puts `n` where the PTX has the float `a`.
  KernelAbi abi = saxpyAbi();
  abi.parameterOrder = {0, 1, 3, 2};
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), abi)),
            (Messages{"parameter 2 (constant 1 `n`): expected .u32 (4 bytes), "
                      "found .f32 (4 bytes)",
                      "parameter 3 (constant 0 `a`): expected .f32 (4 bytes), "
                      "found .u32 (4 bytes)"}));
}

TEST(PtxAbi, SourceNamesInAnotherOrderAskForParameters) {
  // transposeNaive(odata, idata, width, height) against a dispatch whose
  // bindings are (idata, odata): the PTX fits either way, the names do not.
  KernelAbi abi;
  abi.entry = "transposeNaive";
  abi.bindings = {{"idata", ElementType::F32, Access::ReadOnly},
                  {"odata", ElementType::F32, Access::WriteOnly}};
  abi.constants = {{"width", ScalarType::I32}, {"height", ScalarType::I32}};
  std::vector<std::string> declared = {"odata", "idata", "width", "height"};
  EXPECT_EQ(messages(checkParameterNames(abi, declared)),
            Messages{"`transposeNaive` declares its parameters as (odata, "
                     "idata, width, height), but [abi] passes (idata, odata, "
                     "width, height): pointers fit pointers and same-size "
                     "scalars each other, so only the names tell that the "
                     "kernel would read the wrong buffers; declare its order "
                     "in [abi]: parameters = [\"odata\", \"idata\", "
                     "\"width\", \"height\"]"});
  abi.parameterOrder = {1, 0, 2, 3};
  EXPECT_EQ(messages(checkParameterNames(abi, declared)), Messages{});
  // Other names, or a source the reader could not parse, say nothing.
  abi.parameterOrder.clear();
  EXPECT_EQ(messages(checkParameterNames(abi, {"out", "in", "w", "h"})),
            Messages{});
  EXPECT_EQ(messages(checkParameterNames(abi, {})), Messages{});
}

TEST(PtxAbi, WorkgroupLargerThanLaunchBounds) {
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), saxpyAbi({512, 1, 1}))),
            Messages{"`.entry saxpy` (line 15): workgroup size 512x1x1 (512 "
                     "threads) exceeds .maxntid 256x1x1 (256 threads; from "
                     "__launch_bounds__)"});
}

TEST(PtxAbi, ReqntidMustBeExact) {
  StatusOr<PtxModule> m = readPtx(".version 9.0\n.target sm_90\n"
                                  ".visible .entry k(.param .u64 p)\n"
                                  ".reqntid 128\n{ ret; }\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  KernelAbi abi;
  abi.entry = "k";
  abi.bindings = {{"p", ElementType::U8, Access::ReadWrite}};
  abi.workgroupSize = {128, 1, 1};
  EXPECT_EQ(messages(checkPtxAbi(*m, abi)), Messages{});
  abi.workgroupSize = {64, 2, 1};
  EXPECT_EQ(messages(checkPtxAbi(*m, abi)),
            Messages{"`.entry k` (line 3): workgroup size: expected 64x2x1, "
                     "found .reqntid 128x1x1"});
}

TEST(PtxAbi, MissingEntryListsThePresentOnes) {
  KernelAbi abi = saxpyAbi();
  abi.entry = "daxpy";
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), abi)),
            Messages{"entry `daxpy` not found in the PTX; entries present: "
                     "`saxpy`, `_Z5scalePffi`, `pair`, `noargs` (declare the "
                     "kernel extern \"C\" or fix `entry`)"});
}

TEST(ReadableEntryName, PlainNameOfMangledEntries) {
  EXPECT_EQ(readableEntryName("_Z13scale_kernel1P13__nv_bfloat16PKS_i"),
            "scale_kernel1");
  EXPECT_EQ(readableEntryName("_Z12scale_kernelI13__nv_bfloat16EvPT_PKS1_fi"),
            "scale_kernel");
  EXPECT_EQ(readableEntryName("_ZN2ns4tileEv"), "tile");
  EXPECT_EQ(readableEntryName("saxpy"), "saxpy");
  EXPECT_EQ(readableEntryName("main"), "main");
  EXPECT_EQ(readableEntryName("_Z"), "_Z");
}

TEST(PtxAbi, MangledNameResolvesFromThePlainName) {
  KernelAbi abi;
  abi.entry = "scale";
  abi.bindings = {{"y", ElementType::F32, Access::ReadWrite}};
  abi.constants = {{"a", ScalarType::F32}, {"n", ScalarType::I32}};
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), abi)), Messages{});
  abi.entry = "_Z5scalePffi"; // the mangled name itself works too
  EXPECT_EQ(messages(checkPtxAbi(ptxFixture(), abi)), Messages{});
}

TEST(PtxAbi, OverloadsAreAmbiguous) {
  StatusOr<PtxModule> m =
      readPtx(".version 9.0\n.target sm_90\n"
              ".visible .entry _Z1fi(.param .u32 a)\n{ ret; }\n"
              ".visible .entry _Z1ff(.param .f32 a)\n{ ret; }\n"
              ".visible .entry _ZN2ns1gEv()\n{ ret; }\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  KernelAbi abi;
  abi.entry = "f";
  abi.constants = {{"a", ScalarType::I32}};
  EXPECT_EQ(messages(checkPtxAbi(*m, abi)),
            Messages{"entry `f` is ambiguous in the PTX: it matches `_Z1fi`, "
                     "`_Z1ff`; set the entry to one mangled name, or declare "
                     "the kernel extern \"C\""});
  abi.entry = "_Z1fi";
  EXPECT_EQ(messages(checkPtxAbi(*m, abi)), Messages{});
  abi.entry = "g"; // namespace-qualified: the last component
  abi.constants.clear();
  EXPECT_EQ(messages(checkPtxAbi(*m, abi)), Messages{});
}

TEST(ResolvePtxEntry, ExactThenUniqueMangledName) {
  StatusOr<PtxModule> m =
      readPtx(".version 9.0\n.target sm_90\n"
              ".visible .entry k()\n{ ret; }\n"
              ".visible .entry _Z5scalePffi()\n{ ret; }\n"
              // `5scale` appears in the parameter types only: not a `scale`.
              ".visible .entry _Z3mapP5scale()\n{ ret; }\n"
              ".visible .entry _Z1fi()\n{ ret; }\n"
              ".visible .entry _Z1ff()\n{ ret; }\n"
              ".visible .entry _Z4tileIfEvPT_()\n{ ret; }\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto resolved = [&](std::string_view name) {
    const PtxEntry *entry = resolvePtxEntry(*m, name);
    return entry ? entry->name : std::string("(none)");
  };
  EXPECT_EQ(resolved("k"), "k");
  EXPECT_EQ(resolved("scale"), "_Z5scalePffi");
  EXPECT_EQ(resolved("_Z5scalePffi"), "_Z5scalePffi");
  EXPECT_EQ(resolved("map"), "_Z3mapP5scale");
  EXPECT_EQ(resolved("tile"), "_Z4tileIfEvPT_");
  EXPECT_EQ(resolved("f"), "(none)"); // overloads
  EXPECT_EQ(resolved("missing"), "(none)");

  std::string error;
  EXPECT_EQ(resolvePtxEntry(*m, "f", &error), nullptr);
  EXPECT_EQ(error, "entry `f` is ambiguous in the PTX: it matches `_Z1fi`, "
                   "`_Z1ff`; set the entry to one mangled name, or declare "
                   "the kernel extern \"C\"");
  error.clear();
  EXPECT_NE(resolvePtxEntry(*m, "k", &error), nullptr);
  EXPECT_EQ(error, ""); // untouched on success
}

// A template instance by its arguments: the one entry of several instances
// of one template whose demangled name is it.
TEST(PtxAbi, TemplateInstancesResolveByTheirArguments) {
  StatusOr<PtxModule> m = readPtx(
      ".version 9.0\n.target sm_90\n"
      ".visible .entry _Z13MatrixMulCUDAILi16EEvPfS0_S0_ii()\n{ ret; }\n"
      ".visible .entry _Z13MatrixMulCUDAILi32EEvPfS0_S0_ii()\n{ ret; }\n"
      ".visible .entry _Z1kILj8EEvPf()\n{ ret; }\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto resolved = [&](std::string_view name) {
    const PtxEntry *entry = resolvePtxEntry(*m, name);
    return entry ? entry->name : std::string("(none)");
  };
  EXPECT_EQ(resolved("MatrixMulCUDA<32>"),
            "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii");
  EXPECT_EQ(resolved("MatrixMulCUDA< 16 >"),
            "_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii");
  EXPECT_EQ(resolved("k<8>"), "_Z1kILj8EEvPf");
  EXPECT_EQ(resolved("MatrixMulCUDA"), "(none)"); // two instances
  std::string error;
  EXPECT_EQ(resolvePtxEntry(*m, "MatrixMulCUDA<64>", &error), nullptr);
  EXPECT_NE(error.find("entry `MatrixMulCUDA<64>` not found in the PTX; "
                       "entries present: `_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii` "
                       "(MatrixMulCUDA<16>)"),
            std::string::npos)
      << error;
}

TEST(PtxAbi, ByteArrayParametersFitBySizeAndAlignment) {
  StatusOr<PtxModule> m =
      readPtx(".version 9.0\n.target sm_90\n"
              ".visible .entry k(.param .align 8 .b8 p[8], .param .align 4 "
              ".b8 c[8])\n{ ret; }\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  KernelAbi abi;
  abi.entry = "k";
  abi.bindings = {{"p", ElementType::F32, Access::ReadWrite}};
  abi.constants = {{"c", ScalarType::F64}};
  EXPECT_EQ(messages(checkPtxAbi(*m, abi)),
            Messages{"parameter 1 (constant 0 `c`): expected .f64 (8 bytes), "
                     "found .b8 array (8 bytes, .align 4)"});
}

TEST(SpirvAbi, MatchingInterfaceFits) {
  KernelAbi abi = saxpyAbi({64, 1, 1});
  // GLSL entry points are "main"; the CUDA entry name stands for it.
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            Messages{});
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk10.spv"), abi)),
            Messages{});
  abi.entry = "main";
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            Messages{});
}

TEST(SpirvAbi, AccessMismatches) {
  KernelAbi abi = saxpyAbi({64, 1, 1});
  abi.bindings[0].access = Access::ReadWrite;
  abi.bindings[1].access = Access::ReadOnly;
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            (Messages{"binding 0 (`x`): expected readwrite, found a "
                      "NonWritable (readonly) buffer",
                      "binding 1 (`y`): expected readonly (NonWritable), found "
                      "a writable buffer; declare it `readonly buffer`"}));
}

TEST(SpirvAbi, MissingAndExtraBindings) {
  KernelAbi abi = saxpyAbi({64, 1, 1});
  abi.bindings.push_back({"z", ElementType::F32, Access::WriteOnly});
  // A binding the shader leaves out is bound and unused: legal, a note.
  std::vector<AbiMismatch> notes;
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi, &notes)),
      Messages{});
  EXPECT_EQ(messages(notes),
            Messages{"binding 2 (`z`): the shader declares nothing at set 0 "
                     "binding 2; the buffer is bound and unused, so nothing "
                     "writes this output"});
  abi.bindings.resize(1);
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            Messages{"unexpected resource at set 0 binding 1: the ABI "
                     "declares 1 bindings, at set 0 bindings 0..0"});
}

// ggml's interface: a gap (binding 1) and bindings declared twice under
// other element types (f16 and f16vec2; f32 and vec4).
KernelAbi aliasedGapAbi() {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"a", ElementType::F16, Access::ReadOnly},
                  {"unused", ElementType::F32, Access::ReadOnly},
                  {"d", ElementType::F32, Access::WriteOnly}};
  abi.constants = {{"n", ScalarType::U32}};
  abi.workgroupSize = {64, 1, 1};
  return abi;
}

TEST(SpirvAbi, GapsAndAliasedBindings) {
  std::vector<AbiMismatch> notes;
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("aliased_gap_vk12.spv"),
                                   aliasedGapAbi(), &notes)),
            Messages{});
  EXPECT_EQ(messages(notes),
            Messages{"binding 1 (`unused`): the shader declares nothing at "
                     "set 0 binding 1; the buffer is bound and unused"});
  // Declared f32: the float16_t alias reads the wrong bytes, the f16vec2
  // one the same 32 bits under another type (a note, not an error).
  KernelAbi abi = aliasedGapAbi();
  abi.bindings[0].elementType = ElementType::F32;
  notes.clear();
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("aliased_gap_vk12.spv"), abi,
                                   &notes)),
            Messages{"binding 0 (`a`): expected f32 elements (32-bit), found "
                     "f16 (declare the buffer's array with a 32-bit type)"});
  Messages noted = messages(notes);
  EXPECT_NE(std::find(noted.begin(), noted.end(),
                      "binding 0 (`a`): reads its f32 elements as 2-vector "
                      "of f16 (the same 32 bits)"),
            noted.end());
  // Readonly needs every declaration NonWritable; d is written through both.
  abi = aliasedGapAbi();
  abi.bindings[2].access = Access::ReadOnly;
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("aliased_gap_vk12.spv"), abi)),
            Messages{"binding 2 (`d`): expected readonly (NonWritable), found "
                     "a writable buffer (2 declarations); declare it "
                     "`readonly buffer`"});
}

TEST(SpirvAbi, PushConstantMismatches) {
  KernelAbi abi = saxpyAbi({64, 1, 1});
  std::swap(abi.constants[0], abi.constants[1]); // n: u32, a: f32
  abi.constants[0].type = ScalarType::F32;
  abi.constants[1].type = ScalarType::U32;
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            Messages{}); // same layout and types: names are not in SPIR-V
  abi.constants[1].type = ScalarType::U64;
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            (Messages{"constant 1 (`a`) (push-constant member 1): expected "
                      "offset 8, 8 bytes u64, found offset 4, 4 bytes u32"}));
  abi.constants.pop_back();
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            Messages{"push constants: expected 1 members, found 2"});
  abi.constants.clear();
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            Messages{"push constants: the ABI declares no constants, found a "
                     "push-constant block of 8 bytes"});
}

TEST(SpirvAbi, MixedWidthPushConstantsAndAUniformBuffer) {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"r", ElementType::F64, Access::WriteOnly}};
  abi.constants = {{"i", ScalarType::I32},
                   {"f", ScalarType::F32},
                   {"l", ScalarType::I64},
                   {"d", ScalarType::F64}};
  abi.workgroupSize = {8, 4, 2};
  EXPECT_EQ(pushConstantSize(abi), 24u);
  // The uniform block beside the push constants is refused as such.
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("push_constants_vk12.spv"), abi)),
      Messages{"uniform block `Params` at set 1 binding 2: expected the "
               "constants in one block, found this uniform block and a "
               "push-constant block of 24 bytes; declare every constant in "
               "one of them"});
  SpirvModule withoutBlock = spirvFixture("push_constants_vk12.spv");
  withoutBlock.resources.pop_back();
  EXPECT_EQ(messages(checkSpirvAbi(withoutBlock, abi)), Messages{});
  abi.constants[3].type = ScalarType::I64;
  EXPECT_EQ(messages(checkSpirvAbi(withoutBlock, abi)),
            Messages{"constant 3 (`d`) (push-constant member 3): "
                     "scalar-kind mismatch: expected offset 16, 8 bytes i64, "
                     "found offset 16, 8 bytes f64"});
}

/// The ABI of uniform_params.comp: one storage buffer, then i32, f32, i64
/// and f64 constants in a uniform block at binding 2.
KernelAbi uniformParamsAbi() {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"r", ElementType::F64, Access::WriteOnly}};
  abi.constants = {{"i", ScalarType::I32},
                   {"f", ScalarType::F32},
                   {"l", ScalarType::I64},
                   {"d", ScalarType::F64}};
  abi.workgroupSize = {64, 1, 1};
  return abi;
}

// A uniform block of scalars is the constants: its binding, std140 offsets
// (an explicit offset included) and size come from the SPIR-V, and the
// members are checked against the constants like push-constant members.
TEST(SpirvAbi, AUniformBlockOfScalarsHoldsTheConstants) {
  SpirvModule spirv = spirvFixture("uniform_params_vk12.spv");
  std::optional<UniformConstants> block = uniformConstantsOf(spirv);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->binding, 2u);
  EXPECT_EQ(block->offsets, (std::vector<uint32_t>{0, 16, 24, 32}));
  EXPECT_EQ(block->size, 40u);
  KernelAbi abi = uniformParamsAbi();
  abi.uniformConstants = block;
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)), Messages{});
  // Binding 1, between the storage buffer and the block, is free; a
  // second storage buffer there still fits.
  abi.bindings.push_back({"unused", ElementType::F32, Access::ReadOnly});
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)), Messages{});

  abi = uniformParamsAbi();
  abi.uniformConstants = block;
  abi.constants[1].type = ScalarType::I32;
  abi.constants[3].type = ScalarType::F32;
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            (Messages{"uniform block `Params` at set 0 binding 2, member 1 "
                      "(`f`): expected i32 (4 bytes) for constant 1 (`f`), "
                      "found f32",
                      "uniform block `Params` at set 0 binding 2, member 3 "
                      "(`d`): expected f32 (4 bytes) for constant 3 (`d`), "
                      "found f64"}));
  abi = uniformParamsAbi();
  abi.uniformConstants = block;
  abi.constants[0].type = ScalarType::U32;
  std::vector<AbiMismatch> notes;
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi, &notes)), Messages{});
  EXPECT_EQ(messages(notes),
            Messages{"uniform block `Params` at set 0 binding 2, member 0 "
                     "(`i`): signedness differs: expected u32 for constant 0 "
                     "(`i`), found i32"});
  abi.constants.pop_back();
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            Messages{"uniform block `Params` at set 0 binding 2: expected 3 "
                     "members, one per constant (`uint i; float f; int64_t "
                     "l;`), found 4"});
}

// The block may not take a storage buffer's binding: binding i is always
// storage buffer i, which the runtime binds even where the shader leaves a
// gap.
TEST(SpirvAbi, AUniformBlockAtAStorageBuffersBindingIsRefused) {
  SpirvModule spirv = spirvFixture("uniform_params_vk12.spv");
  KernelAbi abi = uniformParamsAbi();
  abi.uniformConstants = uniformConstantsOf(spirv);
  abi.bindings.push_back({"a", ElementType::F32, Access::ReadOnly});
  abi.bindings.push_back({"b", ElementType::F32, Access::ReadOnly});
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            Messages{"uniform block `Params` at set 0 binding 2: expected a "
                     "binding after the storage buffers (3 or higher), found "
                     "binding 2 (`b`)'s binding; declare the block "
                     "`layout(set = 0, binding = 3)` (or, if it holds that "
                     "binding's data, declare it `buffer`, not `uniform`)"});
  // Outside set 0 (push_constants.comp's block, push constants removed).
  SpirvModule other = spirvFixture("push_constants_vk12.spv");
  other.pushConstants.reset();
  abi = uniformParamsAbi();
  abi.uniformConstants = uniformConstantsOf(other);
  EXPECT_EQ(messages(checkSpirvAbi(other, abi)).at(0),
            "uniform block `Params` at set 1 binding 2: expected set 0, the "
            "ABI's only descriptor set, found set 1; declare it "
            "`layout(set = 0, binding = 1)`");
}

// Each member that is not a scalar is refused with the block the ABI
// would fill.
TEST(SpirvAbi, AUniformBlockWithAggregateMembersIsRefused) {
  SpirvModule spirv = spirvFixture("uniform_aggregates_vk12.spv");
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"r", ElementType::F32, Access::WriteOnly}};
  abi.constants = {{"scale", ScalarType::F32},
                   {"angle", ScalarType::F32},
                   {"weight", ScalarType::F32},
                   {"n", ScalarType::U32}};
  abi.workgroupSize = {64, 1, 1};
  abi.uniformConstants = uniformConstantsOf(spirv);
  ASSERT_TRUE(abi.uniformConstants);
  const std::string fix = "; the ABI fills one scalar member per constant: "
                          "declare the block as `float scale; float angle; "
                          "float weight; uint n;`";
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            (Messages{"uniform block `Params` at set 0 binding 1, member 0 "
                      "(`scale`): expected a scalar for constant 0 "
                      "(`scale`), found a vector" +
                          fix,
                      "uniform block `Params` at set 0 binding 1, member 1 "
                      "(`rotation`): expected a scalar for constant 1 "
                      "(`angle`), found a matrix" +
                          fix,
                      "uniform block `Params` at set 0 binding 1, member 2 "
                      "(`weights`): expected a scalar for constant 2 "
                      "(`weight`), found an array" +
                          fix,
                      "uniform block `Params` at set 0 binding 1, member 3 "
                      "(`range`): expected a scalar for constant 3 (`n`), "
                      "found a struct" +
                          fix}));
}

TEST(SpirvAbi, TwoUniformBlocksOrABlockBesidePushConstantsAreRefused) {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"r", ElementType::F32, Access::WriteOnly}};
  abi.constants = {{"scale", ScalarType::F32}, {"bias", ScalarType::F32}};
  abi.workgroupSize = {64, 1, 1};
  SpirvModule two = spirvFixture("uniform_two_blocks_vk12.spv");
  EXPECT_FALSE(uniformConstantsOf(two)); // which one would it be?
  EXPECT_EQ(messages(checkSpirvAbi(two, abi)),
            Messages{"constants: expected at most one uniform block, which "
                     "holds the constants, found 2 (uniform block `Scale` at "
                     "set 0 binding 1, uniform block `Bias` at set 0 binding "
                     "2); declare every constant in one block, and data that "
                     "is not a constant as a `buffer` binding"});
  abi.constants[1].type = ScalarType::U32;
  SpirvModule both = spirvFixture("uniform_and_push_vk12.spv");
  abi.uniformConstants = uniformConstantsOf(both);
  EXPECT_EQ(messages(checkSpirvAbi(both, abi)),
            Messages{"uniform block `Scale` at set 0 binding 1: expected the "
                     "constants in one block, found this uniform block and a "
                     "push-constant block of 4 bytes; declare every constant "
                     "in one of them"});
}

// The runtime checks a module against the layout its .kbm records: a
// block the layout does not record (push constants), or records elsewhere,
// is refused before any pipeline exists.
TEST(SpirvAbi, TheRecordedLayoutMustMatchTheBlock) {
  SpirvModule spirv = spirvFixture("uniform_params_vk12.spv");
  KernelAbi abi = uniformParamsAbi();
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            Messages{"uniform block `Params` at set 0 binding 2: the "
                     "module's layout passes the constants as push "
                     "constants, but the kernel declares them in this "
                     "uniform block; rebuild the module with this "
                     "kernel-bench, which records the block"});
  abi.uniformConstants = uniformConstantsOf(spirv);
  abi.uniformConstants->binding = 3;
  abi.uniformConstants->offsets[1] = 4;
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            (Messages{"uniform block `Params` at set 0 binding 2, member 1 "
                      "(`f`): the module's layout packs constant 1 (`f`) at "
                      "offset 4, but the block has it at offset 16",
                      "uniform block `Params` at set 0 binding 2 (40 bytes): "
                      "the module's layout expects the block at binding 3 "
                      "(40 bytes)"}));
  // A layout with a block the module does not declare.
  SpirvModule pushOnly = spirvFixture("saxpy_vk11.spv");
  KernelAbi saxpy = saxpyAbi({64, 1, 1});
  saxpy.uniformConstants = UniformConstants{2, {0, 4}, 8};
  EXPECT_EQ(messages(checkSpirvAbi(pushOnly, saxpy)),
            Messages{"constants: the module's layout expects a uniform "
                     "buffer at set 0 binding 2 (std140 offsets 0, 4; 8 "
                     "bytes), found no uniform block"});
}

TEST(SpirvAbi, WorkgroupSizeNamesItsEncoding) {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"v", ElementType::U32, Access::WriteOnly}};
  abi.workgroupSize = {1, 2, 1};
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("wg_spec_vk13.spv"), abi)),
            Messages{});
  abi.workgroupSize = {64, 2, 1};
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("wg_spec_vk13.spv"), abi)),
            Messages{"workgroup size: expected 64x2x1, found 1x2x1 (from "
                     "LocalSizeId; x is specialization constant 3 (default "
                     "shown; set it in [specialization] as local_size_x))"});
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("wg_spec_vk12.spv"), abi)),
            Messages{"workgroup size: expected 64x2x1, found 1x2x1 (from "
                     "WorkgroupSize builtin; x is specialization constant 3 "
                     "(default shown; set it in [specialization] as "
                     "local_size_x))"});
}

TEST(SpirvAbi, MissingEntryPoint) {
  SpirvModule m = spirvFixture("saxpy_vk11.spv");
  m.entryPoints.push_back(m.entryPoints[0]);
  m.entryPoints.back().name = "other";
  KernelAbi abi = saxpyAbi({64, 1, 1}); // "saxpy": two candidates now
  EXPECT_EQ(messages(checkSpirvAbi(m, abi)),
            Messages{"entry point `saxpy` not found in the SPIR-V; entry "
                     "points present: `main`, `other`"});
  m.entryPoints.back().executionModel = 0; // Vertex
  m.entryPoints.back().name = "saxpy";
  EXPECT_EQ(messages(checkSpirvAbi(m, abi)),
            Messages{"entry point `saxpy` has execution model 0; expected "
                     "GLCompute (5): compile it as a compute shader"});
}

/// element_types.comp: a `int[]`, b `vec4[]`, c `uint16_t[]`, d `uint[]`,
/// push constant `int n`.
KernelAbi elementTypesAbi() {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"a", ElementType::I32, Access::ReadOnly},
                  {"b", ElementType::F32, Access::ReadOnly},
                  {"c", ElementType::BF16, Access::ReadOnly},
                  {"d", ElementType::U32, Access::ReadWrite}};
  abi.constants = {{"n", ScalarType::I32}};
  abi.workgroupSize = {64, 1, 1};
  return abi;
}

TEST(SpirvAbi, ElementTypesThatFit) {
  std::vector<AbiMismatch> notes;
  KernelAbi abi = elementTypesAbi();
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi,
                                   &notes)),
            Messages{});
  EXPECT_EQ(messages(notes), Messages{});
  // uint[] packing narrower elements is a GLSL idiom, not a mismatch.
  abi.bindings[3].elementType = ElementType::U8;
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi)),
      Messages{});
  // 16-bit integers of either signedness hold bf16 bits.
  abi.bindings[3].elementType = ElementType::BF16;
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi)),
      Messages{});
}

TEST(SpirvAbi, IntArrayForAFloatBindingIsAScalarKindMismatch) {
  KernelAbi abi = elementTypesAbi();
  abi.bindings[0].elementType = ElementType::F32;
  abi.bindings[1].elementType = ElementType::I32; // vec4[] for i32
  abi.bindings[2].elementType = ElementType::F16; // uint16_t[] for f16
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi)),
      (Messages{"binding 0 (`a`): scalar-kind mismatch: expected f32 "
                "(floating-point) elements, found i32 (signed integer)",
                "binding 1 (`b`): scalar-kind mismatch: expected i32 (signed "
                "integer) elements, found 4-vector of f32 (floating-point)",
                "binding 2 (`c`): scalar-kind mismatch: expected f16 "
                "(floating-point) elements, found u16 (unsigned integer)"}));
  abi = elementTypesAbi();
  abi.bindings[1].elementType = ElementType::F64;
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi)),
      Messages{
          "binding 1 (`b`): expected f64 elements (64-bit), found "
          "4-vector of f32 (128-bit vectors of 32-bit components) (declare the "
          "buffer's array with a "
          "64-bit type)"});
}

TEST(SpirvAbi, SignednessDifferencesAreNotes) {
  KernelAbi abi = elementTypesAbi();
  abi.bindings[0].elementType = ElementType::U32; // int[]
  abi.constants[0].type = ScalarType::U32;        // int n
  std::vector<AbiMismatch> notes;
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi,
                                   &notes)),
            Messages{});
  EXPECT_EQ(messages(notes),
            (Messages{"binding 0 (`a`): signedness differs: expected u32 "
                      "elements, found i32 (same bits; values past the signed "
                      "range read differently)",
                      "constant 0 (`n`) (push-constant member 0): signedness "
                      "differs: expected u32, found i32"}));
  // A float constant where the shader has an int stays an error.
  abi.constants[0].type = ScalarType::F32;
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("element_types_vk11.spv"), abi)),
      Messages{"constant 0 (`n`) (push-constant member 0): scalar-kind "
               "mismatch: expected offset 0, 4 bytes f32, found offset "
               "0, 4 bytes i32"});
}

/// The ABI of struct_elements.comp's bindings: Particle and Body structs
/// (declared `type = "struct"`, layout not read yet) and a u32 flag array.
KernelAbi structAbi() {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"particles", ElementType::U8, Access::ReadWrite},
                  {"bodies", ElementType::U8, Access::ReadOnly},
                  {"flags", ElementType::U32, Access::ReadWrite}};
  abi.bindings[0].structLayout = StructLayout{};
  abi.bindings[1].structLayout = StructLayout{};
  abi.workgroupSize = {64, 1, 1};
  return abi;
}

/// The mismatches about bindings (the fixture's push constants are the
/// subject of other tests).
Messages bindingMessages(const std::vector<AbiMismatch> &ms) {
  Messages out;
  for (const std::string &m : messages(ms))
    if (m.rfind("binding", 0) == 0)
      out.push_back(m);
  return out;
}

TEST(SpirvAbi, StructBindingsTakeTheirLayoutFromTheModule) {
  SpirvModule spirv = spirvFixture("struct_elements_vk12.spv");
  KernelAbi abi = structAbi();
  // Declared but not read yet: any array of structs fits.
  EXPECT_EQ(bindingMessages(checkSpirvAbi(spirv, abi)), Messages{});
  setStructLayouts(spirv, abi);
  ASSERT_TRUE(abi.bindings[0].structLayout);
  EXPECT_EQ(abi.bindings[0].structLayout->stride, 32u);
  EXPECT_EQ(abi.bindings[1].structLayout->stride, 40u);
  EXPECT_FALSE(abi.bindings[2].structLayout); // a u32 binding stays one
  EXPECT_EQ(bindingMessages(checkSpirvAbi(spirv, abi)), Messages{});
  EXPECT_EQ(elementByteSize(abi.bindings[0]), 32u);
  EXPECT_EQ(formatSignature(abi),
            "main(particles: struct Particle readwrite, bodies: struct Body "
            "readonly, flags: u32 readwrite)");
}

TEST(SpirvAbi, ARecordedStructLayoutMustMatchTheModule) {
  SpirvModule spirv = spirvFixture("struct_elements_vk12.spv");
  KernelAbi abi = structAbi();
  setStructLayouts(spirv, abi);
  // What a module built from another version of the shader would record.
  abi.bindings[0].structLayout->stride = 48;
  abi.bindings[0].structLayout->members[2].offset = 32;
  EXPECT_EQ(bindingMessages(checkSpirvAbi(spirv, abi)),
            (Messages{"binding 0 (`particles`): expected struct elements "
                      "laid out as Particle, 48 bytes: pos vec2 at 0, vel "
                      "vec2 at 8, gradientPos vec4 at 32, found Particle, 32 "
                      "bytes: pos vec2 at 0, vel vec2 at 8, gradientPos vec4 "
                      "at 16"}));
}

TEST(SpirvAbi, AStructDeclaredWhereTheShaderHasScalarsIsRefused) {
  KernelAbi abi = saxpyAbi({64, 1, 1});
  abi.bindings[1].structLayout = StructLayout{};
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("saxpy_vk11.spv"), abi)),
            (Messages{"binding 1 (`y`): declared type = \"struct\", found an "
                      "array of f32 (declare the buffer's last member an "
                      "array of structs, `Particle particles[]`, or the "
                      "binding's scalar type)"}));
}

TEST(SpirvAbi, StructsReadAsScalarsAreANoteThatNamesTheLayout) {
  SpirvModule spirv = spirvFixture("struct_elements_vk12.spv");
  KernelAbi abi = structAbi();
  abi.bindings[0].structLayout.reset(); // bytes, as ggml reads its blocks
  std::vector<AbiMismatch> notes;
  EXPECT_EQ(bindingMessages(checkSpirvAbi(spirv, abi, &notes)), Messages{});
  ASSERT_EQ(notes.size(), 2u); // flags (a struct of a uint) says so too
  EXPECT_EQ(
      messages(notes)[0],
      (std::string{"binding 0 (`particles`): holds structs (Particle, 32 "
                   "bytes: pos vec2 at 0, vel vec2 at 8, gradientPos vec4 "
                   "at 16) read as u8 elements; its element count counts "
                   "u8 values (a standalone kernel may declare it `type = "
                   "\"struct\"` to count structs and have them filled "
                   "member by member)"}));
}

/// struct_elements.comp's push constants flattened, as a standalone
/// kernel.toml declares them (`count = 4`, dotted names).
std::vector<Constant> flattenedConstants() {
  return {{"coeffs[0]", ScalarType::F32}, {"coeffs[1]", ScalarType::F32},
          {"coeffs[2]", ScalarType::F32}, {"coeffs[3]", ScalarType::F32},
          {"inner.id", ScalarType::U32},  {"inner.weight", ScalarType::F32},
          {"n", ScalarType::U32}};
}

TEST(SpirvAbi, PushConstantArraysAndStructsFitTheirFlattenedConstants) {
  SpirvModule spirv = spirvFixture("struct_elements_vk12.spv");
  KernelAbi abi = structAbi();
  abi.constants = flattenedConstants();
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)), Messages{});
  // A kind or an offset off is named at its scalar.
  abi.constants[4].type = ScalarType::F32;
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            (Messages{"constant 4 (`inner.id`) (push constant `inner.id`): "
                      "expected offset 16, 4 bytes f32 (natural alignment), "
                      "found offset 16, 4 bytes u32"}));
  abi.constants = flattenedConstants();
  abi.constants.pop_back();
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            (Messages{"push constants: expected 6 scalars, found 7 once the "
                      "block's arrays, vectors and structs are flattened "
                      "(coeffs[0], "
                      "coeffs[1], coeffs[2], coeffs[3], inner.id, "
                      "inner.weight, n)"}));
}

TEST(SpirvAbi, PushConstantArraysCannotTakeADispatchsScalars) {
  SpirvModule spirv = spirvFixture("struct_elements_vk12.spv");
  KernelAbi abi = structAbi();
  // What a program dispatch's export passes: scalars of its own names.
  abi.constants = flattenedConstants();
  for (size_t i = 0; i < abi.constants.size(); ++i)
    abi.constants[i].name = "c" + std::to_string(i);
  EXPECT_EQ(messages(checkSpirvAbi(spirv, abi)),
            (Messages{"constant 0 (`c0`) (push constant `coeffs[0]`): the "
                      "block's arrays, vectors and structs are matched to "
                      "the constants by name, and this constant is not named "
                      "`coeffs[0]`; a program dispatch's constants are its "
                      "export's scalars, which an array, vector or struct "
                      "member cannot take, so such a block is for a "
                      "standalone kernel ([bench]) that declares its "
                      "flattened constants (`{ name = \"coeffs\", type = "
                      "\"f32\", count = 4 }` for `float coeffs[4]` or `vec4 "
                      "coeffs`, `inner.id`)"}));
}

/// push_vectors.comp's constants: each vector an array of its components.
std::vector<Constant> vectorConstants(bool pad) {
  std::vector<Constant> out;
  auto add = [&](const std::string &name, ScalarType type, int count) {
    for (int k = 0; k < count; ++k)
      out.push_back(
          {count == 1 ? name : name + "[" + std::to_string(k) + "]", type});
  };
  add("color", ScalarType::F32, 4);
  add("size", ScalarType::U32, 2);
  add("scale", ScalarType::F32, 1);
  if (pad)
    add("pad", ScalarType::F32, 1);
  add("dir", ScalarType::F32, 2);
  add("taps[0]", ScalarType::F32, 2);
  add("taps[1]", ScalarType::F32, 2);
  return out;
}

// Vectors in push constants (`vec4 color; uvec2 size; ... vec2 taps[2]`)
// are arrays of their components; a vector whose alignment leaves a gap
// after the scalars before it is named with the padding to add.
TEST(SpirvAbi, PushConstantVectorsFitTheirComponents) {
  KernelAbi abi;
  abi.entry = "main";
  abi.workgroupSize = {64, 1, 1};
  abi.bindings = {{"r", ElementType::F32, Access::ReadWrite}};
  abi.constants = vectorConstants(true);
  EXPECT_EQ(messages(checkSpirvAbi(spirvFixture("push_vectors_vk12.spv"), abi)),
            Messages{});
  abi.constants = vectorConstants(false);
  EXPECT_EQ(
      messages(checkSpirvAbi(spirvFixture("push_vectors_nopad_vk12.spv"), abi)),
      (Messages{"constant 7 (`dir[0]`) (push constant `dir[0]`): expected "
                "offset 28, 4 bytes f32 (natural alignment), found offset 32, "
                "4 bytes f32; the block has 4 bytes of padding before it (a "
                "vector or struct starts at a multiple of its alignment): "
                "fill them with a member (`float pad;`) declared as a "
                "constant too"}));
}

TEST(AbiCheck, FormatMismatchesOnePerLine) {
  EXPECT_EQ(formatMismatches({}), "");
  EXPECT_EQ(formatMismatches({{"a"}, {"b"}}), "a\nb");
}

} // namespace
} // namespace kb

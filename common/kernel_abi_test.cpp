//===- common/kernel_abi_test.cpp -----------------------------------------===//
#include "common/kernel_abi.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(KernelAbi, SpellingsRoundTrip) {
  for (const char *name : {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64",
                           "f16", "bf16", "f32", "f64"}) {
    auto type = parseElementType(name);
    ASSERT_TRUE(type.has_value()) << name;
    EXPECT_STREQ(toString(*type), name);
  }
  for (const char *name : {"i32", "u32", "f32", "i64", "u64", "f64"}) {
    auto type = parseScalarType(name);
    ASSERT_TRUE(type.has_value()) << name;
    EXPECT_STREQ(toString(*type), name);
  }
  for (const char *name : {"readonly", "writeonly", "readwrite"}) {
    auto access = parseAccess(name);
    ASSERT_TRUE(access.has_value()) << name;
    EXPECT_STREQ(toString(*access), name);
  }
  EXPECT_FALSE(parseElementType("float").has_value());
  EXPECT_FALSE(parseScalarType("i8").has_value()); // not a constant type
  EXPECT_FALSE(parseScalarType("F32").has_value());
  EXPECT_FALSE(parseAccess("read").has_value());
  EXPECT_STREQ(validScalarTypes(), "i32, u32, f32, i64, u64, f64");
}

TEST(KernelAbi, ByteSizes) {
  EXPECT_EQ(byteSize(ElementType::I8), 1u);
  EXPECT_EQ(byteSize(ElementType::BF16), 2u);
  EXPECT_EQ(byteSize(ElementType::F32), 4u);
  EXPECT_EQ(byteSize(ElementType::U64), 8u);
  EXPECT_EQ(byteSize(ScalarType::I32), 4u);
  EXPECT_EQ(byteSize(ScalarType::F64), 8u);
}

KernelAbi mixedAbi() {
  KernelAbi abi;
  abi.entry = "k";
  abi.bindings = {{"x", ElementType::F32, Access::ReadOnly},
                  {"y", ElementType::F32, Access::WriteOnly}};
  // A 32-bit constant followed by a 64-bit one needs 4 bytes of padding.
  abi.constants = {{"n", ScalarType::U32},
                   {"scale", ScalarType::F64},
                   {"m", ScalarType::I32}};
  return abi;
}

std::vector<std::array<uint32_t, 3>> slots(const std::vector<ParamSlot> &in) {
  std::vector<std::array<uint32_t, 3>> out;
  for (const ParamSlot &s : in)
    out.push_back({s.offset, s.size, s.align});
  return out;
}

TEST(KernelAbi, CudaParamLayoutNaturalAlignment) {
  using S = std::vector<std::array<uint32_t, 3>>;
  EXPECT_EQ(slots(cudaParamLayout(mixedAbi())),
            (S{{0, 8, 8}, {8, 8, 8}, {16, 4, 4}, {24, 8, 8}, {32, 4, 4}}));
  KernelAbi empty;
  EXPECT_TRUE(cudaParamLayout(empty).empty());
}

TEST(KernelAbi, CudaParamLayoutFollowsTheKernelsOwnOrder) {
  // transpose(float *y, unsigned n, const float *x, int m, double scale):
  // the ABI's slots in another order, each at its natural alignment there.
  KernelAbi abi = mixedAbi();
  abi.parameterOrder = {1, 2, 0, 4, 3};
  std::vector<ParamSlot> layout = cudaParamLayout(abi);
  using S = std::vector<std::array<uint32_t, 3>>;
  EXPECT_EQ(slots(layout),
            (S{{0, 8, 8}, {8, 4, 4}, {16, 8, 8}, {24, 4, 4}, {32, 8, 8}}));
  std::vector<uint32_t> held;
  for (const ParamSlot &slot : layout)
    held.push_back(slot.slot);
  EXPECT_EQ(held, abi.parameterOrder);
  EXPECT_EQ(checkParameterOrder(abi), "");
  EXPECT_EQ(parameterSlots(mixedAbi()), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_NE(formatSignature(abi).find("as parameters (y, n, x, m, scale)"),
            std::string::npos)
      << formatSignature(abi);
}

TEST(KernelAbi, ParameterOrderMustNameEverySlotOnce) {
  KernelAbi abi = mixedAbi();
  abi.parameterOrder = {0, 1, 2, 3, 9};
  EXPECT_EQ(checkParameterOrder(abi),
            "slot 9 is out of range (2 bindings, 3 constants)");
  abi.parameterOrder = {0, 1, 1, 3, 4};
  EXPECT_EQ(checkParameterOrder(abi), "binding 1 (`y`) is listed twice");
  abi.parameterOrder = {0, 1, 2, 3};
  EXPECT_EQ(checkParameterOrder(abi), "constant 2 (`m`) is missing");
}

TEST(KernelAbi, PushConstantLayoutNaturalAlignment) {
  using S = std::vector<std::array<uint32_t, 3>>;
  EXPECT_EQ(slots(pushConstantLayout(mixedAbi())),
            (S{{0, 4, 4}, {8, 8, 8}, {16, 4, 4}}));
  EXPECT_EQ(pushConstantSize(mixedAbi()), 20u);
  KernelAbi noConstants = mixedAbi();
  noConstants.constants.clear();
  EXPECT_TRUE(pushConstantLayout(noConstants).empty());
  EXPECT_EQ(pushConstantSize(noConstants), 0u);
}

// A uniform block's constants at the block's std140 offsets (here spread
// out, as `layout(offset = ...)` or vec4-aligned members leave them), from
// the push-constant packing every dispatch carries.
TEST(KernelAbi, PackUniformConstantsMovesEachConstantToItsStd140Offset) {
  KernelAbi abi = mixedAbi(); // n: u32 @0, scale: f64 @8, m: i32 @16
  std::vector<uint8_t> packed(pushConstantSize(abi));
  for (size_t i = 0; i < packed.size(); ++i)
    packed[i] = static_cast<uint8_t>(i + 1);
  EXPECT_TRUE(packUniformConstants(abi, packed).empty()); // push constants
  abi.uniformConstants = UniformConstants{3, {0, 16, 32}, 36};
  std::vector<uint8_t> block = packUniformConstants(abi, packed);
  ASSERT_EQ(block.size(), 36u);
  std::vector<uint8_t> expected(36, 0);
  for (int b = 0; b < 4; ++b)
    expected[b] = static_cast<uint8_t>(b + 1); // n
  for (int b = 0; b < 8; ++b)
    expected[16 + b] = static_cast<uint8_t>(9 + b); // scale
  for (int b = 0; b < 4; ++b)
    expected[32 + b] = static_cast<uint8_t>(17 + b); // m
  EXPECT_EQ(block, expected);

  // Not the dispatch's block size, or an offset past the block: nothing.
  packed.pop_back();
  EXPECT_TRUE(packUniformConstants(abi, packed).empty());
  packed.push_back(0);
  abi.uniformConstants->offsets[2] = 34;
  EXPECT_TRUE(packUniformConstants(abi, packed).empty());
  // No constants: one zero word, a range Vulkan can bind.
  abi.constants.clear();
  abi.uniformConstants = UniformConstants{2, {}, 0};
  EXPECT_EQ(packUniformConstants(abi, {}), std::vector<uint8_t>(4, 0));
}

TEST(KernelAbi, DescribeUniformConstants) {
  KernelAbi abi = mixedAbi();
  EXPECT_EQ(describeUniformConstants(abi), "");
  abi.uniformConstants = UniformConstants{2, {0, 8, 16}, 20};
  EXPECT_EQ(describeUniformConstants(abi),
            "uniform buffer at set 0 binding 2 (std140 offsets 0, 8, 16; 20 "
            "bytes)");
}

TEST(KernelAbi, Descriptions) {
  KernelAbi abi = mixedAbi();
  EXPECT_EQ(describeBinding(abi, 1), "binding 1 (`y`)");
  EXPECT_EQ(describeConstant(abi, 1), "constant 1 (`scale`)");
  abi.bindings[0].name.clear();
  EXPECT_EQ(describeBinding(abi, 0), "binding 0");
  EXPECT_EQ(describeConstant(abi, 7), "constant 7"); // out of range: no name
}

TEST(KernelAbi, Signature) {
  KernelAbi abi = mixedAbi();
  EXPECT_EQ(formatSignature(abi),
            "k(x: f32 readonly, y: f32 writeonly; n: u32, scale: f64, m: i32)");
  abi.constants.clear(); // a formed dispatch: bindings only
  abi.bindings[1].name.clear();
  EXPECT_EQ(formatSignature(abi), "k(x: f32 readonly, f32 writeonly)");
  abi.bindings.clear();
  abi.constants = {{"n", ScalarType::U32}};
  EXPECT_EQ(formatSignature(abi), "k(n: u32)");
}

// A variant's own workgroup-count rule (kernel.toml [abi]
// workload_per_workgroup): ceildiv per dimension; none declared, or a count
// past 32 bits, leaves the dispatch's count.
TEST(KernelAbi, WorkgroupCountForDeclaredWorkloadPerWorkgroup) {
  KernelAbi abi;
  EXPECT_EQ(workgroupCountFor(abi, {128, 128, 1}), std::nullopt);
  abi.workloadPerWorkgroup = {32, 32, 1};
  EXPECT_EQ(workgroupCountFor(abi, {128, 100, 1}),
            (std::array<uint32_t, 3>{4, 4, 1}));
  EXPECT_EQ(workgroupCountFor(abi, {1, 1, 1}),
            (std::array<uint32_t, 3>{1, 1, 1}));
  abi.workloadPerWorkgroup = {1, 1, 1};
  EXPECT_EQ(workgroupCountFor(abi, {uint64_t(1) << 33, 1, 1}), std::nullopt);
}

TEST(StructLayout, CheckRefusesMembersOutsideTheStride) {
  StructLayout layout{"Particle",
                      32,
                      {{"pos", ElementType::F32, 0, 2, 1, 0},
                       {"vel", ElementType::F32, 8, 2, 1, 0}}};
  EXPECT_EQ(checkStructLayout(layout), "");
  layout.members[1].offset = 28;
  EXPECT_EQ(checkStructLayout(layout),
            "member 1 (`vel`) ends at byte 36, past the stride of 32 bytes");
  layout.members[1] = {"taps", ElementType::I32, 0, 1, 3, 2};
  EXPECT_EQ(checkStructLayout(layout),
            "member 1 (`taps`) is an array of 3 entries 2 bytes apart, each 4 "
            "bytes");
  layout.members[1] = {"v", ElementType::F32, 0, 5, 1, 0};
  EXPECT_EQ(checkStructLayout(layout),
            "member 1 (`v`) has 5 components; a vector has 1 to 4");
  // Overlapping members: each byte would be filled and compared again.
  layout.members[1] = {"vel", ElementType::F32, 4, 2, 1, 0};
  EXPECT_EQ(checkStructLayout(layout),
            "member 1 (`vel`) starts at byte 4, inside the member before it "
            "(which ends at byte 8)");
  layout.stride = 0;
  EXPECT_EQ(checkStructLayout(layout),
            "stride 0 bytes is not between 1 and 1048576");
}

TEST(StructLayout, DescribedInGlslTerms) {
  StructLayout layout{"Body",
                      40,
                      {{"mass", ElementType::F32, 0, 1, 1, 0},
                       {"inner.id", ElementType::U32, 4, 1, 1, 0},
                       {"taps", ElementType::I32, 12, 1, 3, 4},
                       {"basis", ElementType::F32, 24, 2, 2, 8}}};
  EXPECT_EQ(describeStructLayout(layout),
            "Body, 40 bytes: mass float at 0, inner.id uint at 4, taps int[3] "
            "at 12, basis vec2[2] at 24");
  layout.members[2].arrayStride = 16; // std140's padding shows
  EXPECT_NE(describeStructLayout(layout).find(
                "taps int[3] at 12 (entries 16 bytes apart), basis"),
            std::string::npos);
  Binding binding{"bodies", ElementType::U8, Access::ReadOnly, layout};
  EXPECT_EQ(elementByteSize(binding), 40u);
  binding.structLayout.reset();
  EXPECT_EQ(elementByteSize(binding), 1u);
}

} // namespace
} // namespace kb

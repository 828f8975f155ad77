//===- common/spirv_reader_test.cpp ---------------------------------------===//
#include "common/spirv_reader.h"
#include "common/test_util.h"

#include <cstring>
#include <gtest/gtest.h>
#include <random>

namespace kb {
namespace {

using ::kb::testing::findTool;
using ::kb::testing::readFile;
using ::kb::testing::shellQuote;
using ::kb::testing::sourcePath;

using Dims = std::array<uint32_t, 3>;

std::string fixtureBytes(const std::string &name) {
  return readFile(sourcePath("common/testdata/" + name));
}

std::vector<uint32_t> toWords(const std::string &bytes) {
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

SpirvModule readFixture(const std::string &name) {
  std::string bytes = fixtureBytes(name);
  EXPECT_FALSE(bytes.empty()) << "missing fixture " << name;
  StatusOr<SpirvModule> m = readSpirvBytes(bytes);
  EXPECT_TRUE(m.ok()) << name << ": " << m.status().message();
  return m.ok() ? *m : SpirvModule{};
}

const SpirvResource *findResource(const SpirvModule &m, uint32_t set,
                                  uint32_t binding) {
  for (const SpirvResource &r : m.resources)
    if (r.set == set && r.binding == binding)
      return &r;
  return nullptr;
}

/// saxpy.comp: readonly x at binding 0, y at binding 1, {float a; uint n}.
void expectSaxpy(const SpirvModule &m, uint32_t version) {
  EXPECT_EQ(m.version, version);
  ASSERT_EQ(m.entryPoints.size(), 1u);
  const SpirvEntryPoint *ep = m.findEntryPoint("main");
  ASSERT_NE(ep, nullptr);
  EXPECT_EQ(ep->executionModel, 5u);
  ASSERT_TRUE(ep->workgroupSize.has_value());
  EXPECT_EQ(*ep->workgroupSize, (Dims{64, 1, 1}));
  for (const auto &id : ep->specIds)
    EXPECT_FALSE(id.has_value());

  ASSERT_EQ(m.resources.size(), 2u);
  const SpirvResource *x = findResource(m, 0, 0);
  const SpirvResource *y = findResource(m, 0, 1);
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(x->kind, SpirvResource::Kind::StorageBuffer);
  EXPECT_EQ(y->kind, SpirvResource::Kind::StorageBuffer);
  EXPECT_TRUE(x->nonWritable);
  EXPECT_FALSE(y->nonWritable);

  ASSERT_TRUE(m.pushConstants.has_value());
  EXPECT_EQ(m.pushConstants->size, 8u);
  EXPECT_EQ(m.pushConstants->memberOffsets, (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(m.pushConstants->memberSizes, (std::vector<uint32_t>{4, 4}));
  EXPECT_EQ(m.pushConstants->memberTypes,
            (std::vector<std::string>{"f32", "u32"}));
}

TEST(SpirvReader, Vulkan11StorageBufferClass) {
  expectSaxpy(readFixture("saxpy_vk11.spv"), 0x00010300);
}

TEST(SpirvReader, StorageElementTypesAndWorkgroupMemory) {
  SpirvModule m = readFixture("element_types_vk11.spv");
  std::vector<std::pair<std::string, uint32_t>> elements;
  for (uint32_t binding = 0; binding < 4; ++binding)
    for (const SpirvResource &r : m.resources)
      if (r.binding == binding)
        elements.push_back({r.elementType, r.elementVectorSize});
  EXPECT_EQ(elements, (std::vector<std::pair<std::string, uint32_t>>{
                          {"i32", 1}, {"f32", 4}, {"u16", 1}, {"u32", 1}}));
  // float tile[1024] and uvec2 pairs[16].
  EXPECT_EQ(m.workgroupMemoryBytes, 4096u + 128u);
  EXPECT_EQ(readFixture("saxpy_vk11.spv").workgroupMemoryBytes, 0u);
}

TEST(SpirvReader, Vulkan10UniformBufferBlockIsAStorageBuffer) {
  // SPIR-V 1.0 has no StorageBuffer class: glslc emits Uniform + BufferBlock.
  expectSaxpy(readFixture("saxpy_vk10.spv"), 0x00010000);
}

TEST(SpirvReader, SpecConstantWorkgroupSizeBuiltin) {
  for (const char *name : {"wg_spec_vk11.spv", "wg_spec_vk12.spv"}) {
    SCOPED_TRACE(name);
    SpirvModule m = readFixture(name);
    const SpirvEntryPoint *ep = m.findEntryPoint("main");
    ASSERT_NE(ep, nullptr);
    ASSERT_TRUE(ep->workgroupSize.has_value());
    EXPECT_EQ(*ep->workgroupSize, (Dims{1, 2, 1})); // x defaults to 1
    EXPECT_EQ(ep->workgroupSizeSource, "WorkgroupSize builtin");
    EXPECT_EQ(ep->specIds[0], std::optional<uint32_t>(3));
    EXPECT_FALSE(ep->specIds[1].has_value());
    EXPECT_FALSE(ep->specIds[2].has_value());
    EXPECT_FALSE(m.pushConstants.has_value());
  }
}

TEST(SpirvReader, SpecConstantLocalSizeId) {
  SpirvModule m = readFixture("wg_spec_vk13.spv");
  EXPECT_EQ(m.version, 0x00010600u);
  const SpirvEntryPoint *ep = m.findEntryPoint("main");
  ASSERT_NE(ep, nullptr);
  ASSERT_TRUE(ep->workgroupSize.has_value());
  EXPECT_EQ(*ep->workgroupSize, (Dims{1, 2, 1}));
  EXPECT_EQ(ep->workgroupSizeSource, "LocalSizeId");
  EXPECT_EQ(ep->specIds[0], std::optional<uint32_t>(3));
  EXPECT_FALSE(ep->specIds[1].has_value());
}

/// Index of the first instruction with |opcode| whose first operands equal
/// |prefix|; -1 if none.
long findInstruction(const std::vector<uint32_t> &words, uint32_t opcode,
                     std::vector<uint32_t> prefix = {}) {
  for (size_t pos = 5; pos < words.size();) {
    uint32_t count = words[pos] >> 16;
    if (count == 0)
      return -1;
    if ((words[pos] & 0xffff) == opcode && count > prefix.size()) {
      bool match = true;
      for (size_t i = 0; i < prefix.size(); ++i)
        match = match && words[pos + 1 + i] == prefix[i];
      if (match)
        return static_cast<long>(pos);
    }
    pos += count;
  }
  return -1;
}

TEST(SpirvReader, BuiltinOverridesLiteralLocalSize) {
  std::vector<uint32_t> words = toWords(fixtureBytes("saxpy_vk11.spv"));
  long mode = findInstruction(words, 16); // OpExecutionMode
  ASSERT_GE(mode, 0);
  ASSERT_EQ(words[mode + 2], 17u); // LocalSize 64 1 1
  words[mode + 3] = 7;
  StatusOr<SpirvModule> m = readSpirv(words.data(), words.size());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(*m->entryPoints[0].workgroupSize, (Dims{64, 1, 1}));
  EXPECT_EQ(m->entryPoints[0].workgroupSizeSource, "WorkgroupSize builtin");

  // Without the builtin decoration the literal is what counts.
  long builtin = -1;
  for (size_t pos = 5; pos < words.size(); pos += words[pos] >> 16)
    if ((words[pos] & 0xffff) == 71 && words[pos + 2] == 11 &&
        words[pos + 3] == 25)
      builtin = static_cast<long>(pos);
  ASSERT_GE(builtin, 0);
  words[builtin + 3] = 28; // BuiltIn GlobalInvocationId on a constant: ignored
  m = readSpirv(words.data(), words.size());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(*m->entryPoints[0].workgroupSize, (Dims{7, 1, 1}));
  EXPECT_EQ(m->entryPoints[0].workgroupSizeSource, "LocalSize");
}

TEST(SpirvReader, PushConstantScalarsOfEveryWidth) {
  SpirvModule m = readFixture("push_constants_vk12.spv");
  ASSERT_TRUE(m.pushConstants.has_value());
  EXPECT_EQ(m.pushConstants->size, 24u);
  EXPECT_EQ(m.pushConstants->memberOffsets,
            (std::vector<uint32_t>{0, 4, 8, 16}));
  EXPECT_EQ(m.pushConstants->memberSizes, (std::vector<uint32_t>{4, 4, 8, 8}));
  EXPECT_EQ(m.pushConstants->memberTypes,
            (std::vector<std::string>{"i32", "f32", "i64", "f64"}));
  EXPECT_EQ(*m.entryPoints.at(0).workgroupSize, (Dims{8, 4, 2}));

  ASSERT_EQ(m.resources.size(), 2u);
  const SpirvResource *out = findResource(m, 0, 0);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->kind, SpirvResource::Kind::StorageBuffer);
  EXPECT_FALSE(out->nonWritable); // writeonly is NonReadable, not NonWritable
  const SpirvResource *ubo = findResource(m, 1, 2);
  ASSERT_NE(ubo, nullptr);
  EXPECT_EQ(ubo->kind, SpirvResource::Kind::UniformBuffer);
}

TEST(SpirvReader, PushConstantAggregateSizes) {
  SpirvModule m = readFixture("push_aggregates_vk12.spv");
  ASSERT_TRUE(m.pushConstants.has_value());
  // float[3] (ArrayStride 4), vec3, mat2 (ColMajor, MatrixStride 8).
  EXPECT_EQ(m.pushConstants->memberOffsets, (std::vector<uint32_t>{0, 16, 32}));
  EXPECT_EQ(m.pushConstants->memberSizes, (std::vector<uint32_t>{12, 12, 16}));
  EXPECT_EQ(m.pushConstants->memberTypes,
            (std::vector<std::string>{"", "", ""}));
  EXPECT_EQ(m.pushConstants->size, 48u);
}

StructMember member(const char *name, ElementType type, uint32_t offset,
                    uint32_t components = 1, uint32_t count = 1,
                    uint32_t arrayStride = 0) {
  return {name, type, offset, components, count, arrayStride};
}

// Hostile modules that glslc, spirv-as and spirv-val accept: arrays of
// arrays of empty structs (1024^4 walks before the reader refused empty
// structs), and a push-constant array of 10^8 floats (which the ABI check
// once expanded entry by entry into gigabytes).
TEST(SpirvReader, EmptyStructsAreRefusedAtOnce) {
  SpirvModule m = readFixture("hostile_empty_structs.spv");
  const SpirvResource *r = findResource(m, 0, 0);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->elementStruct.has_value());
  EXPECT_NE(r->elementStructError.find("has no members"), std::string::npos)
      << r->elementStructError;
}

TEST(SpirvReader, AHugePushConstantArrayIsRefusedNotExpanded) {
  SpirvModule m = readFixture("push_huge_array_vk12.spv");
  ASSERT_TRUE(m.pushConstants.has_value());
  EXPECT_TRUE(m.pushConstants->leaves.empty());
  EXPECT_NE(
      m.pushConstants->leavesError.find(
          "the push-constant block holds 100000001 scalars; at most 1024"),
      std::string::npos)
      << m.pushConstants->leavesError;
}

TEST(SpirvReader, StructElementLayoutFromArrayStrideAndOffsets) {
  SpirvModule m = readFixture("struct_elements_vk12.spv");
  const SpirvResource *particles = findResource(m, 0, 0);
  ASSERT_NE(particles, nullptr);
  ASSERT_TRUE(particles->elementStruct.has_value())
      << particles->elementStructError;
  EXPECT_EQ(particles->elementType, "");
  const StructLayout &p = *particles->elementStruct;
  EXPECT_EQ(p.name, "Particle");
  EXPECT_EQ(p.stride, 32u);
  EXPECT_EQ(p.members, (std::vector<StructMember>{
                           member("pos", ElementType::F32, 0, 2),
                           member("vel", ElementType::F32, 8, 2),
                           member("gradientPos", ElementType::F32, 16, 4)}));
  EXPECT_EQ(describeStructLayout(p), "Particle, 32 bytes: pos vec2 at 0, vel "
                                     "vec2 at 8, gradientPos vec4 at 16");
}

TEST(SpirvReader, StructElementFlattensNestedStructsArraysAndMatrices) {
  SpirvModule m = readFixture("struct_elements_vk12.spv");
  const SpirvResource *bodies = findResource(m, 0, 1);
  ASSERT_NE(bodies, nullptr);
  ASSERT_TRUE(bodies->elementStruct.has_value()) << bodies->elementStructError;
  EXPECT_TRUE(bodies->nonWritable);
  const StructLayout &b = *bodies->elementStruct;
  EXPECT_EQ(b.name, "Body");
  EXPECT_EQ(b.stride, 40u);
  // The nested struct by dotted names, the int[3] with its ArrayStride,
  // the mat2 as two column vec2s MatrixStride apart.
  EXPECT_EQ(b.members, (std::vector<StructMember>{
                           member("mass", ElementType::F32, 0),
                           member("inner.id", ElementType::U32, 4),
                           member("inner.weight", ElementType::F32, 8),
                           member("taps", ElementType::I32, 12, 1, 3, 4),
                           member("basis", ElementType::F32, 24, 2, 2, 8)}));
  EXPECT_EQ(structMemberTypeName(b.members[3]), "int[3]");
  EXPECT_EQ(structMemberTypeName(b.members[4]), "vec2[2]");
  // A bool member: SPIR-V stores it as a uint.
  const SpirvResource *flags = findResource(m, 0, 2);
  ASSERT_NE(flags, nullptr);
  ASSERT_TRUE(flags->elementStruct.has_value());
  EXPECT_EQ(flags->elementStruct->members,
            (std::vector<StructMember>{member("on", ElementType::U32, 0)}));
}

TEST(SpirvReader, PushConstantBlockLeavesFlattenArraysAndStructs) {
  SpirvModule m = readFixture("struct_elements_vk12.spv");
  ASSERT_TRUE(m.pushConstants.has_value());
  EXPECT_EQ(m.pushConstants->memberShapes,
            (std::vector<std::string>{"an array", "a struct", ""}));
  EXPECT_EQ(
      m.pushConstants->leaves,
      (std::vector<StructMember>{member("coeffs", ElementType::F32, 0, 1, 4, 4),
                                 member("inner.id", ElementType::U32, 16),
                                 member("inner.weight", ElementType::F32, 20),
                                 member("n", ElementType::U32, 24)}));
  EXPECT_EQ(m.pushConstants->size, 28u);
}

TEST(SpirvReader, StructElementWithoutArrayStrideIsExplainedNotFatal) {
  std::vector<uint32_t> words =
      toWords(fixtureBytes("struct_elements_vk12.spv"));
  // Turn every ArrayStride decoration into a harmless one (RelaxedPrecision
  // takes no literal, so the word after it is an ignored extra operand).
  for (size_t i = 5; i + 2 < words.size(); ++i)
    if ((words[i] & 0xffff) == 71 && words[i + 2] == 6)
      words[i + 2] = 0;
  StatusOr<SpirvModule> m = readSpirv(words.data(), words.size());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const SpirvResource *particles = findResource(*m, 0, 0);
  ASSERT_NE(particles, nullptr);
  EXPECT_FALSE(particles->elementStruct.has_value());
  EXPECT_NE(particles->elementStructError.find("has no ArrayStride"),
            std::string::npos)
      << particles->elementStructError;
}

TEST(SpirvReader, ByteSwappedModuleReadsTheSame) {
  std::vector<uint32_t> words = toWords(fixtureBytes("saxpy_vk11.spv"));
  for (uint32_t &w : words)
    w = (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
  StatusOr<SpirvModule> m = readSpirv(words.data(), words.size());
  ASSERT_TRUE(m.ok()) << m.status().message();
  expectSaxpy(*m, 0x00010300);
}

TEST(SpirvReader, ReadsFreshGlslcOutputForEveryVulkanVersion) {
  auto glslc = findTool("glslc");
  if (!glslc)
    GTEST_SKIP() << "glslc not found on PATH (apt-get install glslc)";
  kb::TempDir dir = kb::testing::makeTempDir();
  struct Case {
    const char *env;
    const char *source;
    uint32_t version;
    const char *sizeSource;
  } cases[] = {
      {"vulkan1.1", "saxpy.comp", 0x00010300, "WorkgroupSize builtin"},
      {"vulkan1.2", "saxpy.comp", 0x00010500, "WorkgroupSize builtin"},
      // SPIR-V 1.6 deprecates the builtin: glslc emits LocalSizeId instead.
      {"vulkan1.3", "saxpy.comp", 0x00010600, "LocalSizeId"},
      {"vulkan1.2", "wg_spec.comp", 0x00010500, "WorkgroupSize builtin"},
      {"vulkan1.3", "wg_spec.comp", 0x00010600, "LocalSizeId"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.source) + " " + c.env);
    std::string out = dir.file("out.spv");
    auto result = kb::testing::runCommand(
        shellQuote(*glslc) + " -fshader-stage=compute --target-env=" + c.env +
            " " + shellQuote(sourcePath("common/testdata/") + c.source) +
            " -o " + shellQuote(out),
        dir.file("log"));
    ASSERT_EQ(result.exitCode, 0) << result.output;
    StatusOr<SpirvModule> m = readSpirvBytes(readFile(out));
    ASSERT_TRUE(m.ok()) << m.status().message();
    if (std::string(c.source) == "saxpy.comp") {
      expectSaxpy(*m, c.version);
    } else {
      EXPECT_EQ(m->version, c.version);
      EXPECT_EQ(*m->entryPoints.at(0).workgroupSize, (Dims{1, 2, 1}));
      EXPECT_EQ(m->entryPoints.at(0).specIds[0], std::optional<uint32_t>(3));
    }
    EXPECT_EQ(m->entryPoints.at(0).workgroupSizeSource, c.sizeSource);
  }
}

struct BadModule {
  const char *name;
  std::vector<uint32_t> words;
  const char *expected;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadModule &value, std::ostream *os) { *os << value.name; }

class SpirvReaderErrors : public ::testing::TestWithParam<BadModule> {};

TEST_P(SpirvReaderErrors, SaysWhatIsWrong) {
  const BadModule &bad = GetParam();
  StatusOr<SpirvModule> m = readSpirv(bad.words.data(), bad.words.size());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(bad.expected), std::string::npos)
      << m.status().message();
}

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kV15 = 0x00010500;
constexpr uint32_t op(uint32_t words, uint32_t opcode) {
  return words << 16 | opcode;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, SpirvReaderErrors,
    ::testing::Values(
        BadModule{"Empty", {}, "at least the 5-word header"},
        BadModule{"BadMagic", {0xdeadbeef, kV15, 0, 10, 0}, "magic number"},
        BadModule{"BadVersion",
                  {kMagic, 0x00020000, 0, 10, 0},
                  "unsupported version"},
        BadModule{"ZeroBound", {kMagic, kV15, 0, 0, 0}, "id bound is 0"},
        BadModule{"ZeroWordCount",
                  {kMagic, kV15, 0, 10, 0, op(0, 17)},
                  "word 5: instruction (opcode 17) has a word count of 0"},
        BadModule{"Overrun",
                  {kMagic, kV15, 0, 10, 0, op(9, 21), 1, 32},
                  "word 5: OpTypeInt (opcode 21) claims 9 words but only 3"},
        BadModule{"TooShort",
                  {kMagic, kV15, 0, 10, 0, op(2, 32), 1},
                  "OpTypePointer has 2 words; expected at least 4"},
        BadModule{"UnterminatedName",
                  {kMagic, kV15, 0, 10, 0, op(3, 5), 1, 0x61616161},
                  "not NUL-terminated"},
        BadModule{"IdOutOfBound",
                  {kMagic, kV15, 0, 10, 0, op(4, 21), 12, 32, 0},
                  "id 12 is outside the module's id bound 10"},
        BadModule{
            "DuplicateId",
            {kMagic, kV15, 0, 10, 0, op(4, 21), 2, 32, 0, op(3, 22), 2, 32},
            "id %2 is defined twice"},
        BadModule{"LocalSizeIdNotConstant",
                  {kMagic, kV15, 0, 10, 0, op(4, 15), 5, 1, 0, op(6, 331), 1,
                   38, 7, 7, 7},
                  "LocalSizeId operand 0 of entry point `` refers to %7, which "
                  "is not a constant"},
        BadModule{"PushConstantNotStruct",
                  {kMagic, kV15, 0, 10, 0, op(4, 21), 1, 32, 0, op(4, 32), 2, 9,
                   1, op(4, 59), 2, 3, 9},
                  "push-constant variable %3 does not point to a struct"},
        BadModule{"PushConstantMemberWithoutOffset",
                  {kMagic, kV15, 0,         10, 0, op(4, 21), 1,
                   32,     0,    op(3, 30), 2,  1, op(4, 32), 3,
                   9,      2,    op(4, 59), 3,  4, 9},
                  "push-constant member 0 has no Offset decoration"},
        BadModule{"TypeCycle",
                  {kMagic,    kV15,      0, 10,        0, op(3, 30), 2,  3,
                   op(3, 30), 3,         2, op(5, 72), 2, 0,         35, 0,
                   op(5, 72), 3,         0, 35,        0, op(3, 30), 4,  2,
                   op(5, 72), 4,         0, 35,        0, op(4, 32), 5,  9,
                   4,         op(4, 59), 5, 6,         9},
                  "nested too deeply"},
        BadModule{"ResourceWithoutBinding",
                  {kMagic, kV15, 0, 10, 0, op(2, 26), 1, op(4, 32), 2, 0, 1,
                   op(4, 59), 2, 3, 0},
                  "resource variable %3 has no DescriptorSet/Binding"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(SpirvReader, BytesNotAMultipleOfFour) {
  StatusOr<SpirvModule> m = readSpirvBytes(std::string(7, '\0'));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("7 bytes, not a multiple of 4"),
            std::string::npos);
}

const char *const kFixtures[] = {
    "saxpy_vk10.spv",           "saxpy_vk11.spv",
    "wg_spec_vk11.spv",         "wg_spec_vk12.spv",
    "wg_spec_vk13.spv",         "push_constants_vk12.spv",
    "push_aggregates_vk12.spv", "element_types_vk11.spv",
    "struct_elements_vk12.spv"};

TEST(SpirvReader, EveryPrefixOfEveryFixtureIsHandled) {
  for (const char *name : kFixtures) {
    SCOPED_TRACE(name);
    std::string bytes = fixtureBytes(name);
    ASSERT_FALSE(bytes.empty());
    for (size_t n = 0; n < bytes.size(); ++n) {
      StatusOr<SpirvModule> m = readSpirvBytes(bytes.substr(0, n));
      if (n % 4 != 0 || n < 20) {
        EXPECT_FALSE(m.ok()) << n;
      }
    }
  }
}

TEST(SpirvReader, RandomWordMutationsNeverCrash) {
  std::mt19937 rng(42);
  const uint32_t interesting[] = {
      0,  1,  3,  5,  9,      11,         17,         25,
      35, 38, 71, 72, 0xffff, 0xffffffff, 0x00010000, 0x00020000};
  for (const char *name : kFixtures) {
    std::vector<uint32_t> original = toWords(fixtureBytes(name));
    ASSERT_GT(original.size(), 5u);
    for (int iter = 0; iter < 1500; ++iter) {
      std::vector<uint32_t> words = original;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        size_t pos = 5 + rng() % (words.size() - 5);
        words[pos] = rng() % 2 ? interesting[rng() % std::size(interesting)]
                               : static_cast<uint32_t>(rng());
      }
      StatusOr<SpirvModule> m = readSpirv(words.data(), words.size());
      if (!m.ok()) {
        EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument);
      }
    }
  }
}

} // namespace
} // namespace kb

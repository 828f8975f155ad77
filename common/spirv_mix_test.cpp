//===- common/spirv_mix_test.cpp ------------------------------------------===//
#include "common/spirv_mix.h"
#include "common/test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

namespace kb {
namespace {

using ::kb::testing::findTool;
using ::kb::testing::readFile;
using ::kb::testing::runCommand;
using ::kb::testing::shellQuote;

constexpr const char *kScalarCopy = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { float dst[]; };
shared float tile[64];
void main() {
  uint i = gl_GlobalInvocationID.x;
  tile[gl_LocalInvocationID.x] = src[i];
  barrier();
  dst[i] = fma(tile[gl_LocalInvocationID.x], 2.0, 1.0);
}
)";

constexpr const char *kVectorCopy = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { vec4 dst[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < 1024u)
    dst[i] = src[i];
}
)";

/// |glsl| compiled by glslc for Vulkan 1.2; empty (and the test skipped by
/// the caller) without glslc.
std::string compile(const TempDir &dir, const std::string &name,
                    const std::string &glsl) {
  std::optional<std::string> glslc = findTool("glslc");
  if (!glslc)
    return {};
  std::ofstream(dir.file(name + ".comp")) << glsl;
  testing::CommandResult r =
      runCommand(shellQuote(*glslc) + " --target-env=vulkan1.2 -O " +
                     shellQuote(dir.file(name + ".comp")) + " -o " +
                     shellQuote(dir.file(name + ".spv")),
                 dir.file(name + ".log"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return readFile(dir.file(name + ".spv"));
}

TEST(SpirvMixTest, BufferAccessesByTypeAndTheOtherClasses) {
  TempDir dir = testing::makeTempDir();
  std::string scalar = compile(dir, "scalar", kScalarCopy);
  std::string vector = compile(dir, "vector", kVectorCopy);
  if (scalar.empty() || vector.empty())
    GTEST_SKIP() << "glslc not found";
  StatusOr<SpirvInstructionMix> s = countSpirvInstructions(scalar);
  StatusOr<SpirvInstructionMix> v = countSpirvInstructions(vector);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(s->bufferLoads["OpLoad StorageBuffer f32"], 1u);
  EXPECT_EQ(s->bufferStores["OpStore StorageBuffer f32"], 1u);
  EXPECT_EQ(v->bufferLoads["OpLoad StorageBuffer vec4<f32>"], 1u);
  EXPECT_EQ(v->bufferStores["OpStore StorageBuffer vec4<f32>"], 1u);
  EXPECT_EQ(spirvVectorWidth("OpLoad StorageBuffer vec4<f32>"), 4u);
  EXPECT_EQ(spirvVectorWidth("OpLoad StorageBuffer f32"), 1u);
  EXPECT_EQ(s->workgroupOps, 2u); // the store to tile and the load from it
  EXPECT_EQ(s->barriers, 1u);
  EXPECT_EQ(s->fma, 1u);
  EXPECT_EQ(v->workgroupOps, 0u);
  EXPECT_GE(v->branches, 1u);
  EXPECT_EQ(v->opcodes["OpBranchConditional"], 1u);
}

/// Every opcode the table names is counted as spirv-dis counts it: the
/// table's numbers are the specification's.
TEST(SpirvMixTest, CountsAgreeWithSpirvDis) {
  std::optional<std::string> dis = findTool("spirv-dis");
  TempDir dir = testing::makeTempDir();
  std::string scalar = compile(dir, "scalar", kScalarCopy);
  if (!dis || scalar.empty())
    GTEST_SKIP() << "glslc or spirv-dis not found";
  testing::CommandResult text =
      runCommand(shellQuote(*dis) + " " + shellQuote(dir.file("scalar.spv")),
                 dir.file("dis.log"));
  ASSERT_EQ(text.exitCode, 0) << text.output;
  StatusOr<SpirvInstructionMix> mix = countSpirvInstructions(scalar);
  ASSERT_TRUE(mix.ok());
  std::string body = text.output.substr(text.output.find("OpFunction "));
  for (const auto &[name, count] : mix->opcodes) {
    std::regex op("(^|\\s)" + name + "(\\s|$)");
    size_t seen =
        std::distance(std::sregex_iterator(body.begin(), body.end(), op), {});
    EXPECT_EQ(seen, count) << name;
  }
}

TEST(SpirvMixTest, MalformedInputNamesTheProblem) {
  StatusOr<SpirvInstructionMix> odd = countSpirvInstructions("abc");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("3 bytes"), std::string::npos);
  std::string words(24, '\0');
  const uint32_t header[6] = {0x07230203, 0x10500, 0, 10, 0, (5u << 16) | 17};
  std::memcpy(words.data(), header, sizeof(header));
  StatusOr<SpirvInstructionMix> cut = countSpirvInstructions(words);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("word 5"), std::string::npos);
  std::string notSpirv(20, 'x');
  EXPECT_FALSE(countSpirvInstructions(notSpirv).ok());
}

} // namespace
} // namespace kb

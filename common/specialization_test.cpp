//===- common/specialization_test.cpp -------------------------------------===//
// [specialization] resolved against SPIR-V that glslc compiles here (the
// test skips without glslc): names, local_size_x, SpecIds, every value type
// and every way a setting can be wrong; the ABI check on the specialized
// workgroup size.
#include "common/specialization.h"

#include "common/abi_check.h"
#include "common/test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

namespace kb {
namespace {

using ::kb::testing::findTool;
using ::kb::testing::readFile;
using ::kb::testing::shellQuote;
using ::testing::HasSubstr;

// As public Vulkan libraries write them: the workgroup size by
// local_size_x_id (glslc leaves that constant unnamed), tuning knobs by
// constant_id, one of each type.
constexpr const char *kShader = R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TILE = 4;
layout(constant_id = 2) const float SCALE = 1.5;
layout(constant_id = 3) const bool FLAG = false;
layout(constant_id = 4) const int OFFSET = -2;
layout(constant_id = 5) const int64_t BIG = 7;
layout(set = 0, binding = 0) buffer Data { float data[]; };
void main() {
  uint i = gl_GlobalInvocationID.x * TILE;
  data[i] = FLAG ? SCALE * float(OFFSET) : float(BIG + int64_t(gl_WorkGroupSize.x));
}
)";

class SpecializationTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto glslc = findTool("glslc");
    if (!glslc)
      GTEST_SKIP() << "glslc is not installed";
    std::string src = dir_.file("k.comp"), spv = dir_.file("k.spv");
    std::ofstream(src) << kShader;
    auto r = ::kb::testing::runCommand(
        shellQuote(*glslc) + " --target-env=vulkan1.2 -o " + shellQuote(spv) +
            " " + shellQuote(src),
        dir_.file("log"));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto module = readSpirvBytes(readFile(spv));
    ASSERT_TRUE(module.ok()) << module.status().message();
    spirv_ = *module;
  }

  StatusOr<std::vector<SpecializationValue>>
  resolve(std::vector<SpecializationSetting> settings) {
    return resolveSpecialization(spirv_, "main", settings);
  }
  std::string error(std::vector<SpecializationSetting> settings) {
    auto r = resolve(std::move(settings));
    EXPECT_FALSE(r.ok());
    return r.ok() ? "" : r.status().message();
  }

  ::kb::TempDir dir_ = ::kb::testing::makeTempDir();
  SpirvModule spirv_;
};

TEST_F(SpecializationTest, ReaderListsScalarSpecConstantsWithTypes) {
  ASSERT_EQ(spirv_.specConstants.size(), 6u);
  const auto &c = spirv_.specConstants;
  EXPECT_EQ(c[0].specId, 0u); // local_size_x_id: unnamed
  EXPECT_EQ(c[0].type, "u32");
  EXPECT_EQ(c[1].name, "TILE");
  EXPECT_EQ(c[1].type, "u32");
  EXPECT_EQ(c[1].defaultBits, 4u);
  EXPECT_EQ(c[2].type, "f32");
  EXPECT_EQ(c[3].type, "bool");
  EXPECT_EQ(c[4].type, "i32");
  EXPECT_EQ(c[5].type, "i64");
}

TEST_F(SpecializationTest, ByNameByDimensionAndBySpecId) {
  auto values = resolve({{"TILE", "16"},
                         {"local_size_x", "128"},
                         {"2", "0.25"},
                         {"FLAG", "true"},
                         {"OFFSET", "-7"},
                         {"BIG", "-5000000000"}});
  ASSERT_TRUE(values.ok()) << values.status().message();
  ASSERT_EQ(values->size(), 6u);
  const auto &v = *values; // sorted by SpecId
  EXPECT_EQ(v[0].id, 0u);
  EXPECT_EQ(v[0].bits, 128u);
  EXPECT_EQ(v[0].size, 4u);
  EXPECT_EQ(v[1].id, 1u);
  EXPECT_EQ(v[1].bits, 16u);
  float quarter = 0.25f;
  uint32_t quarterBits;
  std::memcpy(&quarterBits, &quarter, 4);
  EXPECT_EQ(v[2].bits, quarterBits);
  EXPECT_EQ(v[3].bits, 1u);
  EXPECT_EQ(v[3].size, 4u); // VkBool32
  EXPECT_EQ(v[4].bits, uint32_t(-7));
  EXPECT_EQ(v[5].size, 8u);
  EXPECT_EQ(v[5].bits, uint64_t(int64_t(-5000000000)));

  const SpirvEntryPoint *ep = spirv_.findEntryPoint("main");
  ASSERT_NE(ep, nullptr);
  auto size = specializedWorkgroupSize(*ep, v);
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ((*size)[0], 128u);
}

TEST_F(SpecializationTest, UnknownNameListsWhatTheModuleDeclares) {
  std::string e = error({{"TILES", "8"}});
  EXPECT_THAT(e, HasSubstr("`TILES`"));
  EXPECT_THAT(e, HasSubstr("no specialization constant has this name"));
  EXPECT_THAT(e, HasSubstr("TILE (SpecId 1, u32, default 4)"));
  EXPECT_THAT(e, HasSubstr("local_size_x (SpecId 0, u32, default 1)"));
  EXPECT_THAT(error({{"9", "1"}}), HasSubstr("no specialization constant "
                                             "with SpecId 9"));
  EXPECT_THAT(error({{"local_size_y", "2"}}),
              HasSubstr("not a specialization constant in this dimension"));
}

TEST_F(SpecializationTest, ValueMustFitTheShadersType) {
  EXPECT_THAT(error({{"TILE", "-1"}}),
              HasSubstr("is u32; expected an integer from 0 to 4294967295"));
  EXPECT_THAT(error({{"TILE", "4294967296"}}), HasSubstr("is u32"));
  EXPECT_THAT(error({{"TILE", "1.5"}}), HasSubstr("is u32"));
  EXPECT_THAT(error({{"TILE", "true"}}), HasSubstr("is u32"));
  EXPECT_THAT(error({{"OFFSET", "2147483648"}}), HasSubstr("is i32"));
  EXPECT_THAT(error({{"FLAG", "1"}}), HasSubstr("expected true or false"));
  EXPECT_THAT(error({{"SCALE", "1e39"}}),
              HasSubstr("within the range of a 32-bit float"));
  EXPECT_THAT(error({{"SCALE", "abc"}}), HasSubstr("is f32"));
}

TEST_F(SpecializationTest, TwoKeysForOneConstantIsAnError) {
  EXPECT_THAT(error({{"TILE", "8"}, {"1", "8"}}),
              HasSubstr("`1` and `TILE` both set specialization constant "
                        "SpecId 1"));
}

TEST_F(SpecializationTest, AbiCheckSeesTheSpecializedWorkgroupSize) {
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"data", ElementType::F32, Access::ReadWrite}};
  abi.workgroupSize = {64, 1, 1};
  // Unspecialized: the default (1) is what would run, and the message says
  // how to set it.
  auto mismatches = checkSpirvAbi(spirv_, abi);
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_THAT(mismatches[0].message, HasSubstr("found 1x1x1"));
  EXPECT_THAT(mismatches[0].message,
              HasSubstr("set it in [specialization] as local_size_x"));
  auto values = resolve({{"local_size_x", "64"}});
  ASSERT_TRUE(values.ok());
  abi.specialization = *values;
  EXPECT_TRUE(checkSpirvAbi(spirv_, abi).empty());
  abi.workgroupSize = {32, 1, 1};
  mismatches = checkSpirvAbi(spirv_, abi);
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_THAT(mismatches[0].message, HasSubstr("found 64x1x1"));
  EXPECT_THAT(mismatches[0].message, HasSubstr("set by [specialization]"));
}

TEST(SpecializationSettingTest, TextRoundTrip) {
  auto s = parseSpecializationSetting("TILE=8");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->key, "TILE");
  EXPECT_EQ(s->value, "8");
  EXPECT_EQ(formatSpecializationSetting(*s), "TILE=8");
  EXPECT_EQ(parseSpecializationSetting("SCALE=-1.5e3")->value, "-1.5e3");
  EXPECT_FALSE(parseSpecializationSetting("TILE").has_value());
  EXPECT_FALSE(parseSpecializationSetting("=8").has_value());
  EXPECT_FALSE(parseSpecializationSetting("TILE=").has_value());
}

} // namespace
} // namespace kb

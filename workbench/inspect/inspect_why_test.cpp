//===- workbench/inspect/inspect_why_test.cpp -----------------------------===//
#include "workbench/inspect/inspect_why.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

VariantInspection cuda(const std::string &role, const std::string &ptx) {
  VariantInspection v;
  v.role = v.label = role;
  v.format = "ptx";
  v.ptx = countPtxInstructions(ptx);
  return v;
}

constexpr const char *kScalar = "ld.global.f32 %f1, [%rd1];\n"
                                "ld.global.f32 %f2, [%rd2];\n"
                                "st.global.f32 [%rd3], %f1;\n";
constexpr const char *kVector =
    "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
    "ld.global.nc.f32 %f5, [%rd2];\n"
    "st.global.v4.f32 [%rd3], {%f1, %f2, %f3, %f4};\n";

TEST(InspectWhyTest, ScalarLoadsAgainstVectorLoadsNameTheWidths) {
  std::vector<std::string> why = explainDifferences(cuda("candidate", kScalar),
                                                    cuda("reference", kVector));
  ASSERT_GE(why.size(), 2u);
  EXPECT_EQ(why[0], "scalar loads (ld.global.f32 \u00D72) where the reference "
                    "uses ld.global.v4.f32");
  EXPECT_EQ(why[1], "scalar stores (st.global.f32 \u00D71) where the reference "
                    "uses st.global.v4.f32");
}

TEST(InspectWhyTest, WiderAccessesAreSaidToo) {
  std::vector<std::string> why = explainDifferences(cuda("candidate", kVector),
                                                    cuda("reference", kScalar));
  EXPECT_EQ(why[0], "wider loads (ld.global.v4.f32 \u00D71) where the "
                    "reference uses ld.global.f32");
}

TEST(InspectWhyTest, SpillsAndOccupancyFromPtxasFigures) {
  VariantInspection cand = cuda("candidate", kScalar);
  VariantInspection ref = cuda("reference", kScalar);
  cand.resources = ResourceUsage{128, 0, 16, 8, 0, 0, 0};
  ref.resources = ResourceUsage{32, 0, 0, 0, 0, 0, 0};
  cand.occupancy = 0.25;
  ref.occupancy = 1.0;
  EXPECT_THAT(explainDifferences(cand, ref),
              ElementsAre("spills 16 bytes stored, 8 loaded where the "
                          "reference spills 0 and 0",
                          "theoretical occupancy 25% (128 registers, 0 bytes "
                          "shared) where the reference reaches 100% (32 "
                          "registers, 0 bytes shared)"));
}

TEST(InspectWhyTest, SpirvBufferAccessesByType) {
  VariantInspection cand, ref;
  cand.spirv.emplace();
  ref.spirv.emplace();
  cand.spirv->bufferLoads["OpLoad StorageBuffer f32"] = 4;
  ref.spirv->bufferLoads["OpLoad StorageBuffer vec4<f32>"] = 1;
  ref.spirv->barriers = 1;
  std::vector<std::string> why = explainDifferences(cand, ref);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_EQ(why[0], "scalar loads (OpLoad StorageBuffer f32 \u00D74) where the "
                    "reference uses OpLoad StorageBuffer vec4<f32>");
  EXPECT_EQ(why[1], "no barriers where the reference has 1");
}

TEST(InspectWhyTest, SameCodeSaysNoDifference) {
  std::vector<std::string> why = explainDifferences(cuda("candidate", kVector),
                                                    cuda("reference", kVector));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_THAT(why[0], HasSubstr("no difference"));
}

} // namespace
} // namespace kb::workbench

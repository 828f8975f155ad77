//===- common/target_test.cpp ---------------------------------------------===//
#include "common/target.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

const int kValidSms[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

/// Every valid spelling: sm_XX, sm_XXa from 90, sm_XXf from 100, vulkan:1.X.
std::vector<std::string> allValidTargets() {
  std::vector<std::string> out;
  for (int sm : kValidSms) {
    out.push_back("cuda:sm_" + std::to_string(sm));
    if (sm >= 90)
      out.push_back("cuda:sm_" + std::to_string(sm) + "a");
    if (sm >= 100)
      out.push_back("cuda:sm_" + std::to_string(sm) + "f");
  }
  for (int minor = 0; minor <= 3; ++minor)
    out.push_back("vulkan:1." + std::to_string(minor));
  return out;
}

TEST(TargetTest, EveryValidFormRoundTrips) {
  std::vector<std::string> valid = allValidTargets();
  EXPECT_EQ(valid.size(), 12u + 6u + 5u + 4u);
  for (const std::string &text : valid) {
    StatusOr<Target> target = Target::parse(text);
    ASSERT_TRUE(target.ok()) << text << ": " << target.status().message();
    EXPECT_EQ(target->toString(), text);
    StatusOr<Target> fromArch =
        Target::fromArch(target->kind(), target->arch());
    ASSERT_TRUE(fromArch.ok()) << fromArch.status().message();
    EXPECT_EQ(*fromArch, *target) << text;
    StatusOr<Target> built =
        target->isCuda()
            ? Target::cuda(target->smNumber(), target->smSuffix())
            : Target::vulkan(target->vulkanMajor(), target->vulkanMinor());
    ASSERT_TRUE(built.ok()) << built.status().message();
    EXPECT_EQ(*built, *target) << text;
    // Every valid target appears in the message that lists them.
    std::string listed = text.substr(
        0, text.size() - (text.back() == 'a' || text.back() == 'f'));
    EXPECT_NE(validTargetsText().find(listed), std::string::npos) << listed;
  }
}

TEST(TargetTest, CudaNames) {
  Target sm90 = *Target::parse("cuda:sm_90");
  EXPECT_TRUE(sm90.isCuda());
  EXPECT_FALSE(sm90.isVulkan());
  EXPECT_EQ(sm90.kind(), Target::Kind::Cuda);
  EXPECT_STREQ(sm90.kindName(), "cuda");
  EXPECT_EQ(sm90.arch(), "sm_90");
  EXPECT_EQ(sm90.fileStem(), "sm_90");
  EXPECT_EQ(sm90.variantName(), "cuda_sm_90");
  EXPECT_EQ(sm90.smNumber(), 90);
  EXPECT_EQ(sm90.smSuffix(), 0);
  EXPECT_EQ(sm90.vulkanMajor(), 0u);
  EXPECT_EQ(sm90.spirvEnvironment().version, 0u);

  Target sm100f = *Target::parse("cuda:sm_100f");
  EXPECT_EQ(sm100f.arch(), "sm_100f");
  EXPECT_EQ(sm100f.variantName(), "cuda_sm_100f");
  EXPECT_EQ(sm100f.smNumber(), 100);
  EXPECT_EQ(sm100f.smSuffix(), 'f');
}

TEST(TargetTest, VulkanNames) {
  Target v12 = *Target::parse("vulkan:1.2");
  EXPECT_TRUE(v12.isVulkan());
  EXPECT_STREQ(v12.kindName(), "vulkan");
  EXPECT_EQ(v12.arch(), "vulkan1.2");
  EXPECT_EQ(v12.fileStem(), "vulkan1.2");
  EXPECT_EQ(v12.variantName(), "vulkan_1_2");
  EXPECT_EQ(v12.vulkanMajor(), 1u);
  EXPECT_EQ(v12.vulkanMinor(), 2u);
  EXPECT_EQ(v12.smNumber(), 0);
  EXPECT_EQ(*Target::fromArch(Target::Kind::Vulkan, "vulkan1.2"), v12);
}

TEST(TargetTest, SpirvVersionPerVulkanVersion) {
  EXPECT_EQ(maxSpirvVersionForVulkan(1, 0), 0x00010000u);
  EXPECT_EQ(maxSpirvVersionForVulkan(1, 1), 0x00010300u);
  EXPECT_EQ(maxSpirvVersionForVulkan(1, 2), 0x00010500u);
  EXPECT_EQ(maxSpirvVersionForVulkan(1, 3), 0x00010600u);
  // A device newer than any build target still takes SPIR-V 1.6.
  EXPECT_EQ(maxSpirvVersionForVulkan(1, 4), 0x00010600u);
  EXPECT_EQ(spirvVersionText(0x00010500), "1.5");
  for (uint32_t minor = 0; minor <= 3; ++minor)
    EXPECT_EQ(Target::vulkan(1, minor)->spirvEnvironment().version,
              maxSpirvVersionForVulkan(1, minor));
}

bool hasCapability(const SpirvEnvironment &env, uint32_t id) {
  for (const SpirvCapability &c : env.capabilities)
    if (c.id == id)
      return true;
  return false;
}

TEST(TargetTest, SpirvCapabilitiesFollowCorePromotions) {
  SpirvEnvironment v10 = Target::vulkan(1, 0)->spirvEnvironment();
  EXPECT_TRUE(hasCapability(v10, 1));     // Shader
  EXPECT_TRUE(hasCapability(v10, 11));    // Int64
  EXPECT_FALSE(hasCapability(v10, 4433)); // StorageBuffer16BitAccess: 1.1
  EXPECT_FALSE(hasCapability(v10, 9));    // Float16: 1.2
  SpirvEnvironment v11 = Target::vulkan(1, 1)->spirvEnvironment();
  EXPECT_TRUE(hasCapability(v11, 4433));
  EXPECT_FALSE(hasCapability(v11, 39)); // Int8: 1.2
  SpirvEnvironment v13 = Target::vulkan(1, 3)->spirvEnvironment();
  for (uint32_t id : {1u, 9u, 10u, 11u, 22u, 39u, 4433u, 4448u})
    EXPECT_TRUE(hasCapability(v13, id)) << id;
  EXPECT_EQ(v13.extensions.size(), 3u);
}

TEST(TargetTest, InvalidFormsSayWhyAndListTheValidOnes) {
  struct Case {
    const char *text;
    const char *why;
  };
  const Case cases[] = {
      {"", "missing `cuda:` or `vulkan:` prefix"},
      {"sm_90", "missing `cuda:` or `vulkan:` prefix"},
      {"cuda:", "`` is not of the form sm_XX"},
      {"cuda:90", "`90` is not of the form sm_XX"},
      {"cuda:compute_90", "`compute_90` is not of the form sm_XX"},
      {"cuda:sm_9x", "`sm_9x` is not of the form sm_XX"},
      {"cuda:sm_090", "`sm_090` is not of the form sm_XX"},
      {"cuda:sm_1000", "`sm_1000` is not of the form sm_XX"},
      {"cuda:sm_90b", "`sm_90b` is not of the form sm_XX"},
      {"cuda:SM_90", "`SM_90` is not of the form sm_XX"},
      {"cuda:sm_52", "sm_52 is not an architecture CUDA 13 compiles for"},
      {"cuda:sm_76", "sm_76 is not an architecture CUDA 13 compiles for"},
      {"cuda:sm_99", "sm_99 is not an architecture CUDA 13 compiles for"},
      {"cuda:sm_80a", "sm_80a does not exist"},
      {"cuda:sm_90f", "sm_90f does not exist"},
      {"vulkan:1.4", "unsupported Vulkan version `1.4`"},
      {"vulkan:12", "unsupported Vulkan version `12`"},
      {"vulkan:2.0", "unsupported Vulkan version `2.0`"},
      {"vulkan:1.", "unsupported Vulkan version `1.`"},
      {"vulkan:1.10", "unsupported Vulkan version `1.10`"},
      {"vulkan:", "unsupported Vulkan version ``"},
      {"vulkan:vulkan1.2", "unsupported Vulkan version `vulkan1.2`"},
      {"metal:3", "unknown target kind `metal` (expected `cuda` or `vulkan`)"},
      {"CUDA:sm_90", "unknown target kind `CUDA`"},
      {" cuda:sm_90", "unknown target kind ` cuda`"},
  };
  for (const Case &c : cases) {
    StatusOr<Target> target = Target::parse(c.text);
    ASSERT_FALSE(target.ok()) << c.text;
    EXPECT_EQ(target.status().code(), StatusCode::InvalidArgument);
    const std::string &message = target.status().message();
    EXPECT_EQ(
        message.rfind(std::string("invalid target `") + c.text + "`: ", 0), 0u)
        << message;
    EXPECT_NE(message.find(c.why), std::string::npos) << message;
    EXPECT_NE(message.find("; valid targets: " + validTargetsText()),
              std::string::npos)
        << message;
  }
}

TEST(TargetTest, ValidTargetsTextListsEveryTarget) {
  EXPECT_EQ(validTargetsText(),
            "cuda:sm_75, cuda:sm_80, cuda:sm_86, cuda:sm_87, cuda:sm_88, "
            "cuda:sm_89, cuda:sm_90, cuda:sm_100, cuda:sm_103, cuda:sm_110, "
            "cuda:sm_120, cuda:sm_121 (also sm_XXa from sm_90, sm_XXf from "
            "sm_100), vulkan:1.0, vulkan:1.1, vulkan:1.2, vulkan:1.3");
}

TEST(TargetTest, FromArchRejectsTheOtherKindsSpelling) {
  for (auto [kind, arch] : std::vector<std::pair<Target::Kind, const char *>>{
           {Target::Kind::Cuda, "vulkan1.2"},
           {Target::Kind::Cuda, "sm_20"},
           {Target::Kind::Cuda, "cuda:sm_90"},
           {Target::Kind::Vulkan, "1.2"},
           {Target::Kind::Vulkan, "sm_90"},
           {Target::Kind::Vulkan, "vulkan1.4"}}) {
    StatusOr<Target> target = Target::fromArch(kind, arch);
    ASSERT_FALSE(target.ok()) << arch;
    EXPECT_NE(target.status().message().find(std::string("`") + arch + "`"),
              std::string::npos)
        << target.status().message();
    EXPECT_NE(target.status().message().find("vulkan:1.3"), std::string::npos);
  }
}

TEST(TargetTest, FactoriesCheckRanges) {
  EXPECT_FALSE(Target::cuda(76).ok());
  EXPECT_FALSE(Target::cuda(80, 'a').ok());
  EXPECT_FALSE(Target::cuda(90, 'f').ok());
  EXPECT_FALSE(Target::cuda(90, 'x').ok());
  EXPECT_TRUE(Target::cuda(90, 'a').ok());
  EXPECT_FALSE(Target::vulkan(1, 4).ok());
  EXPECT_FALSE(Target::vulkan(2, 0).ok());
  EXPECT_NE(Target::cuda(76).status().message().find("`cuda:sm_76`"),
            std::string::npos);
}

TEST(TargetTest, SmArchIsLexicalOnly) {
  // PTX may target an architecture older than any build target.
  std::optional<SmArch> sm52 = parseSmArch("sm_52");
  ASSERT_TRUE(sm52);
  EXPECT_EQ(sm52->number, 52);
  EXPECT_EQ(sm52->suffix, 0);
  std::optional<SmArch> sm90a = parseSmArch("sm_90a");
  ASSERT_TRUE(sm90a);
  EXPECT_EQ(sm90a->number, 90);
  EXPECT_EQ(sm90a->suffix, 'a');
  EXPECT_EQ(parseSmArch("sm_121f")->number, 121);
  for (const char *bad : {"", "sm_", "sm_a", "sm90", "compute_90", "sm_9x",
                          "sm_0", "sm_1000", "sm_90af", " sm_90", "sm_90 "})
    EXPECT_FALSE(parseSmArch(bad)) << bad;
}

TEST(TargetTest, OrdersByKindThenNumber) {
  Target sm90 = *Target::parse("cuda:sm_90");
  Target sm90a = *Target::parse("cuda:sm_90a");
  Target sm100 = *Target::parse("cuda:sm_100");
  Target v12 = *Target::parse("vulkan:1.2");
  EXPECT_TRUE(sm90 < sm90a);
  EXPECT_TRUE(sm90a < sm100);
  EXPECT_TRUE(sm100 < v12);
  EXPECT_FALSE(v12 < sm90);
  EXPECT_TRUE(sm90 == *Target::parse("cuda:sm_90"));
  EXPECT_TRUE(sm90 != sm90a);
}

} // namespace
} // namespace kb

//===- toolchains/target_test.cpp -----------------------------------------===//

#include "toolchains/target.h"

#include <gtest/gtest.h>

namespace kb::toolchains {
namespace {

TEST(TargetTest, ParsesCudaForms) {
  for (const char *text : {"cuda:sm_75", "cuda:sm_90", "cuda:sm_90a",
                           "cuda:sm_100f", "cuda:sm_121", "cuda:sm_121a"}) {
    auto target = Target::parse(text);
    ASSERT_TRUE(target.ok()) << text << ": " << target.status().message();
    EXPECT_EQ(target->kind, Target::Kind::Cuda);
    EXPECT_EQ(target->toString(), text);
  }
  auto sm90 = Target::parse("cuda:sm_90");
  EXPECT_EQ(sm90->arch, "sm_90");
  EXPECT_EQ(sm90->fileStem(), "sm_90");
  EXPECT_EQ(sm90->vulkanEnv(), "");
}

TEST(TargetTest, ParsesVulkanForms) {
  auto target = Target::parse("vulkan:1.2");
  ASSERT_TRUE(target.ok()) << target.status().message();
  EXPECT_EQ(target->kind, Target::Kind::Vulkan);
  EXPECT_EQ(target->arch, "1.2");
  EXPECT_EQ(target->vulkanEnv(), "vulkan1.2");
  EXPECT_EQ(target->fileStem(), "vulkan1.2");
  EXPECT_EQ(target->toString(), "vulkan:1.2");
  EXPECT_TRUE(Target::parse("vulkan:1.0").ok());
  EXPECT_TRUE(Target::parse("vulkan:1.3").ok());
}

TEST(TargetTest, RejectsGarbageListingValidForms) {
  for (const char *text :
       {"", "sm_90", "cuda:", "cuda:90", "cuda:sm_52", "cuda:sm_99",
        "cuda:sm_80a", "cuda:sm_90f", "cuda:sm_9x", "cuda:compute_90",
        "vulkan:1.4", "vulkan:12", "metal:3", "cuda:sm_1000"}) {
    auto target = Target::parse(text);
    ASSERT_FALSE(target.ok()) << text;
    EXPECT_EQ(target.status().code(), StatusCode::InvalidArgument);
    const std::string &message = target.status().message();
    EXPECT_NE(message.find(std::string("`") + text + "`"), std::string::npos)
        << message;
    EXPECT_NE(message.find("sm_75"), std::string::npos) << message;
    EXPECT_NE(message.find("vulkan:1.3"), std::string::npos) << message;
  }
}

TEST(TargetTest, OrdersAndCompares) {
  auto a = *Target::parse("cuda:sm_90");
  auto b = *Target::parse("vulkan:1.2");
  EXPECT_TRUE(a < b);
  EXPECT_FALSE(b < a);
  EXPECT_TRUE(a == *Target::parse("cuda:sm_90"));
}

} // namespace
} // namespace kb::toolchains

//===- runtime/hal/drivers/vulkan/vulkan_driver_test.cpp - Vulkan specifics
//===//
//
// What only the Vulkan driver does: refusing SPIR-V that declares a
// capability, extension or version the device cannot take, before any
// driver call (drivers need not reject them; Mesa's front end only warns).
// The pure checks run everywhere; the device tests run on lavapipe and skip
// where no Vulkan device exists.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/cts/cts_support.h"
#include "runtime/hal/drivers/vulkan/spirv_features.h"
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kb::hal::vulkan {
namespace {

/// |spirv| with |words| inserted right after the 5-word header, where
/// OpCapability and OpExtension belong.
std::string withPreamble(const std::string &spirv,
                         const std::vector<uint32_t> &words) {
  std::string extra(words.size() * 4, '\0');
  std::memcpy(extra.data(), words.data(), extra.size());
  return spirv.substr(0, 20) + extra + spirv.substr(20);
}

std::vector<uint32_t> opExtension(const std::string &name) {
  std::vector<uint32_t> words((name.size() + 4) / 4 + 1, 0);
  std::memcpy(words.data() + 1, name.data(), name.size());
  words[0] = (uint32_t(words.size()) << 16) | 10;
  return words;
}

constexpr uint32_t kOpCapability = (2u << 16) | 17;

EnabledFeatures vulkan12Features() {
  EnabledFeatures f;
  f.apiVersion = VK_API_VERSION_1_2;
  f.core.shaderInt64 = VK_TRUE;
  f.v11.storageBuffer16BitAccess = VK_TRUE;
  f.computeSubgroupOperations = VK_SUBGROUP_FEATURE_BASIC_BIT;
  return f;
}

TEST(SpirvRequirements, AcceptsWhatTheDeviceHas) {
  SpirvRequirements r;
  r.version = 0x00010500;
  r.capabilities = {1, 11, 4433, 61};
  r.extensions = {"SPV_KHR_16bit_storage",
                  "SPV_KHR_storage_buffer_storage_class"};
  Status s = checkSpirvRequirements(r, vulkan12Features(), "dev", "exe");
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(SpirvRequirements, NamesEachMissingFeatureVersionAndExtension) {
  SpirvRequirements r;
  r.version = 0x00010600; // needs Vulkan 1.3
  r.capabilities = {1, 10 /*Float64*/, 63 /*GroupNonUniformArithmetic*/,
                    4423 /*SubgroupBallotKHR: extension only*/};
  r.extensions = {"SPV_KHR_shader_ballot", "SPV_KHR_integer_dot_product"};
  Status s = checkSpirvRequirements(r, vulkan12Features(), "Some GPU",
                                    "executable `x` (vulkan1.2)");
  ASSERT_EQ(s.code(), StatusCode::InvalidArgument);
  const std::string &m = s.message();
  for (const char *expected :
       {"executable `x` (vulkan1.2)", "Some GPU", "before any driver call",
        "SPIR-V 1.6 is newer than the SPIR-V 1.5 that Vulkan 1.2 takes",
        "capability Float64 (10) needs the device feature shaderFloat64",
        "capability GroupNonUniformArithmetic (63) needs subgroup operation",
        "capability 4423 is not one a compute kernel can use",
        "extension SPV_KHR_shader_ballot needs a Vulkan device extension",
        "extension SPV_KHR_integer_dot_product needs Vulkan 1.3; the device "
        "has 1.2"})
    EXPECT_NE(m.find(expected), std::string::npos)
        << "missing: " << expected << "\nin: " << m;
}

TEST(SpirvRequirements, MalformedPreambleIsAnError) {
  std::string header(20, '\0');
  uint32_t magic = 0x07230203;
  std::memcpy(header.data(), &magic, 4);
  std::vector<uint32_t> runsPast = {(9u << 16) | 17, 1};
  std::string bad =
      header + std::string(reinterpret_cast<const char *>(runsPast.data()), 8);
  auto r = readSpirvRequirements(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("runs past the end"), std::string::npos)
      << r.status().message();
  std::vector<uint32_t> unterminated = {(2u << 16) | 10, 0x41414141};
  r = readSpirvRequirements(
      header +
      std::string(reinterpret_cast<const char *>(unterminated.data()), 8));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unterminated"), std::string::npos);
  EXPECT_FALSE(readSpirvRequirements("short").ok());
}

class VulkanDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto driver = createVulkanDriver({});
    if (!driver.ok() && driver.status().isUnavailable())
      GTEST_SKIP() << "Vulkan unavailable: " << driver.status().message();
    ASSERT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device = driver_->createDevice(0);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
    auto bytes = cts::readKernelFile("vulkan", "double_plus_one");
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    spirv_ = *bytes;
  }
  void TearDown() override {
    device_.reset();
    driver_.reset();
  }
  const EnabledFeatures &features() const {
    return static_cast<VulkanDevice &>(*device_).enabledFeatures();
  }
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<Device> device_;
  std::string spirv_;
};

TEST_F(VulkanDeviceTest, TheUnpatchedKernelLoads) {
  auto exe = device_->createExecutable(
      cts::kernelSpec("vulkan", "double_plus_one", spirv_));
  EXPECT_TRUE(exe.ok()) << exe.status().message();
}

TEST_F(VulkanDeviceTest, CapabilityTheDeviceLacksIsRefusedBeforeTheDriver) {
  // RuntimeDescriptorArray needs the Vulkan 1.2 feature of that name, which
  // lavapipe (Mesa 22) does not have.
  if (features().v12.runtimeDescriptorArray)
    GTEST_SKIP() << device_->properties().name
                 << " supports runtimeDescriptorArray";
  std::string patched = withPreamble(spirv_, {kOpCapability, 5302});
  auto exe = device_->createExecutable(
      cts::kernelSpec("vulkan", "double_plus_one", patched));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::InvalidArgument);
  const std::string &m = exe.status().message();
  EXPECT_NE(m.find("cts_double_plus_one"), std::string::npos) << m;
  EXPECT_NE(m.find("export `main`"), std::string::npos) << m;
  EXPECT_NE(m.find("capability RuntimeDescriptorArray (5302) needs the Vulkan "
                   "1.2 feature runtimeDescriptorArray"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(device_->properties().name), std::string::npos) << m;
}

TEST_F(VulkanDeviceTest, ExtensionNeedingADeviceExtensionIsRefused) {
  std::vector<uint32_t> words = opExtension("SPV_KHR_shader_ballot");
  words.insert(words.begin(), {kOpCapability, 4423}); // SubgroupBallotKHR
  std::string patched = withPreamble(spirv_, words);
  auto exe = device_->createExecutable(
      cts::kernelSpec("vulkan", "double_plus_one", patched));
  ASSERT_FALSE(exe.ok());
  const std::string &m = exe.status().message();
  EXPECT_NE(m.find("extension SPV_KHR_shader_ballot needs a Vulkan device "
                   "extension"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("capability 4423"), std::string::npos) << m;
}

TEST_F(VulkanDeviceTest, FeaturesOfTheDeviceAreRecorded) {
  // lavapipe and every GPU driver report these for compute.
  EXPECT_GE(features().apiVersion, VK_API_VERSION_1_1);
  EXPECT_NE(
      features().computeSubgroupOperations & VK_SUBGROUP_FEATURE_BASIC_BIT, 0u);
  EXPECT_EQ(features().core.robustBufferAccess, VK_FALSE)
      << "robustBufferAccess distorts benchmarks and stays off";
}

} // namespace
} // namespace kb::hal::vulkan

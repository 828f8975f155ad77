//===- runtime/hal/drivers/vulkan/vulkan_driver_test.cpp - Vulkan specifics
//===//
//
// What only the Vulkan driver does: refusing SPIR-V that declares a
// capability, extension or version the device cannot take, before any
// driver call (drivers need not reject them; Mesa's front end only warns);
// specialization constants and a required subgroup size at pipeline
// creation (or a refusal when the device cannot give it).
// The pure checks run everywhere; the device tests run on lavapipe and skip
// where no Vulkan device exists.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/cts/cts_support.h"
#include "runtime/hal/drivers/vulkan/spirv_features.h"
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"
#include "runtime/testing/device_environment.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
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
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    auto driver = createVulkanDriver({});
    ASSERT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device =
        driver_->createDevice(preferredDeviceIndex(driver_->devices()));
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
    auto bytes = cts::readKernelFile("vulkan", "double_plus_one");
    if (!bytes.ok() && bytes.status().code() == StatusCode::NotFound)
      GTEST_SKIP() << bytes.status().message();
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

TEST_F(VulkanDeviceTest, IdentityIsRecorded) {
  // Vulkan 1.1 reports the PCI-style ids and a device UUID everywhere
  // (lavapipe: Mesa's vendor id 0x10005).
  const DeviceProperties &p = device_->properties();
  EXPECT_NE(p.vendorId, 0u);
  ASSERT_EQ(p.uuid.size(), 36u) << p.uuid;
  EXPECT_EQ(p.uuid[8], '-');
  EXPECT_NE(p.uuid, "00000000-0000-0000-0000-000000000000");
}

TEST(PreferredDevice, AGpuWinsOverTheCpuDeviceListedFirst) {
  std::vector<DeviceProperties> devices(3);
  devices[0].type = DeviceType::Cpu; // lavapipe, listed first by the loader
  devices[1].type = DeviceType::IntegratedGpu;
  devices[2].type = DeviceType::DiscreteGpu;
  EXPECT_EQ(preferredDeviceIndex(devices), 2u);
  devices.pop_back();
  EXPECT_EQ(preferredDeviceIndex(devices), 1u);
  devices.pop_back();
  EXPECT_EQ(preferredDeviceIndex(devices), 0u);
  EXPECT_EQ(preferredDeviceIndex({}), 0u);
}

TEST(VulkanLoader, LibvulkanStaysLoadedAfterTheDriverIsGone) {
  {
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    auto driver = createVulkanDriver({});
    ASSERT_TRUE(driver.ok()) << driver.status().message();
  }
  // RTLD_NOLOAD finds the library only while it is still mapped.
  void *handle = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(handle, nullptr)
      << "libvulkan.so.1 was unloaded with the last driver";
  if (handle)
    dlclose(handle);
}

/// A driver and its preferred device with |options|; skips without Vulkan.
class VulkanOptionsTest : public ::testing::Test {
protected:
  void open(const DeviceOptions &options) {
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    auto driver = createVulkanDriver({});
    ASSERT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device = driver_->createDevice(
        preferredDeviceIndex(driver_->devices()), options);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
  }
  std::shared_ptr<Executable> load(const std::string &name) {
    auto bytes = cts::readKernelFile("vulkan", name);
    if (!bytes.ok()) {
      ADD_FAILURE() << bytes.status().message();
      return nullptr;
    }
    data_ = *bytes;
    auto exe =
        device_->createExecutable(cts::kernelSpec("vulkan", name, data_));
    EXPECT_TRUE(exe.ok()) << exe.status().message();
    return exe.ok() ? *exe : nullptr;
  }
  void TearDown() override {
    device_.reset();
    driver_.reset();
  }
  std::string data_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<Device> device_;
};

TEST_F(VulkanOptionsTest, TheStagingPathCarriesDeviceLocalData) {
  // What a discrete GPU without resizable BAR does, forced on lavapipe.
  DeviceOptions options;
  options.vulkanMapDeviceLocal = false;
  open(options);
  if (IsSkipped())
    return;
  const uint32_t n = 100000; // not a multiple of the workgroup size
  auto a = device_->allocateBuffer(n * 4, MemoryType::DeviceLocal);
  auto b = device_->allocateBuffer(n * 4, MemoryType::DeviceLocal);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(static_cast<VulkanBuffer &>(**a).mapped(), nullptr);
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i)
    in[i] = i;
  ASSERT_TRUE((*a)->upload(0, in.data(), n * 4).ok());
  auto exe = load("double_plus_one");
  ASSERT_TRUE(exe);
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(cb.ok());
  DispatchParams d;
  d.executable = exe.get();
  d.workgroupCount = {(n + 63) / 64, 1, 1};
  d.bindings = {{a->get(), 0, 0}, {b->get(), 0, 0}};
  d.constants.resize(4);
  std::memcpy(d.constants.data(), &n, 4);
  ASSERT_TRUE((*cb)->dispatch(d).ok());
  Status s = (*cb)->submitAndWait();
  ASSERT_TRUE(s.ok()) << s.message();
  std::vector<uint32_t> out(n);
  ASSERT_TRUE((*b)->download(0, out.data(), n * 4).ok());
  for (uint32_t i = 0; i < n; i += 997)
    ASSERT_EQ(out[i], 2 * i + 1) << i;
  EXPECT_EQ(out[n - 1], 2 * (n - 1) + 1);
  // A partial download at an offset goes through staging as well.
  uint32_t word = 0;
  ASSERT_TRUE((*b)->download(4 * 12345, &word, 4).ok());
  EXPECT_EQ(word, 2u * 12345 + 1);
}

TEST_F(VulkanOptionsTest, SharedMemoryOverTheDeviceLimitIsRefusedAtLoad) {
  open({});
  if (IsSkipped())
    return;
  uint32_t limit = device_->properties().limits.maxSharedMemoryBytes;
  if (limit >= 64 * 1024)
    GTEST_SKIP() << device_->properties().name << " allows " << limit
                 << " bytes of shared memory";
  auto bytes = cts::readKernelFile("vulkan", "big_shared");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto exe = device_->createExecutable(
      cts::kernelSpec("vulkan", "big_shared", *bytes));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(exe.status().message().find(
                "65536 bytes of workgroup (shared) memory, but " +
                device_->properties().name + " allows " +
                std::to_string(limit)),
            std::string::npos)
      << exe.status().message();
}

/// workgroup_info created with |abi| (its specialization and subgroup
/// size) and run as one workgroup: o[0..3] = the workgroup size x, MARK,
/// gl_SubgroupSize, gl_NumSubgroups as the kernel saw them.
class VulkanPipelineTest : public VulkanOptionsTest {
protected:
  void SetUp() override {
    open({});
    if (IsSkipped())
      return;
    auto bytes = cts::readKernelFile("vulkan", "workgroup_info");
    if (!bytes.ok() && bytes.status().code() == StatusCode::NotFound)
      GTEST_SKIP() << bytes.status().message();
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    data_ = *bytes;
  }
  StatusOr<std::shared_ptr<Executable>> load(const KernelAbi &abi) {
    ExecutableSpec spec = cts::kernelSpec("vulkan", "workgroup_info", data_);
    spec.exports = {abi};
    return device_->createExecutable(spec);
  }
  std::array<uint32_t, 4> runInfo(const KernelAbi &abi) {
    std::array<uint32_t, 4> out = {0, 0, 0, 0};
    auto exe = load(abi);
    EXPECT_TRUE(exe.ok()) << exe.status().message();
    auto o = device_->allocateBuffer(16, MemoryType::DeviceLocal);
    auto cb = device_->createCommandBuffer();
    if (!exe.ok() || !o.ok() || !cb.ok())
      return out;
    DispatchParams d;
    d.executable = exe->get();
    d.workgroupCount = {1, 1, 1};
    d.bindings = {{o->get(), 0, 0}};
    EXPECT_TRUE((*cb)->dispatch(d).ok());
    Status s = (*cb)->submitAndWait();
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE((*o)->download(0, out.data(), 16).ok());
    return out;
  }
  KernelAbi specialized(uint32_t x, uint32_t mark) {
    KernelAbi abi = cts::kernelAbi("vulkan", "workgroup_info");
    abi.workgroupSize = {x, 1, 1};
    abi.specialization = {{0, "local_size_x", 4, x}, {1, "MARK", 4, mark}};
    return abi;
  }
};

TEST_F(VulkanPipelineTest, WithoutSpecializationTheDefaultsRun) {
  std::array<uint32_t, 4> info =
      runInfo(cts::kernelAbi("vulkan", "workgroup_info"));
  EXPECT_EQ(info[0], 1u);
  EXPECT_EQ(info[1], 1u);
}

TEST_F(VulkanPipelineTest, TheSpecializedWorkgroupSizeIsWhatRuns) {
  std::array<uint32_t, 4> info = runInfo(specialized(48, 7));
  EXPECT_EQ(info[0], 48u);
  EXPECT_EQ(info[1], 7u);
  ASSERT_NE(info[2], 0u);
  EXPECT_EQ(info[3], (48 + info[2] - 1) / info[2]) << "subgroups of 48";
}

TEST_F(VulkanPipelineTest, ARequiredSubgroupSizeTheDeviceGivesRuns) {
  const DeviceProperties &p = device_->properties();
  if (p.minSubgroupSize == 0)
    GTEST_SKIP() << p.name << " has no subgroup size control";
  for (uint32_t size = p.minSubgroupSize; size <= p.maxSubgroupSize;
       size *= 2) {
    KernelAbi abi = specialized(4 * size, 1);
    abi.subgroupSize = size;
    abi.fullSubgroups = p.fullSubgroups;
    std::array<uint32_t, 4> info = runInfo(abi);
    EXPECT_EQ(info[2], size) << "gl_SubgroupSize";
    EXPECT_EQ(info[3], 4u) << "gl_NumSubgroups";
  }
}

TEST_F(VulkanPipelineTest, ASubgroupSizeTheDeviceCannotGiveIsRefused) {
  const DeviceProperties &p = device_->properties();
  uint32_t size = p.maxSubgroupSize && p.maxSubgroupSize < 128
                      ? p.maxSubgroupSize * 2
                      : (p.minSubgroupSize > 1 ? p.minSubgroupSize / 2 : 0);
  if (p.minSubgroupSize && size == 0)
    GTEST_SKIP() << p.name << " gives every subgroup size from 1 to 128";
  if (size == 0)
    size = 64; // no subgroup size control: no size can be required
  KernelAbi abi = specialized(size, 1);
  abi.subgroupSize = size;
  auto exe = load(abi);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::Unavailable);
  const std::string &m = exe.status().message();
  EXPECT_NE(m.find("requires subgroup size " + std::to_string(size)),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(p.name), std::string::npos) << m;
}

TEST(CheckSubgroupSize, RangeFullSubgroupsAndTheWorkgroupMultiple) {
  DeviceProperties p;
  p.driver = "vulkan";
  p.name = "Some GPU";
  KernelAbi abi;
  abi.entry = "main";
  abi.workgroupSize = {64, 1, 1};
  EXPECT_TRUE(checkSubgroupSize("k", 0, abi, p).ok()) << "no requirement";
  abi.subgroupSize = 32;
  Status s = checkSubgroupSize("k", 0, abi, p);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_NE(s.message().find("cannot be asked for a subgroup size"),
            std::string::npos)
      << s.message();
  p.minSubgroupSize = 8;
  p.maxSubgroupSize = 16;
  s = checkSubgroupSize("k", 0, abi, p);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_NE(s.message().find("supports 8 to 16"), std::string::npos)
      << s.message();
  p.maxSubgroupSize = 64;
  EXPECT_TRUE(checkSubgroupSize("k", 0, abi, p).ok());
  abi.fullSubgroups = true;
  s = checkSubgroupSize("k", 0, abi, p);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_NE(s.message().find("computeFullSubgroups"), std::string::npos);
  p.fullSubgroups = true;
  EXPECT_TRUE(checkSubgroupSize("k", 0, abi, p).ok());
  abi.workgroupSize = {48, 1, 1};
  s = checkSubgroupSize("k", 0, abi, p);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("multiple"), std::string::npos) << s.message();
}

// What the timestamp path records, seen through the device's own table.
std::vector<std::string> gRecorded;
PFN_vkCmdPipelineBarrier gRealBarrier = nullptr;
PFN_vkCmdWriteTimestamp gRealTimestamp = nullptr;
VKAPI_ATTR void VKAPI_CALL
recordBarrier(VkCommandBuffer cb, VkPipelineStageFlags src,
              VkPipelineStageFlags dst, VkDependencyFlags flags,
              uint32_t memoryCount, const VkMemoryBarrier *memory,
              uint32_t bufferCount, const VkBufferMemoryBarrier *buffers,
              uint32_t imageCount, const VkImageMemoryBarrier *images) {
  gRecorded.push_back("barrier " + std::to_string(src) + " -> " +
                      std::to_string(dst));
  gRealBarrier(cb, src, dst, flags, memoryCount, memory, bufferCount, buffers,
               imageCount, images);
}
/// The query commands recorded, each with its command buffer; the command
/// buffers of each vkQueueSubmit, in order.
std::vector<std::pair<VkCommandBuffer, std::string>> gQueryCommands;
std::vector<std::vector<VkCommandBuffer>> gSubmitted;
PFN_vkCmdResetQueryPool gRealReset = nullptr;
PFN_vkQueueSubmit gRealSubmit = nullptr;
VKAPI_ATTR void VKAPI_CALL recordTimestamp(VkCommandBuffer cb,
                                           VkPipelineStageFlagBits stage,
                                           VkQueryPool pool, uint32_t slot) {
  gRecorded.push_back("timestamp " + std::to_string(stage));
  gQueryCommands.emplace_back(cb, "timestamp " + std::to_string(slot));
  gRealTimestamp(cb, stage, pool, slot);
}
VKAPI_ATTR void VKAPI_CALL recordReset(VkCommandBuffer cb, VkQueryPool pool,
                                       uint32_t first, uint32_t count) {
  for (uint32_t slot = first; slot < first + count; ++slot)
    gQueryCommands.emplace_back(cb, "reset " + std::to_string(slot));
  gRealReset(cb, pool, first, count);
}
VKAPI_ATTR VkResult VKAPI_CALL recordSubmit(VkQueue queue, uint32_t count,
                                            const VkSubmitInfo *submits,
                                            VkFence fence) {
  for (uint32_t i = 0; i < count; ++i)
    gSubmitted.emplace_back(submits[i].pCommandBuffers,
                            submits[i].pCommandBuffers +
                                submits[i].commandBufferCount);
  return gRealSubmit(queue, count, submits, fence);
}

TEST_F(VulkanOptionsTest, TimestampsFollowABarrierAtTopOfPipe) {
  open({});
  if (IsSkipped())
    return;
  // The table is the device's own (a plain struct of pointers): wrap the two
  // commands to see what writeTimestamp records.
  auto &syms =
      const_cast<DeviceSymbols &>(static_cast<VulkanDevice &>(*device_).syms());
  gRealBarrier = syms.vkCmdPipelineBarrier;
  gRealTimestamp = syms.vkCmdWriteTimestamp;
  syms.vkCmdPipelineBarrier = recordBarrier;
  syms.vkCmdWriteTimestamp = recordTimestamp;
  auto timer = device_->createTimer(2);
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(timer.ok() && cb.ok());
  gRecorded.clear();
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 0).ok());
  const std::string allCommands =
      std::to_string(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  EXPECT_EQ(
      gRecorded,
      (std::vector<std::string>{
          "barrier " + allCommands + " -> " + allCommands,
          "timestamp " + std::to_string(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT)}));
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 1).ok());
  Status s = (*cb)->submitAndWait();
  EXPECT_TRUE(s.ok()) << s.message();
  auto ns = (*timer)->elapsedNs(0, 1);
  EXPECT_TRUE(ns.ok()) << ns.status().message();
}

/// The query commands |cb| recorded, in order.
std::vector<std::string> queryCommandsOf(VkCommandBuffer cb) {
  std::vector<std::string> commands;
  for (const auto &[recordedBy, what] : gQueryCommands)
    if (recordedBy == cb)
      commands.push_back(what);
  return commands;
}

TEST_F(VulkanOptionsTest, NoQueryResetIsRecordedBetweenTimestamps) {
  open({});
  if (IsSkipped())
    return;
  auto &syms =
      const_cast<DeviceSymbols &>(static_cast<VulkanDevice &>(*device_).syms());
  gRealTimestamp = syms.vkCmdWriteTimestamp;
  gRealReset = syms.vkCmdResetQueryPool;
  gRealSubmit = syms.vkQueueSubmit;
  syms.vkCmdWriteTimestamp = recordTimestamp;
  syms.vkCmdResetQueryPool = recordReset;
  syms.vkQueueSubmit = recordSubmit;
  auto timer = device_->createTimer(2);
  auto work = device_->allocateBuffer(1 << 20, MemoryType::DeviceLocal);
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(timer.ok() && work.ok() && cb.ok());
  gQueryCommands.clear();
  gSubmitted.clear();
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 0).ok());
  ASSERT_TRUE((*cb)->fillBuffer(**work, 0, 0, 7).ok());
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 1).ok());
  for (int submission = 0; submission < 2; ++submission) {
    Status s = (*cb)->submitAndWait();
    ASSERT_TRUE(s.ok()) << s.message();
    auto ns = (*timer)->elapsedNs(0, 1);
    EXPECT_TRUE(ns.ok()) << ns.status().message();
  }
  // Every submission resets both queries in a command buffer of its own,
  // ahead of the one that writes them; that one records nothing else.
  ASSERT_EQ(gSubmitted.size(), 2u);
  for (const std::vector<VkCommandBuffer> &batch : gSubmitted) {
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(queryCommandsOf(batch[0]),
              (std::vector<std::string>{"reset 0", "reset 1"}));
    EXPECT_EQ(queryCommandsOf(batch[1]),
              (std::vector<std::string>{"timestamp 0", "timestamp 1"}));
  }
}

TEST_F(VulkanOptionsTest, ASlotWrittenTwiceIsResetBeforeItsSecondWrite) {
  open({});
  if (IsSkipped())
    return;
  auto &syms =
      const_cast<DeviceSymbols &>(static_cast<VulkanDevice &>(*device_).syms());
  gRealTimestamp = syms.vkCmdWriteTimestamp;
  gRealReset = syms.vkCmdResetQueryPool;
  syms.vkCmdWriteTimestamp = recordTimestamp;
  syms.vkCmdResetQueryPool = recordReset;
  auto timer = device_->createTimer(2);
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(timer.ok() && cb.ok());
  gQueryCommands.clear();
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 0).ok());
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 1).ok());
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 1).ok());
  Status s = (*cb)->submitAndWait();
  ASSERT_TRUE(s.ok()) << s.message();
  auto ns = (*timer)->elapsedNs(0, 1);
  EXPECT_TRUE(ns.ok()) << ns.status().message();
  // A query takes one write per reset: the second write of slot 1 is reset
  // in place; the prologue (recorded at submission) resets the first ones.
  ASSERT_EQ(gQueryCommands.size(), 6u);
  VkCommandBuffer timed = gQueryCommands[0].first;
  EXPECT_EQ(queryCommandsOf(timed),
            (std::vector<std::string>{"timestamp 0", "timestamp 1", "reset 1",
                                      "timestamp 1"}));
  EXPECT_EQ(queryCommandsOf(gQueryCommands[5].first),
            (std::vector<std::string>{"reset 0", "reset 1"}));
  EXPECT_NE(gQueryCommands[5].first, timed);
}

TEST_F(VulkanOptionsTest, ATimedOutSubmissionLosesTheDeviceWithoutFreeing) {
  DeviceOptions options;
  options.vulkanSubmitTimeoutMs = 300;
  open(options);
  if (IsSkipped())
    return;
  auto flag = device_->allocateBuffer(8, MemoryType::HostVisible);
  ASSERT_TRUE(flag.ok());
  uint32_t zero[2] = {0, 0};
  ASSERT_TRUE((*flag)->upload(0, zero, 8).ok());
  auto *stop = static_cast<volatile uint32_t *>(
      static_cast<VulkanBuffer &>(**flag).mapped());
  ASSERT_NE(stop, nullptr);
  auto exe = load("spin");
  ASSERT_TRUE(exe);
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(cb.ok());
  DispatchParams d;
  d.executable = exe.get();
  d.bindings = {{flag->get(), 0, 0}};
  // Many workgroups: llvmpipe cuts each invocation's spinning short.
  d.workgroupCount = {
      std::min(65535u, device_->properties().limits.maxWorkgroupCount[0]), 1,
      1};
  d.label = "`main` op 4";
  ASSERT_TRUE((*cb)->dispatch(d).ok());
  Status s = (*cb)->submitAndWait();
  EXPECT_EQ(s.code(), StatusCode::DeadlineExceeded) << s.message();
  EXPECT_NE(s.message().find("`main` op 4"), std::string::npos) << s.message();

  // Refused from now on, with the reason.
  Status again = (*cb)->submitAndWait();
  EXPECT_EQ(again.code(), StatusCode::FailedPrecondition) << again.message();
  EXPECT_NE(again.message().find("did not finish within 300 ms"),
            std::string::npos)
      << again.message();
  EXPECT_EQ(device_->createCommandBuffer().status().code(),
            StatusCode::FailedPrecondition);
  EXPECT_EQ(device_->allocateBuffer(4, MemoryType::DeviceLocal).status().code(),
            StatusCode::FailedPrecondition);

  // Teardown neither waits for the spinning shader nor frees its memory
  // (the shader still reads |stop| after everything is dropped).
  auto start = std::chrono::steady_clock::now();
  cb->reset();
  exe.reset();
  flag->reset();
  device_.reset();
  driver_.reset();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // The shader spins until |stop| is set, so a teardown that waited for it
  // would never end: a wide bound tells the two apart on a loaded machine.
  EXPECT_LT(seconds, 30.0);
  *stop = 1; // let the shader end, so the process exits cleanly
}

} // namespace
} // namespace kb::hal::vulkan

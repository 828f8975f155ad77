//===- runtime/bench/nvml_environment_test.cpp - NVML through dlopen ------===//
//
// Without the NVIDIA driver (this machine): absent NVML is Unavailable with
// the reason, never a crash. With a fake NVML (fake_nvml.cpp) loaded through
// the same dlopen path: clocks, throttle reasons and processes are read, and
// a throttled, shared GPU gives both warnings.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/nvml_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::bench {
namespace {
using ::testing::HasSubstr;

const char *kUuid = "00112233-4455-6677-8899-aabbccddeeff";

TEST(NvmlEnvironmentTest, AbsentLibraryIsUnavailableWithTheReason) {
  auto env = queryNvml(kUuid, "libkb-no-such-nvml.so.1");
  ASSERT_FALSE(env.ok());
  EXPECT_TRUE(env.status().isUnavailable());
  EXPECT_THAT(env.status().message(), HasSubstr("libkb-no-such-nvml.so.1"));
  EXPECT_THAT(env.status().message(), HasSubstr("not recorded"));
}

TEST(NvmlEnvironmentTest, FakeNvmlThroughDlopen) {
  auto env = queryNvml(kUuid, KB_FAKE_NVML_LIBRARY);
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(*env->smClockMHz, 1200);
  EXPECT_EQ(*env->defaultSmClockMHz, 1980);
  EXPECT_EQ(*env->memoryClockMHz, 2619);
  EXPECT_EQ(*env->throttleReasons, 0x4u);
  ASSERT_EQ(env->processes.size(), 2u);
  EXPECT_EQ(env->processes[0].pid, 1u);
  EXPECT_EQ(*env->processes[0].memoryBytes, 1u << 20);
  EXPECT_FALSE(env->processes[1].memoryBytes);

  OwnProcess self{4242, /*pidsComparable=*/true, /*holdsComputeContext=*/true};
  std::vector<std::string> warnings = nvmlWarnings(*env, nullptr, self);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("throttled before timing (sw-power-cap)"));
  EXPECT_THAT(warnings[1], HasSubstr("shared with other processes (1"));
  EXPECT_THAT(warnings[1], ::testing::Not(HasSubstr("4242")));

  auto other =
      queryNvml("ffffffff-4455-6677-8899-aabbccddeeff", KB_FAKE_NVML_LIBRARY);
  EXPECT_EQ(other.status().code(), StatusCode::NotFound);
}

TEST(NvmlEnvironmentTest, ThrottleReasonsByName) {
  EXPECT_THAT(throttleReasonNames(0x1 | 0x40),
              ::testing::ElementsAre("gpu-idle", "hw-thermal-slowdown"));
  EXPECT_THAT(throttleReasonNames(uint64_t(1) << 40),
              ::testing::ElementsAre("0x10000000000"));
  NvmlEnvironment idle;
  idle.throttleReasons = 0x1 | 0x2; // idle, app clocks: not slowdowns
  idle.processes = {{7, "", std::nullopt}};
  EXPECT_TRUE(nvmlWarnings(idle, nullptr, {7, true, true}).empty());
}

// Before timing the GPU idles; throttling under the benchmark's load shows
// in the reading taken after timing.
TEST(NvmlEnvironmentTest, ThrottlingAfterTimingIsAWarning) {
  NvmlEnvironment before, after;
  before.throttleReasons = 0x1; // idle
  after.throttleReasons = 0x20; // sw thermal slowdown
  OwnProcess self{7, true, true};
  EXPECT_TRUE(nvmlWarnings(before, nullptr, self).empty());
  std::vector<std::string> warnings = nvmlWarnings(before, &after, self);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0],
              HasSubstr("throttled after timing (sw-thermal-slowdown)"));
}

// In a container NVML's PIDs are the host's: a host PID equal to our
// getpid() is another process, and the only process listed is not proof
// that the GPU is ours alone; the others are not named from our /proc.
TEST(NvmlEnvironmentTest, HostPidsAreNotMatchedAgainstOurs) {
  NvmlEnvironment env;
  env.processes = {{7, "", std::nullopt}, {90210, "", std::nullopt}};
  OwnProcess contained{7, /*pidsComparable=*/false,
                       /*holdsComputeContext=*/true};
  std::vector<GpuProcessInfo> others = otherProcesses(env, contained);
  ASSERT_EQ(others.size(), 2u) << "PID 7 on the host is not us";
  EXPECT_TRUE(others[0].name.empty());
  std::vector<std::string> warnings = nvmlWarnings(env, nullptr, contained);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("NVML lists 2 compute processes"));
  EXPECT_THAT(warnings[0], HasSubstr("1 or more besides the benchmark"));

  // One process listed while we hold a context: probably us, but nothing
  // is claimed either way.
  env.processes.pop_back();
  EXPECT_TRUE(nvmlWarnings(env, nullptr, contained).empty());
  // Through Vulkan we are no compute process: the one listed is another.
  OwnProcess vulkan{7, false, false};
  EXPECT_EQ(nvmlWarnings(env, nullptr, vulkan).size(), 1u);
  // In the host's namespace the PIDs compare.
  EXPECT_TRUE(nvmlWarnings(env, nullptr, {7, true, true}).empty());
  EXPECT_EQ(otherProcesses(env, {8, true, true}).size(), 1u);
}

} // namespace
} // namespace kb::bench

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

  std::vector<std::string> warnings = nvmlWarnings(*env, 4242);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("throttled (sw-power-cap)"));
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
  idle.processes = {{7, "kernel-bench", std::nullopt}};
  EXPECT_TRUE(nvmlWarnings(idle, 7).empty());
}

} // namespace
} // namespace kb::bench

//===- tests/support/skip_policy_test.cpp - A 77 is not a skip by itself --===//
//
// SKIP_WITHOUT_VULKAN skips a test only when the machine lists no Vulkan
// device. Planted here: a real exit 77 from kernel-bench on a machine whose
// Vulkan device is listed (`run --device vulkan:9` with one device) must fail
// the test that meets it, not skip it.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

/// What the statement under EXPECT_FATAL_FAILURE sees (it may not name a
/// local variable).
kb::test::CliRun planted;

void meetPlanted() { SKIP_WITHOUT_VULKAN(planted); }

class SkipPolicyTest : public kb::test::KernelBenchTest {
protected:
  SkipPolicyTest() : KernelBenchTest("kb_skip_policy") {}

  /// The sample modules (kb-make-test-modules) in the scratch directory.
  void makeModules() {
    kb::test::CliRun made = kb::test::runKernelBenchAt(KB_MAKE_TEST_MODULES,
                                                       {(tmp_ / "m").string()});
    ASSERT_EQ(made.exitCode, 0) << made.output;
  }
};

TEST_F(SkipPolicyTest, AnUnavailableExitWithAVulkanDeviceListedFails) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  REQUIRE_TOOL("glslc");
  ASSERT_NO_FATAL_FAILURE(makeModules());
  planted = run({"run", (tmp_ / "m/ok").string(), "--device", "vulkan:9"});
  ASSERT_EQ(planted.exitCode, kb::test::kExitUnavailable) << planted.output;
  EXPECT_FATAL_FAILURE(meetPlanted(), "although the environment lists a "
                                      "Vulkan device");
}

TEST_F(SkipPolicyTest, ARunThatWorkedIsNeitherSkippedNorFailed) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  REQUIRE_TOOL("glslc");
  ASSERT_NO_FATAL_FAILURE(makeModules());
  planted = run({"run", (tmp_ / "m/ok").string(), "--device", "vulkan:0"});
  ASSERT_EQ(planted.exitCode, 0) << planted.output;
  meetPlanted();
  EXPECT_FALSE(IsSkipped());
  EXPECT_FALSE(HasFailure());
}

} // namespace

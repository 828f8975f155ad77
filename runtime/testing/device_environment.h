//===- runtime/testing/device_environment.h - Which devices exist ---------===//
//
// The one place a test decides that the machine lacks a device. A test that
// needs Vulkan skips when the Vulkan driver lists no device, asked once per
// process, never because the code under test said "unavailable": kernel-bench
// exits 77 and the runtime returns Unavailable for "no such device" and for
// "no variant for vulkan:0" alike, so a skip on either would turn a
// regression of the second kind into a green run.
//
// Every skip for lack of Vulkan starts with kNoVulkanSkip, which the test
// command's skip report (scripts/skip_report.py) counts; on a machine whose
// vulkaninfo lists a device, one such skip fails the run.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_TESTING_DEVICE_ENVIRONMENT_H_
#define KB_RUNTIME_TESTING_DEVICE_ENVIRONMENT_H_

#include <string>

namespace kb::testing {

/// The first words of every skip message for a missing Vulkan device.
inline constexpr const char *kNoVulkanSkip = "no Vulkan device listed";

/// Whether this build's Vulkan driver lists at least one device (lavapipe
/// counts). Decided on the first call, the same answer after.
bool vulkanDeviceListed();

/// The skip message when vulkanDeviceListed() is false: kNoVulkanSkip, why
/// (the driver's status) and what to install.
std::string noVulkanReason();

/// The same for CUDA: whether the CUDA driver (libcuda) lists a device, and
/// the skip message when it does not, starting with kNoCudaSkip.
inline constexpr const char *kNoCudaSkip = "no CUDA device listed";
bool cudaDeviceListed();
std::string noCudaReason();

} // namespace kb::testing

/// In a gtest body: skip, with the reason, when the environment has no
/// Vulkan device.
#define KB_SKIP_WITHOUT_VULKAN_DEVICE()                                        \
  do {                                                                         \
    if (!::kb::testing::vulkanDeviceListed())                                  \
      GTEST_SKIP() << ::kb::testing::noVulkanReason();                         \
  } while (false)

/// The same for a CUDA device.
#define KB_SKIP_WITHOUT_CUDA_DEVICE()                                          \
  do {                                                                         \
    if (!::kb::testing::cudaDeviceListed())                                    \
      GTEST_SKIP() << ::kb::testing::noCudaReason();                           \
  } while (false)

#endif // KB_RUNTIME_TESTING_DEVICE_ENVIRONMENT_H_

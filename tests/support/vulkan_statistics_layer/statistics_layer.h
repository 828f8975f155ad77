//===- statistics_layer.h - The statistics layer in a test's environment --===//
//
// A test target that uses the statistics layer (vulkan_statistics_layer.cpp)
// defines KB_VULKAN_STATISTICS_LAYER_DIR, its manifest's directory.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTS_SUPPORT_VULKAN_STATISTICS_LAYER_STATISTICS_LAYER_H_
#define KB_TESTS_SUPPORT_VULKAN_STATISTICS_LAYER_STATISTICS_LAYER_H_

#include "tests/support/cli_test_support.h"

namespace kb::test {

/// |env| with the statistics layer in front of the Vulkan driver, which then
/// reports VK_KHR_pipeline_executable_properties as NVIDIA's and RADV do.
inline EnvVars withStatisticsLayer(EnvVars env) {
  env.insert(env.begin(),
             {{"VK_LAYER_PATH", KB_VULKAN_STATISTICS_LAYER_DIR},
              {"VK_INSTANCE_LAYERS", "VK_LAYER_KB_executable_statistics"}});
  return env;
}

} // namespace kb::test

#endif // KB_TESTS_SUPPORT_VULKAN_STATISTICS_LAYER_STATISTICS_LAYER_H_

//===- recording_layer.h - The recording layer in a test's environment ----===//
//
// A test target that uses the recording layer (vulkan_call_recorder.cpp)
// defines KB_VULKAN_CALL_RECORDER_DIR, its manifest's directory
// (tests/e2e/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTS_SUPPORT_VULKAN_CALL_RECORDER_RECORDING_LAYER_H_
#define KB_TESTS_SUPPORT_VULKAN_CALL_RECORDER_RECORDING_LAYER_H_

#include "tests/support/cli_test_support.h"

namespace kb::test {

/// |env| with the recording layer in front of the Vulkan driver.
inline EnvVars withRecordingLayer(EnvVars env) {
  env.insert(env.begin(), {{"VK_LAYER_PATH", KB_VULKAN_CALL_RECORDER_DIR},
                           {"VK_INSTANCE_LAYERS", "VK_LAYER_KB_record_calls"}});
  return env;
}

} // namespace kb::test

#endif // KB_TESTS_SUPPORT_VULKAN_CALL_RECORDER_RECORDING_LAYER_H_

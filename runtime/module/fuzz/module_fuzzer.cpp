//===- runtime/module/fuzz/module_fuzzer.cpp - libFuzzer: .kbm loader -----===//
//
// Any byte string must give a module or a clear error: no crash, no hang, no
// sanitizer report. Accepted modules also go through the device checks
// (limits and the PTX/SPIR-V ABI readers) against a fixed fake device.
//
//===----------------------------------------------------------------------===//
#include "runtime/module/module.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto module = kb::module::parseModule(
      std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.kbm");
  if (!module.ok())
    return 0;
  kb::hal::DeviceProperties device;
  device.driver = "vulkan";
  device.name = "fuzz";
  device.limits.maxWorkgroupSize = {1024, 1024, 64};
  device.limits.maxWorkgroupInvocations = 1024;
  device.limits.maxWorkgroupCount = {65535, 65535, 65535};
  device.limits.maxSharedMemoryBytes = 49152;
  device.limits.maxConstantBytes = 128;
  device.limits.maxBindings = 32;
  device.limits.maxBindingRange = uint64_t(1) << 32;
  for (auto choice : {kb::module::VariantChoice::PreferCandidate,
                      kb::module::VariantChoice::ReferenceOnly}) {
    kb::module::checkModuleForDevice(*module, device, choice).ignoreError();
    device.driver = "cuda";
    device.ccMajor = 9;
    kb::module::checkModuleForDevice(*module, device, choice).ignoreError();
    device.driver = "vulkan";
  }
  return 0;
}

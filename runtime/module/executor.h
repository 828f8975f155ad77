//===- runtime/module/executor.h - Run a module function on a device ------===//
//
// Executes one Function of a Module: checks the module for the device
// (checkModuleForDevice, before any driver call), loads the executables the
// function dispatches (selectVariant), allocates and initialises its
// buffers (inputs.h), records every op into one command buffer — with a
// barrier wherever an op touches a buffer an earlier op since the last
// barrier wrote (or writes one it read) — submits, and reads back the
// outputs.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_EXECUTOR_H_
#define KB_RUNTIME_MODULE_EXECUTOR_H_

#include "runtime/hal/device.h"
#include "runtime/module/module.h"

#include <string>
#include <vector>

namespace kb::module {

struct OutputData {
  uint32_t buffer = 0;
  std::string name;
  ElementType elementType = ElementType::F32;
  std::vector<uint8_t> bytes;
};

struct FunctionResult {
  std::vector<OutputData> outputs; // in Function::outputs order
  /// One line per executable loaded: "`exe`: candidate spirv vulkan1.2".
  std::vector<std::string> variantsUsed;
  size_t dispatchCount = 0;
  size_t barrierCount = 0;
};

StatusOr<FunctionResult> runFunction(hal::Device &device, const Module &module,
                                     const Function &function,
                                     VariantChoice choice);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_EXECUTOR_H_

//===- common/spirv_opcodes.h - The SPIR-V numbers the readers use --------===//
//
// The header constants and the opcodes spirv_reader (reflection) and
// spirv_mix (instruction counts) interpret, with their values from the
// SPIR-V 1.6 specification (unified1/spirv.hpp), spelled out here so that
// common/ depends on nothing but the C++ standard library.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SPIRV_OPCODES_H_
#define KB_COMMON_SPIRV_OPCODES_H_

#include <cstdint>

namespace kb::spirv {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kMagicSwapped = 0x03022307;
constexpr uint32_t kHeaderWords = 5;

enum Op : uint32_t {
  OpName = 5,
  OpMemberName = 6,
  OpExtInstImport = 11,
  OpExtInst = 12,
  OpEntryPoint = 15,
  OpExecutionMode = 16,
  OpCapability = 17,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeVector = 23,
  OpTypeMatrix = 24,
  OpTypeImage = 25,
  OpTypeSampler = 26,
  OpTypeSampledImage = 27,
  OpTypeArray = 28,
  OpTypeRuntimeArray = 29,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpConstantTrue = 41,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpSpecConstantTrue = 48,
  OpSpecConstantFalse = 49,
  OpSpecConstant = 50,
  OpSpecConstantComposite = 51,
  OpFunction = 54,
  OpFunctionEnd = 56,
  OpVariable = 59,
  OpLoad = 61,
  OpStore = 62,
  OpAccessChain = 65,
  OpInBoundsAccessChain = 66,
  OpPtrAccessChain = 67,
  OpArrayLength = 68,
  OpInBoundsPtrAccessChain = 70,
  OpDecorate = 71,
  OpMemberDecorate = 72,
  OpCopyObject = 83,
  OpControlBarrier = 224,
  OpMemoryBarrier = 225,
  OpAtomicLoad = 227,
  OpAtomicStore = 228,
  OpAtomicXor = 242,
  OpBranch = 249,
  OpBranchConditional = 250,
  OpSwitch = 251,
  OpExecutionModeId = 331,
  OpCooperativeMatrixMulAddKHR = 4459,
  OpCooperativeMatrixMulAddNV = 5361,
  OpAtomicFAddEXT = 6035,
};

} // namespace kb::spirv

#endif // KB_COMMON_SPIRV_OPCODES_H_

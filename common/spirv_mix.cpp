//===- common/spirv_mix.cpp - The instruction mix of a SPIR-V module ------===//
//
// One pass over the words. Types and pointers are declared before the
// functions that use them (the SPIR-V module layout), so by the time an
// OpLoad is counted its pointer's storage class and pointee type are known.
//
//===----------------------------------------------------------------------===//
#include "common/spirv_mix.h"

#include "common/spirv_opcodes.h"

#include <cstring>
#include <unordered_map>
#include <vector>

namespace kb {
namespace {

using namespace spirv; // the opcodes and header constants

constexpr uint32_t kGlslFma = 50;
constexpr uint32_t kWorkgroup = 4;

struct OpcodeName {
  uint32_t opcode;
  const char *name;
};

/// The names of the instructions compute shaders are made of.
constexpr OpcodeName kOpcodeNames[] = {
    {1, "OpUndef"},
    {8, "OpLine"},
    {12, "OpExtInst"},
    {57, "OpFunctionCall"},
    {59, "OpVariable"},
    {61, "OpLoad"},
    {62, "OpStore"},
    {63, "OpCopyMemory"},
    {65, "OpAccessChain"},
    {66, "OpInBoundsAccessChain"},
    {67, "OpPtrAccessChain"},
    {68, "OpArrayLength"},
    {77, "OpVectorExtractDynamic"},
    {79, "OpVectorShuffle"},
    {80, "OpCompositeConstruct"},
    {81, "OpCompositeExtract"},
    {82, "OpCompositeInsert"},
    {83, "OpCopyObject"},
    {109, "OpConvertFToU"},
    {110, "OpConvertFToS"},
    {111, "OpConvertSToF"},
    {112, "OpConvertUToF"},
    {113, "OpUConvert"},
    {114, "OpSConvert"},
    {115, "OpFConvert"},
    {124, "OpBitcast"},
    {126, "OpSNegate"},
    {127, "OpFNegate"},
    {128, "OpIAdd"},
    {129, "OpFAdd"},
    {130, "OpISub"},
    {131, "OpFSub"},
    {132, "OpIMul"},
    {133, "OpFMul"},
    {134, "OpUDiv"},
    {135, "OpSDiv"},
    {136, "OpFDiv"},
    {137, "OpUMod"},
    {138, "OpSRem"},
    {139, "OpSMod"},
    {141, "OpFMod"},
    {142, "OpVectorTimesScalar"},
    {148, "OpDot"},
    {156, "OpIsNan"},
    {157, "OpIsInf"},
    {164, "OpLogicalEqual"},
    {166, "OpLogicalOr"},
    {167, "OpLogicalAnd"},
    {168, "OpLogicalNot"},
    {169, "OpSelect"},
    {170, "OpIEqual"},
    {171, "OpINotEqual"},
    {172, "OpUGreaterThan"},
    {173, "OpSGreaterThan"},
    {174, "OpUGreaterThanEqual"},
    {175, "OpSGreaterThanEqual"},
    {176, "OpULessThan"},
    {177, "OpSLessThan"},
    {178, "OpULessThanEqual"},
    {179, "OpSLessThanEqual"},
    {180, "OpFOrdEqual"},
    {182, "OpFOrdNotEqual"},
    {184, "OpFOrdLessThan"},
    {186, "OpFOrdGreaterThan"},
    {188, "OpFOrdLessThanEqual"},
    {190, "OpFOrdGreaterThanEqual"},
    {183, "OpFUnordNotEqual"},
    {194, "OpShiftRightLogical"},
    {195, "OpShiftRightArithmetic"},
    {196, "OpShiftLeftLogical"},
    {197, "OpBitwiseOr"},
    {198, "OpBitwiseXor"},
    {199, "OpBitwiseAnd"},
    {200, "OpNot"},
    {224, "OpControlBarrier"},
    {225, "OpMemoryBarrier"},
    {227, "OpAtomicLoad"},
    {228, "OpAtomicStore"},
    {229, "OpAtomicExchange"},
    {230, "OpAtomicCompareExchange"},
    {232, "OpAtomicIIncrement"},
    {234, "OpAtomicIAdd"},
    {235, "OpAtomicISub"},
    {236, "OpAtomicSMin"},
    {237, "OpAtomicUMin"},
    {238, "OpAtomicSMax"},
    {239, "OpAtomicUMax"},
    {240, "OpAtomicAnd"},
    {241, "OpAtomicOr"},
    {242, "OpAtomicXor"},
    {245, "OpPhi"},
    {246, "OpLoopMerge"},
    {247, "OpSelectionMerge"},
    {248, "OpLabel"},
    {249, "OpBranch"},
    {250, "OpBranchConditional"},
    {251, "OpSwitch"},
    {252, "OpKill"},
    {253, "OpReturn"},
    {254, "OpReturnValue"},
    {255, "OpUnreachable"},
    {333, "OpGroupNonUniformElect"},
    {337, "OpGroupNonUniformBroadcast"},
    {338, "OpGroupNonUniformBroadcastFirst"},
    {339, "OpGroupNonUniformBallot"},
    {345, "OpGroupNonUniformShuffle"},
    {346, "OpGroupNonUniformShuffleXor"},
    {347, "OpGroupNonUniformShuffleUp"},
    {348, "OpGroupNonUniformShuffleDown"},
    {349, "OpGroupNonUniformIAdd"},
    {350, "OpGroupNonUniformFAdd"},
    {355, "OpGroupNonUniformFMin"},
    {358, "OpGroupNonUniformFMax"},
    {4457, "OpCooperativeMatrixLoadKHR"},
    {4458, "OpCooperativeMatrixStoreKHR"},
    {4459, "OpCooperativeMatrixMulAddKHR"},
    {5361, "OpCooperativeMatrixMulAddNV"},
    {6035, "OpAtomicFAddEXT"},
};

std::string opcodeName(uint32_t opcode) {
  for (const OpcodeName &entry : kOpcodeNames)
    if (entry.opcode == opcode)
      return entry.name;
  return "Op<" + std::to_string(opcode) + ">";
}

const char *bufferClassName(uint32_t storageClass) {
  switch (storageClass) {
  case 2:
    return "Uniform"; // SPIR-V 1.0's BufferBlock storage buffers
  case 12:
    return "StorageBuffer";
  case 5349:
    return "PhysicalStorageBuffer";
  default:
    return nullptr;
  }
}

/// What the module declares that the counting needs.
struct Declarations {
  std::unordered_map<uint32_t, std::string>
      scalarOrVector; // "f32", "vec4<f32>"
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> pointerTypes;
  std::unordered_map<uint32_t, uint32_t> pointerOf; // value id -> pointer type
  uint32_t glslSet = 0;
};

void declareType(uint32_t opcode, const uint32_t *ops, uint32_t n,
                 Declarations &d) {
  if (opcode == OpTypeBool && n >= 1)
    d.scalarOrVector[ops[0]] = "bool";
  else if (opcode == OpTypeInt && n >= 3)
    d.scalarOrVector[ops[0]] = (ops[2] ? "i" : "u") + std::to_string(ops[1]);
  else if (opcode == OpTypeFloat && n >= 2)
    d.scalarOrVector[ops[0]] = "f" + std::to_string(ops[1]);
  else if (opcode == OpTypeVector && n >= 3 && d.scalarOrVector.count(ops[1]))
    d.scalarOrVector[ops[0]] =
        "vec" + std::to_string(ops[2]) + "<" + d.scalarOrVector[ops[1]] + ">";
  else if (opcode == OpTypePointer && n >= 3)
    d.pointerTypes[ops[0]] = {ops[1], ops[2]};
  else if (opcode == OpExtInstImport && n >= 2 &&
           std::strncmp(reinterpret_cast<const char *>(ops + 1), "GLSL.std.450",
                        (n - 1) * 4) == 0)
    d.glslSet = ops[0];
}

/// Remembers the pointer type of a value that is a pointer.
void trackPointer(uint32_t opcode, const uint32_t *ops, uint32_t n,
                  Declarations &d) {
  bool makesPointer =
      opcode == OpVariable || opcode == OpAccessChain ||
      opcode == OpInBoundsAccessChain || opcode == OpPtrAccessChain ||
      opcode == OpInBoundsPtrAccessChain || opcode == OpCopyObject;
  if (makesPointer && n >= 2 && d.pointerTypes.count(ops[0]))
    d.pointerOf[ops[1]] = ops[0];
}

/// The storage class and pointee of the pointer value |id|, if known.
const std::pair<uint32_t, uint32_t> *pointerInfo(const Declarations &d,
                                                 uint32_t id) {
  auto value = d.pointerOf.find(id);
  if (value == d.pointerOf.end())
    return nullptr;
  auto type = d.pointerTypes.find(value->second);
  return type == d.pointerTypes.end() ? nullptr : &type->second;
}

void countMemoryAccess(uint32_t opcode, uint32_t pointerId,
                       const Declarations &d, SpirvInstructionMix &mix) {
  const std::pair<uint32_t, uint32_t> *ptr = pointerInfo(d, pointerId);
  if (!ptr)
    return;
  if (ptr->first == kWorkgroup) {
    ++mix.workgroupOps;
    return;
  }
  const char *bufferClass = bufferClassName(ptr->first);
  if (!bufferClass || (opcode != OpLoad && opcode != OpStore))
    return;
  auto type = d.scalarOrVector.find(ptr->second);
  std::string moved = type != d.scalarOrVector.end() ? type->second : "other";
  std::string key = (opcode == OpLoad ? "OpLoad " : "OpStore ") +
                    std::string(bufferClass) + " " + moved;
  ++(opcode == OpLoad ? mix.bufferLoads : mix.bufferStores)[key];
}

void countInstruction(uint32_t opcode, const uint32_t *ops, uint32_t n,
                      const Declarations &d, SpirvInstructionMix &mix) {
  ++mix.instructions;
  ++mix.opcodes[opcodeName(opcode)];
  if (opcode == OpLoad && n >= 3)
    countMemoryAccess(opcode, ops[2], d, mix);
  else if (opcode == OpStore && n >= 1)
    countMemoryAccess(opcode, ops[0], d, mix);
  else if (((opcode >= OpAtomicLoad && opcode <= OpAtomicXor) ||
            opcode == OpAtomicFAddEXT) &&
           n >= 3)
    // OpAtomicStore has no result: its pointer is the first operand.
    countMemoryAccess(opcode, opcode == OpAtomicStore ? ops[0] : ops[2], d,
                      mix);
  if (opcode == OpExtInst && n >= 4 && ops[2] == d.glslSet &&
      ops[3] == kGlslFma)
    ++mix.fma;
  if (opcode == OpCooperativeMatrixMulAddKHR ||
      opcode == OpCooperativeMatrixMulAddNV)
    ++mix.matrixOps;
  if (opcode == OpBranch || opcode == OpBranchConditional || opcode == OpSwitch)
    ++mix.branches;
  if (opcode == OpControlBarrier || opcode == OpMemoryBarrier)
    ++mix.barriers;
}

} // namespace

StatusOr<SpirvInstructionMix> countSpirvInstructions(std::string_view bytes) {
  if (bytes.size() % 4 != 0 || bytes.size() < 20)
    return invalidArgument(
        "not a SPIR-V module: " + std::to_string(bytes.size()) +
        " bytes (expected a 20-byte header and whole "
        "32-bit words)");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words[0] != kMagic)
    return invalidArgument("not a SPIR-V module: word 0 is not the magic "
                           "number 0x07230203");
  SpirvInstructionMix mix;
  Declarations d;
  bool inFunction = false;
  for (size_t i = kHeaderWords; i < words.size();) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xFFFF;
    if (count == 0 || i + count > words.size())
      return invalidArgument("malformed SPIR-V: the instruction at word " +
                             std::to_string(i) + " has word count " +
                             std::to_string(count) + " (" +
                             std::to_string(words.size() - i) + " left)");
    const uint32_t *ops = words.data() + i + 1;
    declareType(opcode, ops, count - 1, d);
    trackPointer(opcode, ops, count - 1, d);
    inFunction = inFunction || opcode == OpFunction;
    if (inFunction && opcode != OpFunction && opcode != OpFunctionEnd)
      countInstruction(opcode, ops, count - 1, d, mix);
    inFunction = inFunction && opcode != OpFunctionEnd;
    i += count;
  }
  return mix;
}

uint32_t spirvVectorWidth(std::string_view bufferAccess) {
  size_t vec = bufferAccess.rfind(" vec");
  if (vec == std::string_view::npos || vec + 4 >= bufferAccess.size())
    return 1;
  char digit = bufferAccess[vec + 4];
  return digit >= '2' && digit <= '9' ? static_cast<uint32_t>(digit - '0') : 1;
}

} // namespace kb

//===- common/spirv_reader.cpp - Reflect a SPIR-V compute module ---------===//
//
// Two passes: the first walks every instruction (bounds-checked) and records
// the few kinds the reflection needs in id-keyed tables; the second resolves
// them (workgroup sizes, resources, the push-constant block). Opcode and enum
// values are from the SPIR-V 1.6 specification (spirv_opcodes.h).
//
//===----------------------------------------------------------------------===//
#include "common/spirv_reader.h"

#include "common/spirv_block_flattening.h"

#include "common/spirv_opcodes.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

namespace kb {
namespace {

using namespace spirv; // the opcodes and header constants

enum Decoration : uint32_t {
  DecSpecId = 1,
  DecBlock = 2,
  DecBufferBlock = 3,
  DecRowMajor = 4,
  DecArrayStride = 6,
  DecMatrixStride = 7,
  DecBuiltIn = 11,
  DecNonWritable = 24,
  DecNonReadable = 25,
  DecBinding = 33,
  DecDescriptorSet = 34,
  DecOffset = 35,
};

constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kExecutionModeLocalSizeId = 38;
constexpr uint32_t kBuiltInWorkgroupSize = 25;
constexpr uint32_t kStorageUniformConstant = 0;
constexpr uint32_t kStorageUniform = 2;
constexpr uint32_t kStorageWorkgroup = 4;
constexpr uint32_t kStoragePushConstant = 9;
constexpr uint32_t kStorageStorageBuffer = 12;

/// Nesting limit for type walks: garbage may form cycles that a valid module
/// cannot (types are defined before use).
constexpr int kMaxTypeDepth = 32;

const char *opName(uint32_t op) {
  switch (op) {
  case OpName:
    return "OpName";
  case OpMemberName:
    return "OpMemberName";
  case OpCapability:
    return "OpCapability";
  case OpEntryPoint:
    return "OpEntryPoint";
  case OpExecutionMode:
    return "OpExecutionMode";
  case OpExecutionModeId:
    return "OpExecutionModeId";
  case OpTypeBool:
    return "OpTypeBool";
  case OpTypeInt:
    return "OpTypeInt";
  case OpTypeFloat:
    return "OpTypeFloat";
  case OpTypeVector:
    return "OpTypeVector";
  case OpTypeMatrix:
    return "OpTypeMatrix";
  case OpTypeImage:
    return "OpTypeImage";
  case OpTypeSampler:
    return "OpTypeSampler";
  case OpTypeSampledImage:
    return "OpTypeSampledImage";
  case OpTypeArray:
    return "OpTypeArray";
  case OpTypeRuntimeArray:
    return "OpTypeRuntimeArray";
  case OpTypeStruct:
    return "OpTypeStruct";
  case OpTypePointer:
    return "OpTypePointer";
  case OpConstantTrue:
    return "OpConstantTrue";
  case OpConstantFalse:
    return "OpConstantFalse";
  case OpConstant:
    return "OpConstant";
  case OpConstantComposite:
    return "OpConstantComposite";
  case OpSpecConstantTrue:
    return "OpSpecConstantTrue";
  case OpSpecConstantFalse:
    return "OpSpecConstantFalse";
  case OpSpecConstant:
    return "OpSpecConstant";
  case OpSpecConstantComposite:
    return "OpSpecConstantComposite";
  case OpVariable:
    return "OpVariable";
  case OpDecorate:
    return "OpDecorate";
  case OpMemberDecorate:
    return "OpMemberDecorate";
  }
  return "instruction";
}

/// Minimum word count (including the opcode word) of the instructions read.
uint32_t minWords(uint32_t op) {
  switch (op) {
  case OpName:
    return 3;
  case OpMemberName:
    return 4;
  case OpCapability:
    return 2;
  case OpEntryPoint:
    return 4;
  case OpExecutionMode:
    return 3;
  case OpExecutionModeId:
    return 3;
  case OpTypeBool:
    return 2;
  case OpTypeInt:
    return 4;
  case OpTypeFloat:
    return 3;
  case OpTypeVector:
    return 4;
  case OpTypeMatrix:
    return 4;
  case OpTypeImage:
    return 9;
  case OpTypeSampler:
    return 2;
  case OpTypeSampledImage:
    return 3;
  case OpTypeArray:
    return 4;
  case OpTypeRuntimeArray:
    return 3;
  case OpTypeStruct:
    return 2;
  case OpTypePointer:
    return 4;
  case OpConstantTrue:
  case OpConstantFalse:
  case OpSpecConstantTrue:
  case OpSpecConstantFalse:
    return 3;
  case OpConstant:
  case OpSpecConstant:
    return 4;
  case OpConstantComposite:
  case OpSpecConstantComposite:
    return 3;
  case OpVariable:
    return 4;
  case OpDecorate:
    return 3;
  case OpMemberDecorate:
    return 4;
  }
  return 1;
}

struct Instruction {
  uint32_t opcode;
  const uint32_t *operands; // words after the opcode word
  uint32_t operandCount;
  size_t wordOffset; // of the opcode word, for messages
};

struct TypeDef {
  uint32_t opcode;
  std::vector<uint32_t> operands; // after the result id
};

struct ConstantDef {
  uint32_t opcode;
  uint32_t type;
  std::vector<uint32_t> operands; // after the result id
};

struct Decorations {
  std::optional<uint32_t> specId, binding, set, builtIn, arrayStride;
  bool block = false, bufferBlock = false, nonWritable = false,
       nonReadable = false;
};

struct MemberDecorations {
  std::optional<uint32_t> offset, matrixStride;
  bool nonWritable = false, nonReadable = false, rowMajor = false;
};

struct VariableDef {
  uint32_t id, pointerType, storageClass;
};

struct ExecutionModeDef {
  uint32_t target, mode;
  bool idOperands;
  std::vector<uint32_t> operands;
  size_t wordOffset;
};

std::string idRef(uint32_t id) { return "%" + std::to_string(id); }

class Reflector {
public:
  StatusOr<SpirvModule> run(const uint32_t *words, size_t count) {
    if (count < kHeaderWords)
      return invalidArgument(
          "SPIR-V module has " + std::to_string(count) +
          " words; a module needs at least the 5-word header");
    if (words[0] != kMagic)
      return invalidArgument("SPIR-V word 0: expected the magic number "
                             "0x07230203, found " +
                             hex(words[0]) + "; this is not a SPIR-V binary");
    SpirvModule module;
    module.version = words[1];
    uint32_t major = (words[1] >> 16) & 0xff;
    if (major != 1 || (words[1] & 0xff0000ffu) != 0)
      return invalidArgument("SPIR-V word 1: unsupported version word " +
                             hex(words[1]) + "; expected 1.x (0x0001xx00)");
    bound_ = words[3];
    if (bound_ == 0)
      return invalidArgument("SPIR-V word 3: the id bound is 0");

    for (size_t pos = kHeaderWords; pos < count;) {
      uint32_t wordCount = words[pos] >> 16;
      uint32_t opcode = words[pos] & 0xffff;
      if (wordCount == 0)
        return invalidArgument(
            "SPIR-V word " + std::to_string(pos) + ": instruction (opcode " +
            std::to_string(opcode) + ") has a word count of 0");
      if (wordCount > count - pos)
        return invalidArgument("SPIR-V word " + std::to_string(pos) + ": " +
                               opName(opcode) + " (opcode " +
                               std::to_string(opcode) + ") claims " +
                               std::to_string(wordCount) + " words but only " +
                               std::to_string(count - pos) +
                               " remain; the module is truncated or corrupt");
      if (wordCount < minWords(opcode))
        return invalidArgument(
            "SPIR-V word " + std::to_string(pos) + ": " + opName(opcode) +
            " has " + std::to_string(wordCount) + " words; expected at least " +
            std::to_string(minWords(opcode)));
      Instruction inst{opcode, words + pos + 1, wordCount - 1, pos};
      KB_RETURN_IF_ERROR(record(inst));
      pos += wordCount;
    }
    KB_RETURN_IF_ERROR(resolveEntryPoints(module));
    KB_RETURN_IF_ERROR(resolveResources(module));
    resolveSpecConstants(module);
    module.capabilities = capabilities_;
    module.usesArrayLength = usesArrayLength_;
    return module;
  }

private:
  static std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
  }

  Status error(const Instruction &inst, const std::string &what) const {
    return invalidArgument("SPIR-V word " + std::to_string(inst.wordOffset) +
                           ": " + opName(inst.opcode) + ": " + what);
  }

  Status checkId(const Instruction &inst, uint32_t id) const {
    if (id == 0 || id >= bound_)
      return error(inst, "id " + std::to_string(id) +
                             " is outside the module's id bound " +
                             std::to_string(bound_));
    return okStatus();
  }

  /// Reads a NUL-terminated literal string starting at operand |first|;
  /// |next| receives the operand index after it.
  StatusOr<std::string> literalString(const Instruction &inst, uint32_t first,
                                      uint32_t &next) const {
    std::string s;
    for (uint32_t i = first; i < inst.operandCount; ++i) {
      uint32_t w = inst.operands[i];
      for (int b = 0; b < 4; ++b) {
        char c = static_cast<char>((w >> (8 * b)) & 0xff);
        if (c == '\0') {
          next = i + 1;
          return s;
        }
        s.push_back(c);
      }
    }
    return error(inst, "literal string is not NUL-terminated within the "
                       "instruction");
  }

  Status defineType(const Instruction &inst) {
    uint32_t id = inst.operands[0];
    KB_RETURN_IF_ERROR(checkId(inst, id));
    if (types_.count(id) || constants_.count(id))
      return error(inst, "id " + idRef(id) + " is defined twice");
    types_[id] = TypeDef{
        inst.opcode, std::vector<uint32_t>(inst.operands + 1,
                                           inst.operands + inst.operandCount)};
    return okStatus();
  }

  Status defineConstant(const Instruction &inst) {
    uint32_t id = inst.operands[1];
    KB_RETURN_IF_ERROR(checkId(inst, id));
    if (types_.count(id) || constants_.count(id))
      return error(inst, "id " + idRef(id) + " is defined twice");
    constants_[id] =
        ConstantDef{inst.opcode, inst.operands[0],
                    std::vector<uint32_t>(inst.operands + 2,
                                          inst.operands + inst.operandCount)};
    return okStatus();
  }

  // Records one instruction of the module's declarations; the instructions a
  // reflection does not read (function bodies, most of the rest) are skipped.
  Status record(const Instruction &inst) {
    const uint32_t *ops = inst.operands;
    switch (inst.opcode) {
    case OpName:
    case OpMemberName:
      return recordName(inst);
    case OpCapability:
      capabilities_.push_back(ops[0]);
      return okStatus();
    case OpArrayLength:
      usesArrayLength_ = true;
      return okStatus();
    case OpEntryPoint:
      return recordEntryPoint(inst);
    case OpExecutionMode:
    case OpExecutionModeId:
      modes_.push_back(ExecutionModeDef{
          ops[0], ops[1], inst.opcode == OpExecutionModeId,
          std::vector<uint32_t>(ops + 2, ops + inst.operandCount),
          inst.wordOffset});
      return okStatus();
    case OpTypeBool:
    case OpTypeInt:
    case OpTypeFloat:
    case OpTypeVector:
    case OpTypeMatrix:
    case OpTypeImage:
    case OpTypeSampler:
    case OpTypeSampledImage:
    case OpTypeArray:
    case OpTypeRuntimeArray:
    case OpTypeStruct:
    case OpTypePointer:
      return defineType(inst);
    case OpConstantTrue:
    case OpConstantFalse:
    case OpConstant:
    case OpConstantComposite:
    case OpSpecConstantTrue:
    case OpSpecConstantFalse:
    case OpSpecConstant:
    case OpSpecConstantComposite:
      return defineConstant(inst);
    case OpVariable:
      KB_RETURN_IF_ERROR(checkId(inst, ops[1]));
      variables_.push_back(VariableDef{ops[1], ops[0], ops[2]});
      return okStatus();
    case OpDecorate:
      return recordDecoration(inst);
    case OpMemberDecorate:
      return recordMemberDecoration(inst);
    default:
      return okStatus();
    }
  }

  // OpName names an id, OpMemberName a member of a struct type; both only
  // make messages readable.
  Status recordName(const Instruction &inst) {
    const uint32_t *ops = inst.operands;
    uint32_t next = 0;
    if (inst.opcode == OpName) {
      KB_ASSIGN_OR_RETURN(std::string name, literalString(inst, 1, next));
      names_[ops[0]] = std::move(name);
      return okStatus();
    }
    KB_ASSIGN_OR_RETURN(std::string name, literalString(inst, 2, next));
    memberNames_[ops[0]][ops[1]] = std::move(name);
    return okStatus();
  }

  Status recordEntryPoint(const Instruction &inst) {
    const uint32_t *ops = inst.operands;
    SpirvEntryPoint ep;
    ep.executionModel = ops[0];
    ep.id = ops[1];
    KB_RETURN_IF_ERROR(checkId(inst, ep.id));
    uint32_t next = 0;
    KB_ASSIGN_OR_RETURN(ep.name, literalString(inst, 2, next));
    entryPoints_.push_back(std::move(ep));
    return okStatus();
  }

  // The literal operand at |index| of the decoration |what| into |field|: a
  // decoration that carries a literal must have it (a truncated instruction
  // is an error, not a silently absent binding).
  Status decorationLiteral(const Instruction &inst, uint32_t index,
                           const std::string &what,
                           std::optional<uint32_t> &field) {
    if (inst.operandCount <= index)
      return error(inst, what + " is missing its literal operand");
    field = inst.operands[index];
    return okStatus();
  }

  // OpDecorate: the decorations the reflection reads.
  Status recordDecoration(const Instruction &inst) {
    const uint32_t *ops = inst.operands;
    Decorations &d = decorations_[ops[0]];
    auto literal = [&](std::optional<uint32_t> &field) {
      return decorationLiteral(inst, 2,
                               "decoration " + std::to_string(ops[1]) + " on " +
                                   idRef(ops[0]),
                               field);
    };
    switch (ops[1]) {
    case DecSpecId:
      return literal(d.specId);
    case DecBinding:
      return literal(d.binding);
    case DecDescriptorSet:
      return literal(d.set);
    case DecBuiltIn:
      return literal(d.builtIn);
    case DecArrayStride:
      return literal(d.arrayStride);
    case DecBlock:
      d.block = true;
      break;
    case DecBufferBlock:
      d.bufferBlock = true;
      break;
    case DecNonWritable:
      d.nonWritable = true;
      break;
    case DecNonReadable:
      d.nonReadable = true;
      break;
    default:
      break;
    }
    return okStatus();
  }

  // OpMemberDecorate: as recordDecoration, for a member of a struct type.
  Status recordMemberDecoration(const Instruction &inst) {
    const uint32_t *ops = inst.operands;
    MemberDecorations &d = memberDecorations_[ops[0]][ops[1]];
    auto literal = [&](std::optional<uint32_t> &field) {
      return decorationLiteral(inst, 3,
                               "member decoration " + std::to_string(ops[2]) +
                                   " on " + idRef(ops[0]) + " member " +
                                   std::to_string(ops[1]),
                               field);
    };
    switch (ops[2]) {
    case DecOffset:
      return literal(d.offset);
    case DecMatrixStride:
      return literal(d.matrixStride);
    case DecNonWritable:
      d.nonWritable = true;
      break;
    case DecNonReadable:
      d.nonReadable = true;
      break;
    case DecRowMajor:
      d.rowMajor = true;
      break;
    default:
      break;
    }
    return okStatus();
  }

  const TypeDef *type(uint32_t id) const {
    auto it = types_.find(id);
    return it == types_.end() ? nullptr : &it->second;
  }

  bool isInt32(uint32_t typeId) const {
    const TypeDef *t = type(typeId);
    return t && t->opcode == OpTypeInt && t->operands.size() >= 1 &&
           t->operands[0] == 32;
  }

  /// The value of a 32-bit integer (spec) constant and its SpecId, if any.
  Status scalarConstant(uint32_t id, const std::string &what, uint32_t &value,
                        std::optional<uint32_t> &specId) const {
    auto it = constants_.find(id);
    if (it == constants_.end())
      return invalidArgument("SPIR-V: " + what + " refers to " + idRef(id) +
                             ", which is not a constant");
    const ConstantDef &c = it->second;
    if ((c.opcode != OpConstant && c.opcode != OpSpecConstant) ||
        !isInt32(c.type) || c.operands.size() != 1)
      return invalidArgument("SPIR-V: " + what + " refers to " + idRef(id) +
                             ", which is not a 32-bit integer constant");
    value = c.operands[0];
    specId.reset();
    if (c.opcode == OpSpecConstant) {
      auto dec = decorations_.find(id);
      if (dec != decorations_.end())
        specId = dec->second.specId;
    }
    return okStatus();
  }

  /// Scalar spec constants with a SpecId (spirv-val requires one on every
  /// OpSpecConstant* a pipeline can set; composites have none).
  void resolveSpecConstants(SpirvModule &module) const {
    for (const auto &[id, dec] : decorations_) {
      auto it = constants_.find(id);
      if (!dec.specId || it == constants_.end())
        continue;
      const ConstantDef &c = it->second;
      const TypeDef *t = type(c.type);
      if (!t)
        continue;
      SpirvSpecConstant sc;
      sc.specId = *dec.specId;
      if (auto name = names_.find(id); name != names_.end())
        sc.name = name->second;
      if (c.opcode == OpSpecConstantTrue || c.opcode == OpSpecConstantFalse) {
        sc.type = "bool";
        sc.defaultBits = c.opcode == OpSpecConstantTrue;
      } else if (c.opcode == OpSpecConstant && !c.operands.empty()) {
        sc.type = scalarName(*t);
        sc.defaultBits = c.operands[0];
        if (c.operands.size() > 1)
          sc.defaultBits |= uint64_t(c.operands[1]) << 32;
      } else {
        continue;
      }
      module.specConstants.push_back(std::move(sc));
    }
    std::sort(module.specConstants.begin(), module.specConstants.end(),
              [](const SpirvSpecConstant &a, const SpirvSpecConstant &b) {
                return a.specId < b.specId;
              });
  }

  Status resolveEntryPoints(SpirvModule &module) {
    // The WorkgroupSize builtin (a constant composite) overrides LocalSize
    // and LocalSizeId for every entry point of the module.
    std::optional<std::array<uint32_t, 3>> builtinSize;
    std::array<std::optional<uint32_t>, 3> builtinSpecIds;
    for (const auto &[id, dec] : decorations_) {
      if (dec.builtIn != kBuiltInWorkgroupSize)
        continue;
      auto it = constants_.find(id);
      if (it == constants_.end())
        continue; // Decorating a variable is invalid; spirv-val reports it.
      const ConstantDef &c = it->second;
      if ((c.opcode != OpConstantComposite &&
           c.opcode != OpSpecConstantComposite) ||
          c.operands.size() != 3)
        return invalidArgument("SPIR-V: the WorkgroupSize builtin " +
                               idRef(id) +
                               " is not a composite of 3 constants");
      std::array<uint32_t, 3> size{};
      for (int i = 0; i < 3; ++i)
        KB_RETURN_IF_ERROR(scalarConstant(c.operands[i],
                                          "WorkgroupSize builtin component " +
                                              std::to_string(i),
                                          size[i], builtinSpecIds[i]));
      builtinSize = size;
    }

    for (SpirvEntryPoint &ep : entryPoints_) {
      for (const ExecutionModeDef &mode : modes_) {
        if (mode.target != ep.id)
          continue;
        if (!mode.idOperands && mode.mode == kExecutionModeLocalSize) {
          if (mode.operands.size() != 3)
            return invalidArgument(
                "SPIR-V word " + std::to_string(mode.wordOffset) +
                ": LocalSize of entry point `" + ep.name + "` has " +
                std::to_string(mode.operands.size()) + " operands; expected 3");
          ep.workgroupSize = {mode.operands[0], mode.operands[1],
                              mode.operands[2]};
          ep.specIds = {};
          ep.workgroupSizeSource = "LocalSize";
        } else if (mode.idOperands && mode.mode == kExecutionModeLocalSizeId) {
          if (mode.operands.size() != 3)
            return invalidArgument(
                "SPIR-V word " + std::to_string(mode.wordOffset) +
                ": LocalSizeId of entry point `" + ep.name + "` has " +
                std::to_string(mode.operands.size()) + " operands; expected 3");
          std::array<uint32_t, 3> size{};
          for (int i = 0; i < 3; ++i)
            KB_RETURN_IF_ERROR(
                scalarConstant(mode.operands[i],
                               "LocalSizeId operand " + std::to_string(i) +
                                   " of entry point `" + ep.name + "`",
                               size[i], ep.specIds[i]));
          ep.workgroupSize = size;
          ep.workgroupSizeSource = "LocalSizeId";
        }
      }
      if (builtinSize && ep.executionModel == 5) {
        ep.workgroupSize = builtinSize;
        ep.specIds = builtinSpecIds;
        ep.workgroupSizeSource = "WorkgroupSize builtin";
      }
      module.entryPoints.push_back(ep);
    }
    return okStatus();
  }

  /// Follows arrays (of descriptors) down to the element type.
  const TypeDef *unwrapArrays(uint32_t typeId, uint32_t &finalId) const {
    finalId = typeId;
    const TypeDef *t = type(typeId);
    for (int depth = 0;
         t && depth < kMaxTypeDepth &&
         (t->opcode == OpTypeArray || t->opcode == OpTypeRuntimeArray) &&
         !t->operands.empty();
         ++depth) {
      finalId = t->operands[0];
      t = type(finalId);
    }
    return t;
  }

  static std::string scalarName(const TypeDef &t) {
    if (t.opcode == OpTypeInt && t.operands.size() >= 2)
      return (t.operands[1] ? "i" : "u") + std::to_string(t.operands[0]);
    if (t.opcode == OpTypeFloat && !t.operands.empty())
      return "f" + std::to_string(t.operands[0]);
    return "";
  }

  /// Size in bytes of |typeId| laid out in a block. |member| holds the
  /// decorations of the struct member of this type (matrix stride/order).
  StatusOr<uint64_t> typeSize(uint32_t typeId, const MemberDecorations *member,
                              int depth) const {
    KB_ASSIGN_OR_RETURN(uint64_t size,
                        uncheckedTypeSize(typeId, member, depth));
    // Capping every intermediate size keeps the products above in 64 bits.
    if (size > std::numeric_limits<uint32_t>::max())
      return invalidArgument("SPIR-V: type " + idRef(typeId) +
                             " is larger than 4 GiB");
    return size;
  }

  StatusOr<uint64_t> uncheckedTypeSize(uint32_t typeId,
                                       const MemberDecorations *member,
                                       int depth) const {
    const std::string where = "type " + idRef(typeId);
    if (depth > kMaxTypeDepth)
      return invalidArgument("SPIR-V: " + where +
                             " is nested too deeply (a type cycle?)");
    const TypeDef *t = type(typeId);
    if (!t)
      return invalidArgument("SPIR-V: " + where + " is not defined");
    auto scalarWidth = [&](uint32_t width) -> StatusOr<uint64_t> {
      if (width != 8 && width != 16 && width != 32 && width != 64)
        return invalidArgument("SPIR-V: " + where + " has width " +
                               std::to_string(width) +
                               "; expected 8, 16, 32 or 64");
      return width / 8;
    };
    switch (t->opcode) {
    case OpTypeInt:
    case OpTypeFloat:
      return scalarWidth(t->operands[0]);
    case OpTypeBool:
      if (implicitLayout_)
        return 4; // how drivers store a shared bool
      return invalidArgument("SPIR-V: " + where +
                             " (OpTypeBool) cannot be laid out in a block");
    case OpTypeVector: {
      KB_ASSIGN_OR_RETURN(uint64_t component,
                          typeSize(t->operands[0], nullptr, depth + 1));
      return component * t->operands[1];
    }
    case OpTypeMatrix:
      return matrixSize(*t, where, member, depth);
    case OpTypeArray:
      return arraySize(typeId, *t, where, member, depth);
    case OpTypeStruct:
      return structSize(typeId, *t, depth);
    case OpTypeRuntimeArray:
      return invalidArgument("SPIR-V: " + where +
                             " is a runtime array, which has no static size");
    default:
      return invalidArgument("SPIR-V: " + where + " (" + opName(t->opcode) +
                             ") cannot be laid out in a block");
    }
  }

  /// A matrix is its columns, each a vector; a member's MatrixStride (per
  /// column, or per row when RowMajor) overrides the packed size.
  StatusOr<uint64_t> matrixSize(const TypeDef &t, const std::string &where,
                                const MemberDecorations *member,
                                int depth) const {
    const TypeDef *column = type(t.operands[0]);
    if (!column || column->opcode != OpTypeVector)
      return invalidArgument("SPIR-V: " + where +
                             " is a matrix whose column is not a vector");
    uint64_t columns = t.operands[1], rows = column->operands[1];
    if (member && member->matrixStride)
      return (member->rowMajor ? rows : columns) * *member->matrixStride;
    KB_ASSIGN_OR_RETURN(uint64_t columnSize,
                        typeSize(t.operands[0], nullptr, depth + 1));
    return columns * columnSize;
  }

  /// An array's length is a constant id; its ArrayStride decoration, when
  /// present, gives the element pitch (padding included).
  StatusOr<uint64_t> arraySize(uint32_t typeId, const TypeDef &t,
                               const std::string &where,
                               const MemberDecorations *member,
                               int depth) const {
    uint32_t length = 0;
    std::optional<uint32_t> specId;
    KB_RETURN_IF_ERROR(scalarConstant(
        t.operands[1], "the length of array " + where, length, specId));
    auto dec = decorations_.find(typeId);
    if (dec != decorations_.end() && dec->second.arrayStride)
      return uint64_t{length} * *dec->second.arrayStride;
    KB_ASSIGN_OR_RETURN(uint64_t element,
                        typeSize(t.operands[0], member, depth + 1));
    return uint64_t{length} * element;
  }

  /// A struct ends at its furthest member (Offset + size); one without
  /// offsets is laid out only where the layout is implicit (workgroup).
  StatusOr<uint64_t> structSize(uint32_t typeId, const TypeDef &t,
                                int depth) const {
    uint64_t size = 0;
    for (uint32_t m = 0; m < t.operands.size(); ++m) {
      const MemberDecorations *md = memberDecoration(typeId, m);
      if ((!md || !md->offset) && implicitLayout_) {
        // Workgroup structs carry no layout: members in order, each at
        // its scalar alignment.
        KB_ASSIGN_OR_RETURN(uint64_t memberSize,
                            typeSize(t.operands[m], md, depth + 1));
        uint64_t align = scalarAlignment(t.operands[m], depth + 1);
        size = (size + align - 1) / align * align + memberSize;
        continue;
      }
      if (!md || !md->offset)
        return invalidArgument("SPIR-V: member " + std::to_string(m) +
                               " of struct " + idRef(typeId) +
                               " has no Offset decoration");
      KB_ASSIGN_OR_RETURN(uint64_t memberSize,
                          typeSize(t.operands[m], md, depth + 1));
      size = std::max(size, uint64_t{*md->offset} + memberSize);
    }
    return size;
  }

  /// The width in bytes of the first scalar inside |typeId| (1 when none):
  /// the alignment of a member without an explicit layout.
  uint64_t scalarAlignment(uint32_t typeId, int depth) const {
    const TypeDef *t = type(typeId);
    for (; t && depth < kMaxTypeDepth && !t->operands.empty(); ++depth) {
      if (t->opcode == OpTypeInt || t->opcode == OpTypeFloat)
        return std::max<uint64_t>(1, t->operands[0] / 8);
      if (t->opcode != OpTypeVector && t->opcode != OpTypeMatrix &&
          t->opcode != OpTypeArray && t->opcode != OpTypeStruct)
        break;
      t = type(t->operands[0]);
    }
    return 1;
  }

  /// The element type of the array that ends storage block |structId|.
  void storageElement(uint32_t structId, SpirvResource &res) const {
    const TypeDef *block = type(structId);
    if (!block || block->opcode != OpTypeStruct || block->operands.empty())
      return;
    const TypeDef *last = type(block->operands.back());
    if (!last ||
        (last->opcode != OpTypeRuntimeArray && last->opcode != OpTypeArray) ||
        last->operands.empty())
      return;
    const TypeDef *element = type(last->operands[0]);
    uint32_t vectorSize = 1;
    if (element && element->opcode == OpTypeVector &&
        element->operands.size() >= 2) {
      vectorSize = element->operands[1];
      element = type(element->operands[0]);
    }
    if (!element)
      return;
    res.elementType = scalarName(*element);
    res.elementVectorSize = res.elementType.empty() ? 0 : vectorSize;
    if (element->opcode == OpTypeStruct) {
      auto layout = structElement(block->operands.back(), last->operands[0]);
      if (layout.ok())
        res.elementStruct = std::move(*layout);
      else
        res.elementStructError = layout.status().message();
    }
  }

  /// A bound on what one struct element may expand to: garbage could make
  /// a small module describe millions of members.
  static constexpr size_t kMaxMembers = 1024;

  /// The layout of the struct |structId|, the element of the array type
  /// |arrayId| that ends a storage block: its ArrayStride and its members
  /// flattened (flattenMember).
  StatusOr<StructLayout> structElement(uint32_t arrayId,
                                       uint32_t structId) const {
    auto dec = decorations_.find(arrayId);
    if (dec == decorations_.end() || !dec->second.arrayStride)
      return invalidArgument("the array of structs " + idRef(arrayId) +
                             " has no ArrayStride decoration");
    StructLayout layout;
    layout.name = variableName(structId);
    layout.stride = *dec->second.arrayStride;
    KB_RETURN_IF_ERROR(flattenStruct(structId, 0, "", 0, layout));
    std::stable_sort(layout.members.begin(), layout.members.end(),
                     [](const StructMember &a, const StructMember &b) {
                       return a.offset < b.offset;
                     });
    std::string wrong = checkStructLayout(layout);
    if (!wrong.empty())
      return invalidArgument(
          "struct " + (layout.name.empty() ? idRef(structId) : layout.name) +
          ": " + wrong);
    return layout;
  }

  /// Appends the members of struct |structId| at byte |base| to |layout|,
  /// each named |prefix| + its OpMemberName.
  Status flattenStruct(uint32_t structId, uint64_t base,
                       const std::string &prefix, int depth,
                       StructLayout &layout) const {
    const TypeDef *t = type(structId);
    if (!t || t->opcode != OpTypeStruct)
      return invalidArgument(idRef(structId) + " is not a struct");
    if (depth > kMaxTypeDepth)
      return invalidArgument("struct " + idRef(structId) +
                             " is nested too deeply");
    // A struct with no members adds no member to count against
    // kMaxMembers, so arrays of arrays of them would be walked without end.
    if (t->operands.empty())
      return invalidArgument("struct " + idRef(structId) +
                             " has no members: nothing a benchmark can fill");
    for (uint32_t m = 0; m < t->operands.size(); ++m) {
      std::string name = memberName(structId, m);
      if (name.empty())
        name = std::to_string(m);
      const MemberDecorations *md = memberDecoration(structId, m);
      if (!md || !md->offset)
        return invalidArgument("member `" + prefix + name + "` of struct " +
                               idRef(structId) + " has no Offset decoration");
      KB_RETURN_IF_ERROR(flattenMember(t->operands[m], md, base + *md->offset,
                                       prefix + name, depth + 1, layout));
    }
    return okStatus();
  }

  /// Appends the member |name| of type |typeId| at byte |offset|: a scalar
  /// or vector as itself, an array of them with its ArrayStride, a matrix
  /// as its columns (MatrixStride apart), a struct as its members.
  Status flattenMember(uint32_t typeId, const MemberDecorations *md,
                       uint64_t offset, const std::string &name, int depth,
                       StructLayout &layout) const {
    if (layout.members.size() >= kMaxMembers || offset > UINT32_MAX)
      return invalidArgument("member `" + name + "` is past " +
                             std::to_string(kMaxMembers) + " members or 4 GiB");
    const TypeDef *t = type(typeId);
    if (t && t->opcode == OpTypeStruct)
      return flattenStruct(typeId, offset, name + ".", depth, layout);
    StructMember member;
    member.name = name;
    member.offset = static_cast<uint32_t>(offset);
    uint32_t leafId = typeId;
    if (t && t->opcode == OpTypeArray) {
      KB_RETURN_IF_ERROR(arrayMember(typeId, *t, name, member));
      leafId = t->operands[0];
      const TypeDef *entry = type(leafId);
      if (entry && entry->opcode == OpTypeStruct)
        return flattenStructArray(leafId, member, depth, layout);
    } else if (t && t->opcode == OpTypeMatrix) {
      // Its columns are its vectors; a row-major one would need a
      // transposed walk the fill and compare do not make.
      if (!md || !md->matrixStride || md->rowMajor)
        return invalidArgument("matrix member `" + name +
                               "` is not column-major with a MatrixStride; "
                               "declare it column_major");
      member.count = t->operands[1];
      member.arrayStride = *md->matrixStride;
      leafId = t->operands[0];
    }
    KB_RETURN_IF_ERROR(leafMember(leafId, name, member));
    layout.members.push_back(std::move(member));
    return okStatus();
  }

  /// The length and ArrayStride of the array member |name| into |member|.
  Status arrayMember(uint32_t typeId, const TypeDef &t, const std::string &name,
                     StructMember &member) const {
    std::optional<uint32_t> specId;
    KB_RETURN_IF_ERROR(scalarConstant(
        t.operands[1], "the length of array member `" + name + "`",
        member.count, specId));
    auto dec = decorations_.find(typeId);
    if (dec == decorations_.end() || !dec->second.arrayStride)
      return invalidArgument("array member `" + name +
                             "` has no ArrayStride decoration");
    member.arrayStride = *dec->second.arrayStride;
    return okStatus();
  }

  /// An array of |array.count| structs |structId|: each entry's members,
  /// named "name[k].member".
  Status flattenStructArray(uint32_t structId, const StructMember &array,
                            int depth, StructLayout &layout) const {
    if (array.count > kMaxMembers)
      return invalidArgument("member `" + array.name + "` is an array of " +
                             std::to_string(array.count) + " structs");
    for (uint32_t k = 0; k < array.count; ++k)
      KB_RETURN_IF_ERROR(flattenStruct(
          structId, array.offset + uint64_t{k} * array.arrayStride,
          array.name + "[" + std::to_string(k) + "].", depth, layout));
    return okStatus();
  }

  /// The scalar or vector |typeId| of member |name| into |member|'s type
  /// and components; anything else (bool, a nested array, a pointer) has
  /// no byte layout a benchmark can fill.
  Status leafMember(uint32_t typeId, const std::string &name,
                    StructMember &member) const {
    const TypeDef *t = type(typeId);
    if (t && t->opcode == OpTypeVector && t->operands.size() >= 2) {
      member.components = t->operands[1];
      t = type(t->operands[0]);
    }
    std::optional<ElementType> scalar;
    if (t)
      scalar = parseElementType(scalarName(*t));
    if (!scalar)
      return invalidArgument(
          "member `" + name + "` is " +
          (t ? std::string(opName(t->opcode)) : "an undefined type") +
          "; a struct element's members must be numbers, vectors, arrays "
          "of them or structs");
    member.type = *scalar;
    return okStatus();
  }

  Status workgroupMemory(uint32_t pointee, SpirvModule &module) {
    implicitLayout_ = true;
    auto size = typeSize(pointee, nullptr, 0);
    implicitLayout_ = false;
    // A type this reader cannot size is left to the driver (and
    // spirv-val): the module stays readable, that variable uncounted.
    if (!size.ok())
      return okStatus();
    module.workgroupMemoryBytes += *size;
    if (module.workgroupMemoryBytes > std::numeric_limits<uint32_t>::max())
      return invalidArgument("SPIR-V: the workgroup variables take more "
                             "than 4 GiB");
    return okStatus();
  }

  const MemberDecorations *memberDecoration(uint32_t structId,
                                            uint32_t member) const {
    auto it = memberDecorations_.find(structId);
    if (it == memberDecorations_.end())
      return nullptr;
    auto m = it->second.find(member);
    return m == it->second.end() ? nullptr : &m->second;
  }

  std::string variableName(uint32_t id) const {
    auto it = names_.find(id);
    return it == names_.end() ? std::string() : it->second;
  }

  std::string memberName(uint32_t structId, uint32_t member) const {
    auto it = memberNames_.find(structId);
    if (it == memberNames_.end())
      return "";
    auto m = it->second.find(member);
    return m == it->second.end() ? std::string() : m->second;
  }

  Status resolveResources(SpirvModule &module) {
    for (const VariableDef &var : variables_) {
      const TypeDef *ptr = type(var.pointerType);
      if (!ptr || ptr->opcode != OpTypePointer)
        return invalidArgument("SPIR-V: variable " + idRef(var.id) +
                               " has type " + idRef(var.pointerType) +
                               ", which is not a pointer type");
      uint32_t pointee = ptr->operands[1];
      if (var.storageClass == kStorageWorkgroup) {
        KB_RETURN_IF_ERROR(workgroupMemory(pointee, module));
        continue;
      }
      if (var.storageClass == kStoragePushConstant) {
        if (module.pushConstants)
          return invalidArgument("SPIR-V: more than one push-constant block (" +
                                 idRef(var.id) +
                                 "); the kernel ABI has exactly one");
        KB_ASSIGN_OR_RETURN(module.pushConstants,
                            blockLayout(var, pointee, "push-constant"));
        continue;
      }
      if (var.storageClass != kStorageUniformConstant &&
          var.storageClass != kStorageUniform &&
          var.storageClass != kStorageStorageBuffer)
        continue;
      SpirvResource res;
      res.name = variableName(var.id);
      Decorations dec;
      if (auto it = decorations_.find(var.id); it != decorations_.end())
        dec = it->second;
      if (!dec.set || !dec.binding)
        return invalidArgument(
            "SPIR-V: resource variable " + idRef(var.id) +
            (res.name.empty() ? "" : " (`" + res.name + "`)") +
            " has no DescriptorSet/Binding decoration");
      res.set = *dec.set;
      res.binding = *dec.binding;
      uint32_t elementId = 0;
      const TypeDef *element = unwrapArrays(pointee, elementId);
      if (element && element->opcode == OpTypeStruct) {
        KB_RETURN_IF_ERROR(
            blockResource(var, pointee, elementId, *element, dec, res));
      } else {
        if (element && (element->opcode == OpTypeImage ||
                        element->opcode == OpTypeSampledImage))
          res.kind = SpirvResource::Kind::Image;
        else if (element && element->opcode == OpTypeSampler)
          res.kind = SpirvResource::Kind::Sampler;
        res.nonWritable = dec.nonWritable;
        res.nonReadable = dec.nonReadable;
      }
      module.resources.push_back(std::move(res));
    }
    return okStatus();
  }

  /// A resource whose (element) type is the struct |elementId|: a storage
  /// or uniform buffer, with its access, names and element or members.
  /// |pointee| is the variable's type (an array of blocks differs from it).
  Status blockResource(const VariableDef &var, uint32_t pointee,
                       uint32_t elementId, const TypeDef &element,
                       const Decorations &dec, SpirvResource &res) const {
    Decorations elementDec;
    if (auto it = decorations_.find(elementId); it != decorations_.end())
      elementDec = it->second;
    if (var.storageClass == kStorageStorageBuffer ||
        (var.storageClass == kStorageUniform && elementDec.bufferBlock))
      res.kind = SpirvResource::Kind::StorageBuffer;
    else if (var.storageClass == kStorageUniform && elementDec.block)
      res.kind = SpirvResource::Kind::UniformBuffer;
    bool noWrites = !element.operands.empty();
    bool noReads = noWrites;
    for (uint32_t m = 0; m < element.operands.size(); ++m) {
      const MemberDecorations *md = memberDecoration(elementId, m);
      noWrites = noWrites && md && md->nonWritable;
      noReads = noReads && md && md->nonReadable;
    }
    res.nonWritable = dec.nonWritable || noWrites;
    res.nonReadable = dec.nonReadable || noReads;
    res.blockName = variableName(elementId);
    if (!element.operands.empty())
      res.lastMemberName = memberName(elementId, element.operands.size() - 1);
    if (res.kind == SpirvResource::Kind::StorageBuffer)
      storageElement(elementId, res);
    // One block, not an array of them: the constants may live there.
    if (res.kind == SpirvResource::Kind::UniformBuffer &&
        elementId == pointee) {
      KB_ASSIGN_OR_RETURN(res.uniformBlock,
                          blockLayout(var, pointee, "uniform-block"));
    }
    return okStatus();
  }

  /// "a vector", "a matrix", ... for a non-scalar member; "" for a scalar.
  static std::string shapeName(const TypeDef *t) {
    if (!t)
      return "another type";
    switch (t->opcode) {
    case OpTypeInt:
    case OpTypeFloat:
      return "";
    case OpTypeVector:
      return "a vector";
    case OpTypeMatrix:
      return "a matrix";
    case OpTypeArray:
    case OpTypeRuntimeArray:
      return "an array";
    case OpTypeStruct:
      return "a struct";
    default:
      return "another type";
    }
  }

  /// The members of the block |structId| of |var| (a push-constant or
  /// uniform block, |what| in messages): Offset decorations, sizes, types.
  StatusOr<SpirvBlockLayout> blockLayout(const VariableDef &var,
                                         uint32_t structId,
                                         const std::string &what) const {
    const TypeDef *block = type(structId);
    if (!block || block->opcode != OpTypeStruct)
      return invalidArgument("SPIR-V: " + what + " variable " + idRef(var.id) +
                             " does not point to a struct");
    SpirvBlockLayout layout;
    uint64_t size = 0;
    for (uint32_t m = 0; m < block->operands.size(); ++m) {
      const MemberDecorations *md = memberDecoration(structId, m);
      if (!md || !md->offset)
        return invalidArgument("SPIR-V: " + what + " member " +
                               std::to_string(m) + " has no Offset decoration");
      KB_ASSIGN_OR_RETURN(uint64_t memberSize,
                          typeSize(block->operands[m], md, 0));
      uint64_t end = uint64_t{*md->offset} + memberSize;
      if (end > std::numeric_limits<uint32_t>::max())
        return invalidArgument("SPIR-V: " + what + " member " +
                               std::to_string(m) + " ends past 4 GiB");
      size = std::max(size, end);
      layout.memberOffsets.push_back(*md->offset);
      layout.memberSizes.push_back(static_cast<uint32_t>(memberSize));
      const TypeDef *memberType = type(block->operands[m]);
      layout.memberTypes.push_back(memberType ? scalarName(*memberType) : "");
      layout.memberShapes.push_back(shapeName(memberType));
      layout.memberNames.push_back(memberName(structId, m));
    }
    layout.size = static_cast<uint32_t>(size);
    StructLayout leaves;
    Status flattened = flattenStruct(structId, 0, "", 0, leaves);
    if (flattened.ok())
      flattened = checkBlockScalars(leaves, what);
    if (flattened.ok())
      layout.leaves = std::move(leaves.members);
    else
      layout.leavesError = flattened.message();
    return layout;
  }

  /// A block's scalars one by one are what a dispatch passes: at most
  /// kMaxBlockScalars (4 KiB of 32-bit values, past any device's
  /// push-constant limit), each array's entries apart.
  static Status checkBlockScalars(const StructLayout &leaves,
                                  const std::string &what) {
    constexpr uint64_t kMaxBlockScalars = 1024;
    uint64_t scalars = 0;
    for (const StructMember &m : leaves.members) {
      uint64_t entry = uint64_t{byteSize(m.type)} * m.components;
      if (m.count > 1 && m.arrayStride < entry)
        return invalidArgument(
            "array member `" + m.name + "` of the " + what +
            " block has entries " + std::to_string(m.arrayStride) +
            " bytes apart, each " + std::to_string(entry) + " bytes");
      scalars += uint64_t{m.count} * m.components;
    }
    if (scalars > kMaxBlockScalars)
      return invalidArgument("the " + what + " block holds " +
                             std::to_string(scalars) + " scalars; at most " +
                             std::to_string(kMaxBlockScalars) +
                             " (4 KiB, past any device's push-constant limit)");
    return okStatus();
  }

  uint32_t bound_ = 0;
  std::unordered_map<uint32_t, std::string> names_;
  std::unordered_map<uint32_t, std::map<uint32_t, std::string>> memberNames_;
  std::vector<uint32_t> capabilities_;
  bool usesArrayLength_ = false;
  std::vector<SpirvEntryPoint> entryPoints_;
  std::vector<ExecutionModeDef> modes_;
  std::unordered_map<uint32_t, TypeDef> types_;
  std::unordered_map<uint32_t, ConstantDef> constants_;
  std::map<uint32_t, Decorations> decorations_;
  std::unordered_map<uint32_t, std::map<uint32_t, MemberDecorations>>
      memberDecorations_;
  std::vector<VariableDef> variables_;
  /// typeSize lays out structs without Offset decorations (Workgroup).
  bool implicitLayout_ = false;
};

uint32_t byteSwap(uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}

} // namespace

const SpirvEntryPoint *
SpirvModule::findEntryPoint(std::string_view name) const {
  for (const SpirvEntryPoint &ep : entryPoints)
    if (ep.name == name)
      return &ep;
  return nullptr;
}

StatusOr<SpirvModule> readSpirv(const uint32_t *words, size_t count) {
  if (count > 0 && words == nullptr)
    return invalidArgument("SPIR-V: null word pointer");
  // The magic number also tells the word order; a module written by a
  // big-endian producer is read after swapping.
  if (count > 0 && words[0] == kMagicSwapped) {
    std::vector<uint32_t> swapped(words, words + count);
    for (uint32_t &w : swapped)
      w = byteSwap(w);
    return Reflector().run(swapped.data(), swapped.size());
  }
  return Reflector().run(words, count);
}

StatusOr<SpirvModule> readSpirvBytes(std::string_view bytes) {
  if (bytes.size() % 4 != 0)
    return invalidArgument("SPIR-V binary is " + std::to_string(bytes.size()) +
                           " bytes, not a multiple of 4: truncated or not "
                           "SPIR-V");
  std::vector<uint32_t> words(bytes.size() / 4);
  for (size_t i = 0; i < words.size(); ++i) {
    const auto *b =
        reinterpret_cast<const unsigned char *>(bytes.data() + 4 * i);
    words[i] = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 |
               uint32_t{b[3]} << 24;
  }
  return readSpirv(words.data(), words.size());
}

bool flattensToScalars(const SpirvBlockLayout &block) {
  return std::any_of(block.memberShapes.begin(), block.memberShapes.end(),
                     [](const std::string &shape) {
                       return shape == "an array" || shape == "a vector" ||
                              shape == "a struct";
                     });
}

} // namespace kb

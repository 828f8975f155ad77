//===- common/kernel_abi.cpp - The kernel ABI model -----------------------===//
#include "common/kernel_abi.h"

#include <algorithm>

namespace kb {
namespace {
struct ElementName {
  ElementType type;
  const char *name;
  uint32_t size;
};
constexpr ElementName kElementNames[] = {
    {ElementType::I8, "i8", 1},   {ElementType::U8, "u8", 1},
    {ElementType::I16, "i16", 2}, {ElementType::U16, "u16", 2},
    {ElementType::I32, "i32", 4}, {ElementType::U32, "u32", 4},
    {ElementType::I64, "i64", 8}, {ElementType::U64, "u64", 8},
    {ElementType::F16, "f16", 2}, {ElementType::BF16, "bf16", 2},
    {ElementType::F32, "f32", 4}, {ElementType::F64, "f64", 8},
};
struct ScalarName {
  ScalarType type;
  const char *name;
  uint32_t size;
};
constexpr ScalarName kScalarNames[] = {
    {ScalarType::I32, "i32", 4}, {ScalarType::U32, "u32", 4},
    {ScalarType::F32, "f32", 4}, {ScalarType::I64, "i64", 8},
    {ScalarType::U64, "u64", 8}, {ScalarType::F64, "f64", 8},
};
struct AccessName {
  Access access;
  const char *name;
};
constexpr AccessName kAccessNames[] = {{Access::ReadOnly, "readonly"},
                                       {Access::WriteOnly, "writeonly"},
                                       {Access::ReadWrite, "readwrite"}};

uint32_t alignUp(uint32_t value, uint32_t align) {
  return (value + align - 1) / align * align;
}
} // namespace

const char *toString(ElementType type) {
  for (const auto &e : kElementNames)
    if (e.type == type)
      return e.name;
  return "?";
}
const char *toString(ScalarType type) {
  for (const auto &e : kScalarNames)
    if (e.type == type)
      return e.name;
  return "?";
}
const char *toString(Access access) {
  for (const auto &e : kAccessNames)
    if (e.access == access)
      return e.name;
  return "?";
}
std::optional<ElementType> parseElementType(std::string_view text) {
  for (const auto &e : kElementNames)
    if (text == e.name)
      return e.type;
  return std::nullopt;
}
std::optional<ScalarType> parseScalarType(std::string_view text) {
  for (const auto &e : kScalarNames)
    if (text == e.name)
      return e.type;
  return std::nullopt;
}
std::optional<Access> parseAccess(std::string_view text) {
  for (const auto &e : kAccessNames)
    if (text == e.name)
      return e.access;
  return std::nullopt;
}
const char *validElementTypes() {
  return "i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64";
}
const char *validScalarTypes() { return "i32, u32, f32, i64, u64, f64"; }
const char *validAccesses() { return "readonly, writeonly, readwrite"; }

uint32_t byteSize(ElementType type) {
  for (const auto &e : kElementNames)
    if (e.type == type)
      return e.size;
  return 0;
}
uint32_t byteSize(ScalarType type) {
  for (const auto &e : kScalarNames)
    if (e.type == type)
      return e.size;
  return 0;
}

std::vector<uint32_t> parameterSlots(const KernelAbi &abi) {
  if (!abi.parameterOrder.empty())
    return abi.parameterOrder;
  std::vector<uint32_t> slots(abi.bindings.size() + abi.constants.size());
  for (size_t i = 0; i < slots.size(); ++i)
    slots[i] = static_cast<uint32_t>(i);
  return slots;
}

std::string checkParameterOrder(const KernelAbi &abi) {
  if (abi.parameterOrder.empty())
    return "";
  size_t count = abi.bindings.size() + abi.constants.size();
  std::vector<bool> seen(count, false);
  for (uint32_t slot : abi.parameterOrder) {
    if (slot >= count)
      return "slot " + std::to_string(slot) + " is out of range (" +
             std::to_string(abi.bindings.size()) + " bindings, " +
             std::to_string(abi.constants.size()) + " constants)";
    if (seen[slot])
      return describeSlot(abi, slot) + " is listed twice";
    seen[slot] = true;
  }
  for (size_t slot = 0; slot < count; ++slot)
    if (!seen[slot])
      return describeSlot(abi, slot) + " is missing";
  return "";
}

std::vector<ParamSlot> cudaParamLayout(const KernelAbi &abi) {
  std::vector<ParamSlot> slots;
  uint32_t offset = 0;
  size_t count = abi.bindings.size() + abi.constants.size();
  for (uint32_t slot : parameterSlots(abi)) {
    if (slot >= count) // checkParameterOrder refuses it where it is read
      continue;
    uint32_t size =
        slot < abi.bindings.size()
            ? 8
            : byteSize(abi.constants[slot - abi.bindings.size()].type);
    offset = alignUp(offset, size);
    slots.push_back({offset, size, size, slot});
    offset += size;
  }
  return slots;
}

std::vector<ParamSlot> pushConstantLayout(const KernelAbi &abi) {
  std::vector<ParamSlot> slots;
  uint32_t offset = 0;
  for (const Constant &c : abi.constants) {
    uint32_t size = byteSize(c.type);
    offset = alignUp(offset, size);
    slots.push_back({offset, size, size});
    offset += size;
  }
  return slots;
}

uint32_t pushConstantSize(const KernelAbi &abi) {
  std::vector<ParamSlot> slots = pushConstantLayout(abi);
  if (slots.empty())
    return 0;
  return slots.back().offset + slots.back().size;
}

std::vector<uint8_t> packUniformConstants(const KernelAbi &abi,
                                          const std::vector<uint8_t> &packed) {
  if (!abi.uniformConstants || packed.size() != pushConstantSize(abi))
    return {};
  const UniformConstants &block = *abi.uniformConstants;
  std::vector<ParamSlot> from = pushConstantLayout(abi);
  if (block.offsets.size() != from.size())
    return {};
  // A zero-sized range cannot be bound: an empty block still gets a word.
  std::vector<uint8_t> bytes(std::max<uint32_t>(block.size, 4), 0);
  for (size_t i = 0; i < from.size(); ++i) {
    uint64_t end = uint64_t{block.offsets[i]} + from[i].size;
    if (end > bytes.size())
      return {};
    std::copy_n(packed.begin() + from[i].offset, from[i].size,
                bytes.begin() + block.offsets[i]);
  }
  return bytes;
}

std::string describeUniformConstants(const KernelAbi &abi) {
  if (!abi.uniformConstants)
    return "";
  const UniformConstants &block = *abi.uniformConstants;
  std::string offsets;
  for (uint32_t offset : block.offsets)
    offsets += (offsets.empty() ? "" : ", ") + std::to_string(offset);
  return "uniform buffer at set 0 binding " + std::to_string(block.binding) +
         " (std140 offsets " + (offsets.empty() ? "none" : offsets) + "; " +
         std::to_string(block.size) + " bytes)";
}

std::optional<std::array<uint32_t, 3>>
workgroupCountFor(const KernelAbi &abi,
                  const std::array<uint64_t, 3> &workload) {
  const auto &per = abi.workloadPerWorkgroup;
  if (!per[0] || !per[1] || !per[2])
    return std::nullopt;
  std::array<uint32_t, 3> count;
  for (size_t d = 0; d < 3; ++d) {
    uint64_t n = workload[d] / per[d] + (workload[d] % per[d] != 0);
    if (n == 0 || n > UINT32_MAX)
      return std::nullopt;
    count[d] = static_cast<uint32_t>(n);
  }
  return count;
}

std::string structMemberTypeName(const StructMember &member) {
  // GLSL's spelling, which is how the kernel author wrote the struct.
  const char *scalar = "?";
  const char *vector = "?";
  switch (member.type) {
  case ElementType::F32:
    scalar = "float", vector = "vec";
    break;
  case ElementType::F64:
    scalar = "double", vector = "dvec";
    break;
  case ElementType::I32:
    scalar = "int", vector = "ivec";
    break;
  case ElementType::U32:
    scalar = "uint", vector = "uvec";
    break;
  case ElementType::F16:
    scalar = "float16_t", vector = "f16vec";
    break;
  case ElementType::I64:
    scalar = "int64_t", vector = "i64vec";
    break;
  case ElementType::U64:
    scalar = "uint64_t", vector = "u64vec";
    break;
  case ElementType::I16:
    scalar = "int16_t", vector = "i16vec";
    break;
  case ElementType::U16:
    scalar = "uint16_t", vector = "u16vec";
    break;
  case ElementType::I8:
    scalar = "int8_t", vector = "i8vec";
    break;
  case ElementType::U8:
    scalar = "uint8_t", vector = "u8vec";
    break;
  case ElementType::BF16:
    scalar = "bfloat16_t", vector = "bf16vec";
    break;
  }
  std::string text = member.components == 1
                         ? std::string(scalar)
                         : vector + std::to_string(member.components);
  if (member.count != 1)
    text += "[" + std::to_string(member.count) + "]";
  return text;
}

std::string describeStructLayout(const StructLayout &layout) {
  std::string text = (layout.name.empty() ? "a struct" : layout.name) + ", " +
                     std::to_string(layout.stride) + " bytes:";
  for (size_t i = 0; i < layout.members.size(); ++i) {
    const StructMember &m = layout.members[i];
    text += (i ? ", " : " ") +
            (m.name.empty() ? "member " + std::to_string(i) : m.name) + " " +
            structMemberTypeName(m) + " at " + std::to_string(m.offset);
    // std140 pads array entries to 16 bytes: two layouts that differ only
    // there must not read the same.
    if (m.count > 1 && m.arrayStride != byteSize(m.type) * m.components)
      text += " (entries " + std::to_string(m.arrayStride) + " bytes apart)";
  }
  if (layout.members.empty())
    text += " no members";
  return text;
}

uint32_t elementByteSize(const Binding &binding) {
  return binding.structLayout ? binding.structLayout->stride
                              : byteSize(binding.elementType);
}

std::string checkStructLayout(const StructLayout &layout) {
  // Large enough for any struct a shader declares, small enough that a
  // hostile module cannot make the fill loop's arithmetic overflow.
  constexpr uint32_t kMaxStride = 1u << 20;
  if (layout.stride == 0 || layout.stride > kMaxStride)
    return "stride " + std::to_string(layout.stride) +
           " bytes is not between 1 and " + std::to_string(kMaxStride);
  uint64_t previousEnd = 0; // members come in offset order, apart
  for (size_t i = 0; i < layout.members.size(); ++i) {
    const StructMember &m = layout.members[i];
    std::string which = "member " + std::to_string(i) +
                        (m.name.empty() ? "" : " (`" + m.name + "`)");
    uint64_t entry = uint64_t{byteSize(m.type)} * m.components;
    if (m.components < 1 || m.components > 4)
      return which + " has " + std::to_string(m.components) +
             " components; a vector has 1 to 4";
    if (m.count < 1 || (m.count > 1 && m.arrayStride < entry))
      return which + " is an array of " + std::to_string(m.count) +
             " entries " + std::to_string(m.arrayStride) +
             " bytes apart, each " + std::to_string(entry) + " bytes";
    // Overlapping members would make the fill and the compare touch each
    // byte many times over (a hostile layout's 1024 members on 1 MiB).
    if (m.offset < previousEnd)
      return which + " starts at byte " + std::to_string(m.offset) +
             ", inside the member before it (which ends at byte " +
             std::to_string(previousEnd) + ")";
    uint64_t end = m.offset + uint64_t{m.count - 1} * m.arrayStride + entry;
    if (end > layout.stride)
      return which + " ends at byte " + std::to_string(end) +
             ", past the stride of " + std::to_string(layout.stride) + " bytes";
    previousEnd = end;
  }
  return "";
}

std::string describeBinding(const KernelAbi &abi, size_t index) {
  std::string s = "binding " + std::to_string(index);
  if (index < abi.bindings.size() && !abi.bindings[index].name.empty())
    s += " (`" + abi.bindings[index].name + "`)";
  return s;
}
std::string describeConstant(const KernelAbi &abi, size_t index) {
  std::string s = "constant " + std::to_string(index);
  if (index < abi.constants.size() && !abi.constants[index].name.empty())
    s += " (`" + abi.constants[index].name + "`)";
  return s;
}

std::string describeSlot(const KernelAbi &abi, size_t slot) {
  return slot < abi.bindings.size()
             ? describeBinding(abi, slot)
             : describeConstant(abi, slot - abi.bindings.size());
}

std::string formatSignature(const KernelAbi &abi) {
  std::string text = abi.entry + "(";
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    std::string type = b.structLayout
                           ? "struct" + (b.structLayout->name.empty()
                                             ? std::string()
                                             : " " + b.structLayout->name)
                           : std::string(toString(b.elementType));
    text += (i ? ", " : "") + (b.name.empty() ? "" : b.name + ": ") + type +
            " " + toString(b.access);
  }
  if (!abi.constants.empty() && !abi.bindings.empty())
    text += "; ";
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    const Constant &c = abi.constants[i];
    text += (i ? ", " : "") + (c.name.empty() ? "" : c.name + ": ") +
            toString(c.type);
  }
  text += ")";
  if (abi.parameterOrder.empty())
    return text;
  // The kernel's own parameter order, by name where there is one.
  text += " as parameters (";
  for (size_t i = 0; i < abi.parameterOrder.size(); ++i) {
    uint32_t slot = abi.parameterOrder[i];
    size_t bindings = abi.bindings.size();
    const std::string *name = slot < bindings ? &abi.bindings[slot].name
                              : slot - bindings < abi.constants.size()
                                  ? &abi.constants[slot - bindings].name
                                  : nullptr;
    text += (i ? ", " : "") +
            (name && !name->empty() ? *name : "#" + std::to_string(slot));
  }
  return text + ")";
}

} // namespace kb

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
    text += (i ? ", " : "") + (b.name.empty() ? "" : b.name + ": ") +
            toString(b.elementType) + " " + toString(b.access);
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

//===- KBAbi.cpp - kb dialect <-> common/kernel_abi.h ---------------------===//
#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::kb;

::kb::ElementType mlir::kb::toCommon(BindingElementType type) {
  switch (type) {
  case BindingElementType::I8:
    return ::kb::ElementType::I8;
  case BindingElementType::U8:
    return ::kb::ElementType::U8;
  case BindingElementType::I16:
    return ::kb::ElementType::I16;
  case BindingElementType::U16:
    return ::kb::ElementType::U16;
  case BindingElementType::I32:
    return ::kb::ElementType::I32;
  case BindingElementType::U32:
    return ::kb::ElementType::U32;
  case BindingElementType::I64:
    return ::kb::ElementType::I64;
  case BindingElementType::U64:
    return ::kb::ElementType::U64;
  case BindingElementType::F16:
    return ::kb::ElementType::F16;
  case BindingElementType::BF16:
    return ::kb::ElementType::BF16;
  case BindingElementType::F32:
    return ::kb::ElementType::F32;
  case BindingElementType::F64:
    return ::kb::ElementType::F64;
  }
  llvm_unreachable("unknown BindingElementType");
}

::kb::ScalarType mlir::kb::toCommon(ConstantType type) {
  switch (type) {
  case ConstantType::I32:
    return ::kb::ScalarType::I32;
  case ConstantType::U32:
    return ::kb::ScalarType::U32;
  case ConstantType::F32:
    return ::kb::ScalarType::F32;
  case ConstantType::I64:
    return ::kb::ScalarType::I64;
  case ConstantType::U64:
    return ::kb::ScalarType::U64;
  case ConstantType::F64:
    return ::kb::ScalarType::F64;
  }
  llvm_unreachable("unknown ConstantType");
}

::kb::Access mlir::kb::toCommon(BindingAccess access) {
  switch (access) {
  case BindingAccess::ReadOnly:
    return ::kb::Access::ReadOnly;
  case BindingAccess::WriteOnly:
    return ::kb::Access::WriteOnly;
  case BindingAccess::ReadWrite:
    return ::kb::Access::ReadWrite;
  }
  llvm_unreachable("unknown BindingAccess");
}

BindingElementType mlir::kb::fromCommon(::kb::ElementType type) {
  switch (type) {
  case ::kb::ElementType::I8:
    return BindingElementType::I8;
  case ::kb::ElementType::U8:
    return BindingElementType::U8;
  case ::kb::ElementType::I16:
    return BindingElementType::I16;
  case ::kb::ElementType::U16:
    return BindingElementType::U16;
  case ::kb::ElementType::I32:
    return BindingElementType::I32;
  case ::kb::ElementType::U32:
    return BindingElementType::U32;
  case ::kb::ElementType::I64:
    return BindingElementType::I64;
  case ::kb::ElementType::U64:
    return BindingElementType::U64;
  case ::kb::ElementType::F16:
    return BindingElementType::F16;
  case ::kb::ElementType::BF16:
    return BindingElementType::BF16;
  case ::kb::ElementType::F32:
    return BindingElementType::F32;
  case ::kb::ElementType::F64:
    return BindingElementType::F64;
  }
  llvm_unreachable("unknown ElementType");
}

ConstantType mlir::kb::fromCommon(::kb::ScalarType type) {
  switch (type) {
  case ::kb::ScalarType::I32:
    return ConstantType::I32;
  case ::kb::ScalarType::U32:
    return ConstantType::U32;
  case ::kb::ScalarType::F32:
    return ConstantType::F32;
  case ::kb::ScalarType::I64:
    return ConstantType::I64;
  case ::kb::ScalarType::U64:
    return ConstantType::U64;
  case ::kb::ScalarType::F64:
    return ConstantType::F64;
  }
  llvm_unreachable("unknown ScalarType");
}

BindingAccess mlir::kb::fromCommon(::kb::Access access) {
  switch (access) {
  case ::kb::Access::ReadOnly:
    return BindingAccess::ReadOnly;
  case ::kb::Access::WriteOnly:
    return BindingAccess::WriteOnly;
  case ::kb::Access::ReadWrite:
    return BindingAccess::ReadWrite;
  }
  llvm_unreachable("unknown Access");
}

StringRef mlir::kb::getVariantDevice(VariantOp variant) {
  if (auto device = variant->getAttrOfType<StringAttr>(kVariantDeviceAttrName))
    return device.getValue();
  return {};
}

int64_t mlir::kb::getSharedMemoryBytes(VariantOp variant, ExportOp exportOp) {
  if (auto bytes =
          variant->getAttrOfType<IntegerAttr>(kVariantSharedMemoryAttrName))
    return bytes.getInt();
  return exportOp.getSharedMemoryBytes();
}

SmallVector<int64_t, 3> mlir::kb::getWorkgroupSize(VariantOp variant,
                                                   ExportOp exportOp) {
  ArrayRef<int64_t> size = exportOp.getWorkgroupSize();
  if (auto own = variant->getAttrOfType<DenseI64ArrayAttr>(
          kVariantWorkgroupSizeAttrName))
    size = own.asArrayRef();
  return SmallVector<int64_t, 3>(size.begin(), size.end());
}

SmallVector<int64_t, 3> mlir::kb::getWorkloadPerWorkgroup(VariantOp variant,
                                                          ExportOp exportOp) {
  auto own = variant->getAttrOfType<DenseI64ArrayAttr>(
      kVariantWorkloadPerWorkgroupAttrName);
  if (!own)
    return exportOp.getWorkloadPerWorkgroupOrDefault();
  SmallVector<int64_t, 3> result(own.asArrayRef().begin(),
                                 own.asArrayRef().end());
  result.resize(3, 1);
  return result;
}

/// The dictionary kVariantUniformConstantsAttrName holds for |block|.
static DictionaryAttr
uniformConstantsAttr(Builder &b, const ::kb::UniformConstants &block) {
  return b.getDictionaryAttr(
      {b.getNamedAttr("binding", b.getI64IntegerAttr(block.binding)),
       b.getNamedAttr("offsets",
                      b.getDenseI64ArrayAttr(SmallVector<int64_t>(
                          block.offsets.begin(), block.offsets.end()))),
       b.getNamedAttr("size", b.getI64IntegerAttr(block.size))});
}

/// The uniform constants |variant| records, if any.
static std::optional<::kb::UniformConstants>
getUniformConstants(VariantOp variant) {
  auto dict =
      variant->getAttrOfType<DictionaryAttr>(kVariantUniformConstantsAttrName);
  if (!dict)
    return std::nullopt;
  ::kb::UniformConstants block;
  if (auto binding = dict.getAs<IntegerAttr>("binding"))
    block.binding = static_cast<uint32_t>(binding.getInt());
  if (auto offsets = dict.getAs<DenseI64ArrayAttr>("offsets"))
    for (int64_t offset : offsets.asArrayRef())
      block.offsets.push_back(static_cast<uint32_t>(offset));
  if (auto size = dict.getAs<IntegerAttr>("size"))
    block.size = static_cast<uint32_t>(size.getInt());
  return block;
}

/// The dictionary kVariantStructBindingsAttrName holds for struct binding
/// |index| of |binding|.
static DictionaryAttr structBindingAttr(Builder &b, size_t index,
                                        const ::kb::Binding &binding) {
  const ::kb::StructLayout &layout = *binding.structLayout;
  SmallVector<Attribute> members;
  for (const ::kb::StructMember &m : layout.members)
    members.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("name", b.getStringAttr(m.name)),
         b.getNamedAttr("type", b.getStringAttr(::kb::toString(m.type))),
         b.getNamedAttr("offset", b.getI64IntegerAttr(m.offset)),
         b.getNamedAttr("components", b.getI64IntegerAttr(m.components)),
         b.getNamedAttr("count", b.getI64IntegerAttr(m.count)),
         b.getNamedAttr("array_stride", b.getI64IntegerAttr(m.arrayStride))}));
  return b.getDictionaryAttr(
      {b.getNamedAttr("binding", b.getI64IntegerAttr(index)),
       b.getNamedAttr("name", b.getStringAttr(layout.name)),
       b.getNamedAttr("stride", b.getI64IntegerAttr(layout.stride)),
       b.getNamedAttr("members", b.getArrayAttr(members))});
}

/// One uint32 field of a dictionary attribute; 0 when absent.
static uint32_t u32Field(DictionaryAttr dict, StringRef name) {
  auto value = dict.getAs<IntegerAttr>(name);
  return value ? static_cast<uint32_t>(value.getInt()) : 0;
}

/// The struct layout of one kVariantStructBindingsAttrName entry.
static ::kb::StructLayout getStructLayout(DictionaryAttr dict) {
  ::kb::StructLayout layout;
  if (auto name = dict.getAs<StringAttr>("name"))
    layout.name = name.str();
  layout.stride = u32Field(dict, "stride");
  auto members = dict.getAs<ArrayAttr>("members");
  if (!members)
    return layout;
  for (auto m : members.getAsRange<DictionaryAttr>()) {
    ::kb::StructMember member;
    if (auto name = m.getAs<StringAttr>("name"))
      member.name = name.str();
    if (auto type = m.getAs<StringAttr>("type"))
      member.type = ::kb::parseElementType(type.getValue().str())
                        .value_or(::kb::ElementType::U8);
    member.offset = u32Field(m, "offset");
    member.components = u32Field(m, "components");
    member.count = u32Field(m, "count");
    member.arrayStride = u32Field(m, "array_stride");
    layout.members.push_back(std::move(member));
  }
  return layout;
}

/// Records |abi|'s struct bindings on |variant| (removes the attribute
/// when it has none).
static void setStructBindings(VariantOp variant, const ::kb::KernelAbi &abi) {
  Builder b(variant.getContext());
  SmallVector<Attribute> structs;
  for (auto [i, binding] : llvm::enumerate(abi.bindings))
    if (binding.structLayout)
      structs.push_back(structBindingAttr(b, i, binding));
  if (structs.empty())
    variant->removeAttr(kVariantStructBindingsAttrName);
  else
    variant->setAttr(kVariantStructBindingsAttrName, b.getArrayAttr(structs));
}

/// Sets the struct layout of every binding |variant| records one for.
static void getStructBindings(VariantOp variant, ::kb::KernelAbi &abi) {
  auto structs =
      variant->getAttrOfType<ArrayAttr>(kVariantStructBindingsAttrName);
  if (!structs)
    return;
  for (auto dict : structs.getAsRange<DictionaryAttr>()) {
    uint32_t index = u32Field(dict, "binding");
    if (index < abi.bindings.size())
      abi.bindings[index].structLayout = getStructLayout(dict);
  }
}

void mlir::kb::setVariantPipeline(VariantOp variant,
                                  const ::kb::KernelAbi &abi) {
  setStructBindings(variant, abi);
  Builder b(variant.getContext());
  if (abi.subgroupSize)
    variant->setAttr(kVariantSubgroupSizeAttrName,
                     b.getI64IntegerAttr(abi.subgroupSize));
  else
    variant->removeAttr(kVariantSubgroupSizeAttrName);
  if (abi.fullSubgroups)
    variant->setAttr(kVariantFullSubgroupsAttrName, b.getUnitAttr());
  else
    variant->removeAttr(kVariantFullSubgroupsAttrName);
  if (abi.parameterOrder.empty())
    variant->removeAttr(kVariantParameterOrderAttrName);
  else
    variant->setAttr(
        kVariantParameterOrderAttrName,
        b.getDenseI64ArrayAttr(SmallVector<int64_t>(abi.parameterOrder.begin(),
                                                    abi.parameterOrder.end())));
  if (abi.uniformConstants)
    variant->setAttr(kVariantUniformConstantsAttrName,
                     uniformConstantsAttr(b, *abi.uniformConstants));
  else
    variant->removeAttr(kVariantUniformConstantsAttrName);
  SmallVector<Attribute> values;
  for (const ::kb::SpecializationValue &v : abi.specialization)
    values.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("id", b.getI64IntegerAttr(v.id)),
         b.getNamedAttr("name", b.getStringAttr(v.name)),
         b.getNamedAttr("size", b.getI64IntegerAttr(v.size)),
         b.getNamedAttr("bits",
                        b.getI64IntegerAttr(static_cast<int64_t>(v.bits)))}));
  if (values.empty())
    variant->removeAttr(kVariantSpecializationAttrName);
  else
    variant->setAttr(kVariantSpecializationAttrName, b.getArrayAttr(values));
}

void mlir::kb::getVariantPipeline(VariantOp variant, ::kb::KernelAbi &abi) {
  if (auto size =
          variant->getAttrOfType<IntegerAttr>(kVariantSubgroupSizeAttrName))
    abi.subgroupSize = static_cast<uint32_t>(size.getInt());
  abi.fullSubgroups = variant->hasAttr(kVariantFullSubgroupsAttrName);
  if (auto order = variant->getAttrOfType<DenseI64ArrayAttr>(
          kVariantParameterOrderAttrName))
    for (int64_t slot : order.asArrayRef())
      abi.parameterOrder.push_back(static_cast<uint32_t>(slot));
  abi.uniformConstants = getUniformConstants(variant);
  getStructBindings(variant, abi);
  auto values =
      variant->getAttrOfType<ArrayAttr>(kVariantSpecializationAttrName);
  if (!values)
    return;
  for (auto dict : values.getAsRange<DictionaryAttr>()) {
    ::kb::SpecializationValue v;
    if (auto id = dict.getAs<IntegerAttr>("id"))
      v.id = static_cast<uint32_t>(id.getInt());
    if (auto name = dict.getAs<StringAttr>("name"))
      v.name = name.str();
    if (auto size = dict.getAs<IntegerAttr>("size"))
      v.size = static_cast<uint32_t>(size.getInt());
    if (auto bits = dict.getAs<IntegerAttr>("bits"))
      v.bits = static_cast<uint64_t>(bits.getInt());
    abi.specialization.push_back(std::move(v));
  }
}

::kb::KernelAbi mlir::kb::getKernelAbi(ExportOp exportOp, StringRef entry) {
  ::kb::KernelAbi abi;
  abi.entry = entry.str();
  LayoutAttr layout = exportOp.getLayout();
  for (BindingAttr binding : layout.getBindings()) {
    ::kb::Binding b;
    if (binding.getName())
      b.name = binding.getName().getValue().str();
    b.elementType = toCommon(binding.getElementType());
    b.access = toCommon(binding.getAccess());
    abi.bindings.push_back(std::move(b));
  }
  for (ConstantAttr constant : layout.getConstants()) {
    ::kb::Constant c;
    if (constant.getName())
      c.name = constant.getName().getValue().str();
    c.type = toCommon(constant.getType());
    abi.constants.push_back(std::move(c));
  }
  ArrayRef<int64_t> size = exportOp.getWorkgroupSize();
  for (size_t i = 0; i < 3 && i < size.size(); ++i)
    abi.workgroupSize[i] = static_cast<uint32_t>(size[i]);
  abi.dynamicSharedMemoryBytes =
      static_cast<uint32_t>(exportOp.getSharedMemoryBytes());
  return abi;
}

/// Integer match: same width; signless matches both signednesses.
static bool matchesInteger(Type type, unsigned width, bool isUnsigned) {
  auto intType = type.dyn_cast<IntegerType>();
  if (!intType || intType.getWidth() != width)
    return false;
  if (intType.isSignless())
    return true;
  return isUnsigned ? intType.isUnsigned() : intType.isSigned();
}

bool mlir::kb::matchesElementType(Type type, BindingElementType elementType) {
  switch (elementType) {
  case BindingElementType::I8:
    return matchesInteger(type, 8, false);
  case BindingElementType::U8:
    return matchesInteger(type, 8, true);
  case BindingElementType::I16:
    return matchesInteger(type, 16, false);
  case BindingElementType::U16:
    return matchesInteger(type, 16, true);
  case BindingElementType::I32:
    return matchesInteger(type, 32, false);
  case BindingElementType::U32:
    return matchesInteger(type, 32, true);
  case BindingElementType::I64:
    return matchesInteger(type, 64, false);
  case BindingElementType::U64:
    return matchesInteger(type, 64, true);
  case BindingElementType::F16:
    return type.isF16();
  case BindingElementType::BF16:
    return type.isBF16();
  case BindingElementType::F32:
    return type.isF32();
  case BindingElementType::F64:
    return type.isF64();
  }
  return false;
}

bool mlir::kb::matchesConstantType(Type type, ConstantType constantType) {
  switch (constantType) {
  case ConstantType::I32:
    return matchesInteger(type, 32, false);
  case ConstantType::U32:
    return matchesInteger(type, 32, true);
  case ConstantType::I64:
    return matchesInteger(type, 64, false);
  case ConstantType::U64:
    return matchesInteger(type, 64, true);
  case ConstantType::F32:
    return type.isF32();
  case ConstantType::F64:
    return type.isF64();
  }
  return false;
}

::kb::Target::Kind mlir::kb::toCommon(Backend backend) {
  return backend == Backend::Cuda ? ::kb::Target::Kind::Cuda
                                  : ::kb::Target::Kind::Vulkan;
}

Backend mlir::kb::toBackend(::kb::Target::Kind kind) {
  return kind == ::kb::Target::Kind::Cuda ? Backend::Cuda : Backend::Vulkan;
}

::kb::StatusOr<::kb::Target> mlir::kb::getTarget(VariantOp variant) {
  return ::kb::Target::fromArch(toCommon(variant.getBackend()),
                                std::string_view(variant.getArch()));
}

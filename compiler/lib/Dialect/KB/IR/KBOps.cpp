//===- KBOps.cpp - kb dialect operations: builders and verifiers ----------===//
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/IR/KBAbi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb {
ParseResult parseLayoutBody(AsmParser &parser, LayoutAttr &layout);
void printLayoutBody(AsmPrinter &printer, LayoutAttr layout);
} // namespace mlir::kb

/// Custom directive of kb.export: the layout without `#kb.layout<>`.
static ParseResult parseLayout(OpAsmParser &parser, LayoutAttr &layout) {
  return parseLayoutBody(parser, layout);
}
static void printLayout(OpAsmPrinter &printer, Operation *, LayoutAttr layout) {
  printLayoutBody(printer, layout);
}

/// Custom directive of kb.variant: the backend keyword (`cuda`, `vulkan`).
static ParseResult parseBackend(OpAsmParser &parser, BackendAttr &backend) {
  std::string keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&keyword))
    return failure();
  std::optional<Backend> value = symbolizeBackend(keyword);
  if (!value)
    return parser.emitError(loc) << "expected a backend (cuda or vulkan), "
                                    "found '"
                                 << keyword << "'";
  backend = BackendAttr::get(parser.getContext(), *value);
  return success();
}
static void printBackend(OpAsmPrinter &printer, Operation *,
                         BackendAttr backend) {
  printer << stringifyBackend(backend.getValue());
}

#define GET_OP_CLASSES
#include "kb/Dialect/KB/IR/KBOps.cpp.inc"

/// "@a, @b" for messages listing symbols.
template <typename Range> static std::string joinSymbolNames(Range &&ops) {
  std::string text;
  for (auto op : ops) {
    if (!text.empty())
      text += ", ";
    text += "@" + op.getSymName().str();
  }
  return text.empty() ? std::string("none") : text;
}

//===----------------------------------------------------------------------===//
// ExecutableOp
//===----------------------------------------------------------------------===//

void ExecutableOp::build(OpBuilder &builder, OperationState &state,
                         StringRef name) {
  state.addAttribute(::mlir::SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addRegion()->push_back(new Block());
}

ModuleOp ExecutableOp::getBodyModule() {
  auto modules = getBlock().getOps<ModuleOp>();
  return modules.empty() ? ModuleOp() : *modules.begin();
}

LogicalResult ExecutableOp::verify() {
  if (getBody().empty())
    return emitOpError("has an empty region; expected kb.export, kb.variant "
                       "and a kernel body module");
  ModuleOp bodyModule;
  for (Operation &op : getBlock()) {
    if (isa<ExportOp, VariantOp>(op))
      continue;
    if (auto module = dyn_cast<ModuleOp>(op)) {
      if (bodyModule)
        return op.emitOpError(
                   "is a second kernel body module in kb.executable @")
               << getSymName() << "; an executable holds at most one";
      bodyModule = module;
      continue;
    }
    return op.emitOpError("is not allowed directly in kb.executable @")
           << getSymName()
           << "; expected kb.export, kb.variant or one builtin.module";
  }
  if (getExportOps().empty())
    return emitOpError("has no kb.export; an executable needs at least one "
                       "entry point");

  if (bodyModule) {
    for (ExportOp exportOp : getExportOps()) {
      auto func = dyn_cast_or_null<FunctionOpInterface>(
          ::mlir::SymbolTable::lookupSymbolIn(bodyModule,
                                              exportOp.getSymName()));
      if (!func)
        return exportOp.emitOpError("has no kernel body: expected `func.func @")
               << exportOp.getSymName()
               << "()` in the module of kb.executable @" << getSymName();
      if (func.getNumArguments() != 0 || func.getNumResults() != 0)
        return func.emitOpError("is the kernel body of export @")
               << exportOp.getSymName()
               << " and must take no arguments and return nothing (bindings "
                  "and constants come from kb.binding / kb.constant)";
    }
  } else {
    for (VariantOp variant : getVariantOps())
      if (!variant.isExternal())
        return variant.emitOpError("is generated but kb.executable @")
               << getSymName()
               << " has no kernel body module to generate it from; give the "
                  "variant `objects(...)` or add a `builtin.module` body";
  }

  // One variant per target (and one reference per target, and one per
  // target and device model it was tuned for).
  llvm::StringMap<VariantOp> seen;
  for (VariantOp variant : getVariantOps()) {
    StringRef device = getVariantDevice(variant);
    if (variant->hasAttr(kVariantDeviceAttrName) &&
        (device.empty() || !variant.isExternal() || variant.getReference()))
      return variant.emitOpError("has ")
             << kVariantDeviceAttrName
             << " but only an external, non-reference variant is tuned for "
                "a device model, and the model is not empty";
    std::string key = variant.getTargetString() +
                      (variant.getReference() ? "/reference" : "") +
                      (device.empty() ? "" : "/device " + device.str());
    auto [it, inserted] = seen.try_emplace(key, variant);
    if (!inserted)
      return variant.emitOpError("targets ")
             << variant.getTargetString()
             << (device.empty() ? "" : " for device `" + device.str() + "`")
             << " like variant @" << it->second.getSymName()
             << " of kb.executable @" << getSymName()
             << "; an executable has one variant per target"
             << (device.empty() ? "" : " and device model");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ExportOp
//===----------------------------------------------------------------------===//

// CUDA's limits (maxThreadsDim, maxThreadsPerBlock) and the sm_90 opt-in
// shared memory limit; the stricter Vulkan device limits are checked by the
// runtime against the device at load time.
static constexpr int64_t kMaxWorkgroupSize[3] = {1024, 1024, 64};
static constexpr int64_t kMaxWorkgroupInvocations = 1024;
static constexpr int64_t kMaxSharedMemoryBytes = 232448;

LogicalResult ExportOp::verify() {
  ArrayRef<int64_t> size = getWorkgroupSize();
  if (size.size() != 3)
    return emitOpError("workgroup_size must have 3 entries [x, y, z], found ")
           << size.size();
  static const char *const names[3] = {"x", "y", "z"};
  int64_t product = 1;
  for (int i = 0; i < 3; ++i) {
    if (size[i] < 1 || size[i] > kMaxWorkgroupSize[i])
      return emitOpError("workgroup_size ")
             << names[i] << " is " << size[i] << "; expected 1 to "
             << kMaxWorkgroupSize[i];
    product *= size[i];
  }
  if (product > kMaxWorkgroupInvocations)
    return emitOpError("workgroup_size [")
           << size[0] << ", " << size[1] << ", " << size[2] << "] has "
           << product << " invocations; at most " << kMaxWorkgroupInvocations
           << " are allowed";
  if (auto perWorkgroup = getWorkloadPerWorkgroup()) {
    if (perWorkgroup->empty() || perWorkgroup->size() > 3)
      return emitOpError("workload_per_workgroup must have 1 to 3 entries, "
                         "found ")
             << perWorkgroup->size();
    for (int64_t v : *perWorkgroup)
      if (v < 1)
        return emitOpError("workload_per_workgroup entries must be >= 1, "
                           "found ")
               << v;
  }
  int64_t shared = getSharedMemoryBytes();
  if (shared < 0 || shared > kMaxSharedMemoryBytes)
    return emitOpError("shared_memory is ")
           << shared << " bytes; expected 0 to " << kMaxSharedMemoryBytes;
  return success();
}

SmallVector<int64_t, 3> ExportOp::getWorkloadPerWorkgroupOrDefault() {
  SmallVector<int64_t, 3> result(getWorkgroupSize().begin(),
                                 getWorkgroupSize().end());
  result.resize(3, 1);
  if (auto perWorkgroup = getWorkloadPerWorkgroup()) {
    result.assign({1, 1, 1});
    for (auto [i, v] : llvm::enumerate(*perWorkgroup))
      result[i] = v;
  }
  return result;
}

SmallVector<int64_t, 3>
ExportOp::computeWorkgroupCount(ArrayRef<int64_t> workload) {
  SmallVector<int64_t, 3> perWorkgroup = getWorkloadPerWorkgroupOrDefault();
  SmallVector<int64_t, 3> count = {1, 1, 1};
  for (auto [i, w] : llvm::enumerate(workload))
    if (i < 3)
      count[i] = (w + perWorkgroup[i] - 1) / perWorkgroup[i];
  return count;
}

//===----------------------------------------------------------------------===//
// VariantOp
//===----------------------------------------------------------------------===//

LogicalResult VariantOp::verify() {
  if (::kb::StatusOr<::kb::Target> target = mlir::kb::getTarget(*this);
      !target.ok())
    return emitOpError() << target.status().message();
  if (auto objects = getObjects()) {
    // A reference with objects is a standalone kernel's handwritten twin;
    // beside a kernel body the reference is what codegen makes of it.
    if (getReference() && (*this)->getParentOfType<ExecutableOp>() &&
        (*this)->getParentOfType<ExecutableOp>().getBodyModule())
      return emitOpError("is a reference (generated by codegen from the "
                         "executable's kernel body) and cannot have objects");
    if (objects->size() != 1)
      return emitOpError("must have exactly one object (one PTX, cubin or "
                         "SPIR-V module holding every export), found ")
             << objects->size();
    auto object = objects->getValue()[0].cast<ObjectAttr>();
    StringRef format = object.getFormat();
    bool fits = getBackend() == Backend::Cuda
                    ? (format == "ptx" || format == "cubin")
                    : format == "spv";
    if (!fits)
      return emitOpError("targets ")
             << stringifyBackend(getBackend()) << " but its object '"
             << object.getPath() << "' is "
             << (format.empty()
                     ? StringRef("of an unknown format")
                     : StringRef(format == "spv" ? "SPIR-V" : format))
             << "; expected "
             << (getBackend() == Backend::Cuda ? ".ptx or .cubin" : ".spv");
  }
  if (auto entryPoints = getEntryPoints()) {
    auto executable = (*this)->getParentOfType<ExecutableOp>();
    for (NamedAttribute entry : *entryPoints) {
      if (!entry.getValue().isa<StringAttr>())
        return emitOpError("entry_points values must be strings");
      if (!isa_and_nonnull<ExportOp>(
              ::mlir::SymbolTable::lookupSymbolIn(executable, entry.getName())))
        return emitOpError("entry_points names @")
               << entry.getName().getValue()
               << ", which is not an export of kb.executable @"
               << executable.getSymName();
    }
  }
  return success();
}

StringRef VariantOp::getEntryPointName(StringRef exportName) {
  if (auto entryPoints = getEntryPoints())
    if (auto name = entryPoints->getAs<StringAttr>(exportName))
      return name.getValue();
  return exportName;
}

std::string VariantOp::getTargetString() {
  ::kb::StatusOr<::kb::Target> target = mlir::kb::getTarget(*this);
  if (target.ok())
    return target->toString();
  return (stringifyBackend(getBackend()) + ":" + getArch()).str();
}

//===----------------------------------------------------------------------===//
// Kernel-body interface ops
//===----------------------------------------------------------------------===//

/// Finds the export whose kernel body encloses |op|.
static LogicalResult getEnclosingExport(Operation *op, ExportOp &result) {
  auto executable = op->getParentOfType<ExecutableOp>();
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!executable || !func)
    return op->emitOpError("must be used inside the kernel body (a function "
                           "in the module) of a kb.executable");
  result = dyn_cast_or_null<ExportOp>(
      ::mlir::SymbolTable::lookupSymbolIn(executable, func.getName()));
  if (!result)
    return op->emitOpError("is in function @")
           << func.getName() << ", which is not the body of an export of "
           << "kb.executable @" << executable.getSymName()
           << " (exports: " << joinSymbolNames(executable.getExportOps())
           << ")";
  return success();
}

LogicalResult BindingOp::verify() {
  ExportOp exportOp;
  if (failed(getEnclosingExport(*this, exportOp)))
    return failure();
  ArrayRef<BindingAttr> bindings = exportOp.getLayout().getBindings();
  uint64_t index = getIndex();
  if (index >= bindings.size())
    return emitOpError("binding index ")
           << index << " is out of range: export @" << exportOp.getSymName()
           << " has " << bindings.size() << " binding(s)";
  BindingAttr binding = bindings[index];
  Type elementType = getResult().getType().cast<MemRefType>().getElementType();
  if (!matchesElementType(elementType, binding.getElementType())) {
    ::kb::KernelAbi abi = getKernelAbi(exportOp, exportOp.getSymName());
    return emitOpError("memref element type ")
           << elementType << " does not match "
           << ::kb::describeBinding(abi, index) << " of export @"
           << exportOp.getSymName() << ", which is "
           << stringifyBindingElementType(binding.getElementType());
  }
  return success();
}

LogicalResult ConstantOp::verify() {
  ExportOp exportOp;
  if (failed(getEnclosingExport(*this, exportOp)))
    return failure();
  ArrayRef<ConstantAttr> constants = exportOp.getLayout().getConstants();
  uint64_t index = getIndex();
  if (index >= constants.size())
    return emitOpError("constant index ")
           << index << " is out of range: export @" << exportOp.getSymName()
           << " has " << constants.size() << " constant(s)";
  ConstantType type = constants[index].getType();
  if (!matchesConstantType(getType(), type) ||
      !getType().isSignlessIntOrFloat()) {
    ::kb::KernelAbi abi = getKernelAbi(exportOp, exportOp.getSymName());
    return emitOpError("result type ")
           << getType() << " does not match "
           << ::kb::describeConstant(abi, index) << " of export @"
           << exportOp.getSymName() << ", which is "
           << stringifyConstantType(type) << " (load "
           << (type == ConstantType::F32   ? "f32"
               : type == ConstantType::F64 ? "f64"
               : (type == ConstantType::I64 || type == ConstantType::U64)
                   ? "i64"
                   : "i32")
           << ")";
  }
  return success();
}

static LogicalResult verifyWorkgroupQuery(Operation *op) {
  ExportOp exportOp;
  return getEnclosingExport(op, exportOp);
}
LogicalResult WorkgroupIdOp::verify() { return verifyWorkgroupQuery(*this); }
LogicalResult WorkgroupCountOp::verify() { return verifyWorkgroupQuery(*this); }
LogicalResult WorkgroupSizeOp::verify() { return verifyWorkgroupQuery(*this); }

//===----------------------------------------------------------------------===//
// Host ops
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  auto type = getResult().getType().cast<BufferType>();
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError("has ")
           << getDynamicSizes().size() << " size operand(s) but " << type
           << " has " << type.getNumDynamicDims() << " dynamic dimension(s)";
  if ((*this)->getParentOfType<ExecutableOp>())
    return emitOpError("is a host op and cannot be used in a kb.executable");
  return success();
}

LogicalResult DispatchOp::verify() {
  if (getWorkload().empty() || getWorkload().size() > 3)
    return emitOpError("workload must have 1 to 3 values, found ")
           << getWorkload().size();
  if (getEntryPoint().getNestedReferences().size() != 1)
    return emitOpError("entry point must be @executable::@export, found ")
           << getEntryPoint();
  if ((*this)->getParentOfType<ExecutableOp>())
    return emitOpError("is a host op and cannot be used in a kb.executable");
  return success();
}

LogicalResult
DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  Operation *symbol = symbolTables.lookupNearestSymbolFrom(
      *this, getEntryPoint().getRootReference());
  if (!symbol)
    return emitOpError("references unknown executable @")
           << getExecutableName();
  auto executable = dyn_cast<ExecutableOp>(symbol);
  if (!executable)
    return emitOpError("references @")
           << getExecutableName() << ", which is a '"
           << symbol->getName().getStringRef() << "', not a kb.executable";
  auto exportOp = dyn_cast_or_null<ExportOp>(symbolTables.lookupSymbolIn(
      executable, getEntryPoint().getLeafReference()));
  if (!exportOp)
    return emitOpError("references unknown export @")
           << getExportName() << " of kb.executable @" << getExecutableName()
           << " (exports: " << joinSymbolNames(executable.getExportOps())
           << ")";

  LayoutAttr layout = exportOp.getLayout();
  ::kb::KernelAbi abi = getKernelAbi(exportOp, exportOp.getSymName());
  if (getBindings().size() != layout.getBindings().size())
    return emitOpError("passes ")
           << getBindings().size() << " binding(s) but export @"
           << getExecutableName() << "::@" << getExportName() << " has "
           << layout.getBindings().size();
  for (auto [i, value] : llvm::enumerate(getBindings())) {
    auto type = value.getType().cast<BufferType>();
    BindingElementType expected = layout.getBindings()[i].getElementType();
    if (!matchesElementType(type.getElementType(), expected))
      return emitOpError() << ::kb::describeBinding(abi, i) << " of export @"
                           << getExecutableName() << "::@" << getExportName()
                           << " expects "
                           << stringifyBindingElementType(expected)
                           << " elements, found a buffer of type " << type;
  }
  if (getConstants().size() != layout.getConstants().size())
    return emitOpError("passes ")
           << getConstants().size() << " constant(s) but export @"
           << getExecutableName() << "::@" << getExportName() << " has "
           << layout.getConstants().size();
  for (auto [i, value] : llvm::enumerate(getConstants())) {
    ConstantType expected = layout.getConstants()[i].getType();
    if (!matchesConstantType(value.getType(), expected))
      return emitOpError() << ::kb::describeConstant(abi, i) << " of export @"
                           << getExecutableName() << "::@" << getExportName()
                           << " expects " << stringifyConstantType(expected)
                           << ", found " << value.getType();
  }
  return success();
}

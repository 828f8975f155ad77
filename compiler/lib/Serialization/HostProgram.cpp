//===- HostProgram.cpp - Evaluate allocs and dispatches of host functions -===//
#include "kb/Serialization/HostProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::kb;

/// "argument 0 of @main" / "the result of 'foo.bar' at loc".
static std::string describeNonConstant(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto arg = value.dyn_cast<BlockArgument>()) {
    os << "argument " << arg.getArgNumber();
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      os << " of @" << func.getSymName();
    os << ", not a constant at the dispatch site";
  } else {
    Operation *op = value.getDefiningOp();
    os << "computed by '" << op->getName() << "' at " << op->getLoc()
       << ", which is not evaluated from constants";
  }
  return os.str();
}

static void setReason(std::string *reason, std::string text) {
  if (reason && reason->empty())
    *reason = std::move(text);
}

std::optional<int64_t> kb::evaluateInteger(Value value, std::string *reason) {
  Operation *op = value.getDefiningOp();
  if (!op) {
    setReason(reason, describeNonConstant(value));
    return std::nullopt;
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = constant.getValue().dyn_cast<IntegerAttr>()) {
      // Unsigned types keep their bits; index and signless are signed.
      if (attr.getType().isUnsignedInteger())
        return static_cast<int64_t>(attr.getValue().getZExtValue());
      return attr.getValue().getSExtValue();
    }
    setReason(reason, describeNonConstant(value));
    return std::nullopt;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return evaluateInteger(op->getOperand(0), reason);
  if (auto trunc = dyn_cast<arith::TruncIOp>(op)) {
    std::optional<int64_t> v = evaluateInteger(trunc.getIn(), reason);
    if (!v)
      return std::nullopt;
    unsigned width = trunc.getType().getIntOrFloatBitWidth();
    return llvm::APInt(64, *v).trunc(width).getSExtValue();
  }
  if (op->getNumOperands() == 2 && op->getNumResults() == 1) {
    std::optional<int64_t> a = evaluateInteger(op->getOperand(0), reason);
    std::optional<int64_t> b = evaluateInteger(op->getOperand(1), reason);
    if (!a || !b)
      return std::nullopt;
    bool divides = isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
                       arith::CeilDivUIOp, arith::RemSIOp, arith::RemUIOp>(op);
    if (divides && *b == 0) {
      setReason(reason, "a division by zero in the host function");
      return std::nullopt;
    }
    if (isa<arith::AddIOp>(op))
      return *a + *b;
    if (isa<arith::SubIOp>(op))
      return *a - *b;
    if (isa<arith::MulIOp>(op))
      return *a * *b;
    if (isa<arith::DivSIOp, arith::DivUIOp>(op))
      return *a / *b;
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
      return (*a + *b - 1) / *b;
    if (isa<arith::RemSIOp, arith::RemUIOp>(op))
      return *a % *b;
    if (isa<arith::MinSIOp, arith::MinUIOp>(op))
      return std::min(*a, *b);
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(op))
      return std::max(*a, *b);
  }
  setReason(reason, describeNonConstant(value));
  return std::nullopt;
}

TypedAttr kb::evaluateScalar(Value value, std::string *reason) {
  Type type = value.getType();
  if (type.isa<FloatType>()) {
    if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      if (auto attr = constant.getValue().dyn_cast<FloatAttr>())
        return attr;
    setReason(reason, describeNonConstant(value));
    return {};
  }
  std::optional<int64_t> v = evaluateInteger(value, reason);
  if (!v)
    return {};
  unsigned width = type.getIntOrFloatBitWidth();
  return IntegerAttr::get(IntegerType::get(type.getContext(), width),
                          llvm::APInt(64, *v).trunc(width));
}

std::optional<int64_t> kb::getBufferElementCount(Value value,
                                                 std::string *reason) {
  auto type = value.getType().cast<BufferType>();
  auto alloc = value.getDefiningOp<AllocOp>();
  if (!alloc) {
    setReason(reason, "a buffer that is " + describeNonConstant(value) +
                          " (expected a kb.alloc result)");
    return std::nullopt;
  }
  int64_t count = 1;
  unsigned dynamicIndex = 0;
  for (int64_t dim : type.getShape()) {
    if (!ShapedType::isDynamic(dim)) {
      count *= dim;
      continue;
    }
    std::string why;
    std::optional<int64_t> size =
        evaluateInteger(alloc.getDynamicSizes()[dynamicIndex++], &why);
    if (!size) {
      setReason(
          reason, "the size of the buffer allocated at " +
                      [&] {
                        std::string t;
                        llvm::raw_string_ostream os(t);
                        os << alloc.getLoc();
                        return os.str();
                      }() +
                      " is " + why);
      return std::nullopt;
    }
    count *= *size;
  }
  return count;
}

std::optional<DispatchInfo> kb::analyzeDispatch(DispatchOp dispatch,
                                                std::string &reason,
                                                SymbolTable *symbols) {
  DispatchInfo info;
  auto module = dispatch->getParentOfType<ModuleOp>();
  info.executable =
      symbols ? symbols->lookup<ExecutableOp>(dispatch.getExecutableName())
              : module.lookupSymbol<ExecutableOp>(dispatch.getExecutableName());
  if (!info.executable) {
    reason = "it references unknown executable @" +
             dispatch.getExecutableName().str();
    return std::nullopt;
  }
  for (auto [i, exportOp] : llvm::enumerate(info.executable.getExportOps()))
    if (exportOp.getSymName() == dispatch.getExportName()) {
      info.exportOp = exportOp;
      info.exportIndex = i;
    }
  if (!info.exportOp) {
    reason = "it references unknown export @" + dispatch.getExportName().str();
    return std::nullopt;
  }
  for (auto [i, value] : llvm::enumerate(dispatch.getWorkload())) {
    std::string why;
    std::optional<int64_t> w = evaluateInteger(value, &why);
    if (!w) {
      reason = "workload dimension " + std::to_string(i) + " is " + why;
      return std::nullopt;
    }
    if (*w < 1) {
      reason = "workload dimension " + std::to_string(i) + " is " +
               std::to_string(*w) + "; a dispatch needs a workload >= 1";
      return std::nullopt;
    }
    info.workload.push_back(*w);
  }
  info.workgroupCount = info.exportOp.computeWorkgroupCount(info.workload);
  info.workload.resize(3, 1);
  for (auto [i, value] : llvm::enumerate(dispatch.getConstants())) {
    std::string why;
    TypedAttr attr = evaluateScalar(value, &why);
    if (!attr) {
      reason = "constant " + std::to_string(i) + " is " + why;
      return std::nullopt;
    }
    info.constants.push_back(attr);
  }
  for (auto [i, value] : llvm::enumerate(dispatch.getBindings())) {
    std::string why;
    std::optional<int64_t> count = getBufferElementCount(value, &why);
    if (!count) {
      reason = "binding " + std::to_string(i) + " is bound to " + why;
      return std::nullopt;
    }
    info.bindingCounts.push_back(*count);
  }
  return info;
}

SmallVector<Operation *> kb::getHostFunctions(ModuleOp module) {
  SmallVector<Operation *> functions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      functions.push_back(func);
  return functions;
}

uint64_t kb::hashName(StringRef text, uint64_t seed) {
  uint64_t hash = 0xcbf29ce484222325ull ^ seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

StringRef kb::getElementTypeName(BindingElementType type) {
  return stringifyBindingElementType(type);
}

std::optional<BindingElementType> kb::getElementTypeOf(Type type) {
  if (type.isF16())
    return BindingElementType::F16;
  if (type.isBF16())
    return BindingElementType::BF16;
  if (type.isF32())
    return BindingElementType::F32;
  if (type.isF64())
    return BindingElementType::F64;
  auto intType = type.dyn_cast<IntegerType>();
  if (!intType)
    return std::nullopt;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 8:
    return isUnsigned ? BindingElementType::U8 : BindingElementType::I8;
  case 16:
    return isUnsigned ? BindingElementType::U16 : BindingElementType::I16;
  case 32:
    return isUnsigned ? BindingElementType::U32 : BindingElementType::I32;
  case 64:
    return isUnsigned ? BindingElementType::U64 : BindingElementType::I64;
  default:
    return std::nullopt;
  }
}

DictionaryAttr kb::getDeclaredInit(Value buffer) {
  if (auto alloc = buffer.getDefiningOp<AllocOp>())
    return alloc->getAttrOfType<DictionaryAttr>(kInitAttrName);
  return {};
}

DictionaryAttr kb::buildInitSpec(MLIRContext *context, BindingElementType type,
                                 bool isInput, uint64_t seed,
                                 DictionaryAttr declared) {
  Builder b(context);
  if (!isInput)
    return b.getDictionaryAttr(
        {b.getNamedAttr("distribution", b.getStringAttr("zero"))});
  if (declared) {
    NamedAttrList fields(declared);
    fields.set("seed", b.getIntegerAttr(b.getIntegerType(64, false),
                                        llvm::APInt(64, seed)));
    return fields.getDictionary(context);
  }
  double low = -1.0, high = 1.0;
  switch (type) {
  case BindingElementType::F16:
  case BindingElementType::BF16:
  case BindingElementType::F32:
  case BindingElementType::F64:
    break;
  case BindingElementType::U8:
  case BindingElementType::U16:
  case BindingElementType::U32:
  case BindingElementType::U64:
    low = 0;
    high = 128;
    break;
  default:
    low = -64;
    high = 64;
    break;
  }
  return b.getDictionaryAttr(
      {b.getNamedAttr("distribution", b.getStringAttr("uniform")),
       b.getNamedAttr("seed", b.getIntegerAttr(b.getIntegerType(64, false),
                                               llvm::APInt(64, seed))),
       b.getNamedAttr("low", b.getF64FloatAttr(low)),
       b.getNamedAttr("high", b.getF64FloatAttr(high))});
}

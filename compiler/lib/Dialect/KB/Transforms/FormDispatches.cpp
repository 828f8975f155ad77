//===- FormDispatches.cpp - The front end: models become dispatches -------===//
//
// kb-form-dispatches (Passes.td has the contract), after kb-lower-model
// (LowerModel.cpp): check that only what formation understands is left,
// form dispatch regions (DispatchRegions.cpp), then write one
// kb.executable per region (DispatchBody.cpp) and the host function.
//
//===----------------------------------------------------------------------===//
#include "DispatchRegions.h"

#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Serialization/HostProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kb {
#define GEN_PASS_DEF_FORMDISPATCHESPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

namespace mlir::kb {
namespace {

/// After conversion: only what formation understands is left.
LogicalResult checkFormable(func::FuncOp function) {
  for (Operation &op : function.getBody().front()) {
    if (isa<linalg::GenericOp, tensor::EmptyOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, func::ReturnOp>(op))
      continue;
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      if (pad.getLow().empty() && pad.getHigh().empty() &&
          pad.getConstantPaddingValue())
        continue;
      return op.emitOpError("pads by dynamic amounts or with a computed "
                            "value; the front end takes static padding by "
                            "a constant");
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      if (slice.getOffsets().empty() && slice.getSizes().empty() &&
          slice.getStrides().empty())
        continue;
      return op.emitOpError("has dynamic offsets, sizes or strides; the "
                            "front end takes static slices");
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      // TOSA conversion leaves unused ones behind (a transpose's
      // permutation): only a constant something reads is refused.
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense || dense.isSplat() || constant->use_empty())
        continue;
      return op.emitOpError("is a tensor constant of ")
             << dense.getType()
             << " with distinct values (weights); the front end does not "
                "embed weights: pass them as function arguments";
    }
    return op.emitOpError("cannot be formed into a dispatch: after TOSA "
                          "conversion the front end takes linalg.generic "
                          "(and named linalg ops), tensor.empty, "
                          "expand_shape, collapse_shape, pad, extract_slice "
                          "and splat constants");
  }
  return success();
}

/// The binding element type of a tensor crossing a dispatch boundary.
FailureOr<BindingElementType> getBindingType(Operation *op, Value tensor) {
  Type t = getElementTypeOrSelf(tensor.getType());
  if (std::optional<BindingElementType> type = getElementTypeOf(t))
    return *type;
  return op->emitOpError("passes a tensor of ")
         << t
         << " between dispatches; bindings hold i8, i16, i32, i64, f16, "
            "bf16, f32 or f64";
}

/// Names and builds the dispatches of one model function.
class ProgramBuilder {
public:
  ProgramBuilder(func::FuncOp function, SmallVector<DispatchRegion> regions)
      : function(function), regions(std::move(regions)) {}

  LogicalResult build();

private:
  std::string dispatchName(size_t n) {
    return (function.getName() + "_dispatch_" + Twine(n)).str();
  }
  FailureOr<LayoutAttr> buildLayout(const DispatchRegion &region);
  LogicalResult buildExecutable(size_t n);
  LogicalResult buildHostFunction();

  func::FuncOp function;
  SmallVector<DispatchRegion> regions;
  /// The dispatch number of each region's result.
  DenseMap<Value, size_t> producedBy;
};

FailureOr<LayoutAttr>
ProgramBuilder::buildLayout(const DispatchRegion &region) {
  MLIRContext *context = function.getContext();
  Builder b(context);
  SmallVector<BindingAttr> bindings;
  auto add = [&](Value tensor, std::string name,
                 BindingAccess access) -> LogicalResult {
    FailureOr<BindingElementType> type =
        getBindingType(region.ops.front(), tensor);
    if (failed(type))
      return failure();
    bindings.push_back(
        BindingAttr::get(context, b.getStringAttr(name), *type, access));
    return success();
  };
  for (Value input : region.inputs) {
    std::string name =
        isa<BlockArgument>(input)
            ? "arg" + std::to_string(cast<BlockArgument>(input).getArgNumber())
            : "dispatch_" + std::to_string(producedBy.lookup(input));
    if (failed(add(input, name, BindingAccess::ReadOnly)))
      return failure();
  }
  if (failed(add(region.getResult(), "result", BindingAccess::WriteOnly)))
    return failure();
  return LayoutAttr::get(context, bindings, {});
}

LogicalResult ProgramBuilder::buildExecutable(size_t n) {
  const DispatchRegion &region = regions[n];
  FailureOr<LayoutAttr> layout = buildLayout(region);
  if (failed(layout))
    return failure();
  Location loc = region.ops.front()->getLoc();
  OpBuilder b(function);
  std::string name = dispatchName(n);
  auto executable = b.create<ExecutableOp>(loc, name);
  b.setInsertionPointToEnd(&executable.getBlock());
  b.create<ExportOp>(loc, b.getStringAttr(name), *layout,
                     b.getDenseI64ArrayAttr(region.grid.workgroupSize),
                     DenseI64ArrayAttr(), IntegerAttr());
  auto module = b.create<ModuleOp>(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto body = b.create<func::FuncOp>(loc, name, b.getFunctionType({}, {}));
  return buildDispatchBody(body, region);
}

LogicalResult ProgramBuilder::buildHostFunction() {
  Location loc = function.getLoc();
  OpBuilder b(function);
  auto host = b.create<func::FuncOp>(loc, function.getName(),
                                     b.getFunctionType({}, {}));
  b.setInsertionPointToEnd(host.addEntryBlock());
  DenseMap<Value, Value> buffers;
  auto alloc = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    Value buffer = b.create<AllocOp>(
        loc,
        BufferType::get(b.getContext(), type.getShape(), type.getElementType()),
        ValueRange{});
    buffers[tensor] = buffer;
    return buffer;
  };
  for (BlockArgument arg : function.getArguments())
    alloc(arg);
  for (auto [n, region] : llvm::enumerate(regions)) {
    SmallVector<Value> bindings;
    for (Value input : region.inputs)
      bindings.push_back(buffers.lookup(input));
    bindings.push_back(alloc(region.getResult()));
    SmallVector<Value> workload;
    for (int64_t w : region.grid.workload)
      workload.push_back(b.create<arith::ConstantIndexOp>(loc, w));
    std::string name = dispatchName(n);
    b.create<DispatchOp>(
        region.ops.back()->getLoc(),
        SymbolRefAttr::get(b.getStringAttr(name),
                           {FlatSymbolRefAttr::get(b.getStringAttr(name))}),
        workload, bindings, ValueRange{});
  }
  b.create<func::ReturnOp>(loc);
  function.erase();
  return success();
}

LogicalResult ProgramBuilder::build() {
  // Numbered in the order the host runs them: a region runs where its last
  // op is, after everything it reads.
  llvm::stable_sort(regions,
                    [](const DispatchRegion &a, const DispatchRegion &b) {
                      return a.ops.back()->isBeforeInBlock(b.ops.back());
                    });
  for (auto [n, region] : llvm::enumerate(regions))
    producedBy[region.getResult()] = n;
  for (size_t n = 0; n < regions.size(); ++n)
    if (failed(buildExecutable(n)))
      return failure();
  for (Value result : function.getBody().front().getTerminator()->getOperands())
    if (Operation *op = getStorage(result).getDefiningOp();
        op && isRecomputed(getStorage(result)))
      return op->emitOpError(
          "is returned by the model without a dispatch computing it; the "
          "front end needs results computed by a dispatch");
  return buildHostFunction();
}

struct FormDispatchesPass
    : public impl::FormDispatchesPassBase<FormDispatchesPass> {
  void runOnOperation() override {
    for (func::FuncOp function : getModelFunctions(getOperation())) {
      if (failed(checkFormable(function)))
        return signalPassFailure();
      FailureOr<SmallVector<DispatchRegion>> regions =
          formDispatchRegions(function);
      if (failed(regions) ||
          failed(ProgramBuilder(function, std::move(*regions)).build()))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace mlir::kb

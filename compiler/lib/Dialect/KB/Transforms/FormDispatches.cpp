//===- FormDispatches.cpp - The front end: models become dispatches -------===//
//
// kb-form-dispatches (Passes.td has the contract). The steps are the
// pass's: check the model against what the front end accepts (so errors
// point at the user's op), lower TOSA and generalize with MLIR's own
// passes, form dispatch regions (DispatchRegions.cpp), then write one
// kb.executable per region (DispatchBody.cpp) and the host function.
//
//===----------------------------------------------------------------------===//
#include "DispatchRegions.h"

#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::kb {
#define GEN_PASS_DEF_FORMDISPATCHESPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

namespace mlir::kb {
namespace {

bool isModelFunction(func::FuncOp function) {
  FunctionType type = function.getFunctionType();
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  if (llvm::any_of(type.getInputs(), isTensor) ||
      llvm::any_of(type.getResults(), isTensor))
    return true;
  WalkResult found = function.walk([](Operation *op) {
    return isa<tosa::TosaDialect, linalg::LinalgDialect, tensor::TensorDialect>(
               op->getDialect())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// A tensor type the front end takes, or an error at |op| naming |what|.
LogicalResult checkTensorType(Operation *op, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError() << what << " has type " << type
                             << "; a model function's arguments and results "
                                "are ranked tensors";
  if (!tensor.hasStaticShape())
    return op->emitOpError()
           << what << " has type " << type
           << "; the front end takes static shapes only (dynamic "
              "dimensions are not supported yet)";
  return success();
}

/// What the user wrote, checked before conversion so that every error
/// points at their op.
LogicalResult checkModelInput(func::FuncOp function) {
  FunctionType type = function.getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (failed(checkTensorType(function, t, "argument #" + Twine(i))))
      return failure();
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (failed(checkTensorType(function, t, "result #" + Twine(i))))
      return failure();
  WalkResult walk = function.walk<WalkOrder::PreOrder>([](Operation *op) -> WalkResult {
    if (!isa<tosa::TosaDialect, linalg::LinalgDialect, tensor::TensorDialect,
             arith::ArithDialect, math::MathDialect, func::FuncDialect>(
            op->getDialect())) {
      op->emitOpError("is not accepted in a model function: the front end "
                      "takes tosa, linalg (named ops and linalg.generic), "
                      "tensor, arith and math ops");
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults())
      if (auto tensor = dyn_cast<RankedTensorType>(result.getType());
          tensor && !tensor.hasStaticShape()) {
        op->emitOpError("has a result of type ")
            << tensor
            << "; the front end takes static shapes only (dynamic "
               "dimensions are not supported yet)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// MLIR's TOSA lowering (as mlir::tosa::addTosaToLinalgPasses orders it),
/// then generalization and elementwise fusion.
void buildConversion(OpPassManager &pm) {
  pm.addPass(tosa::createTosaOptionalDecompositions());
  pm.addPass(tosa::createTosaInferShapesPass());
  pm.addPass(tosa::createTosaMakeBroadcastablePass());
  pm.addPass(tosa::createTosaToLinalgNamed());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(tosa::createTosaToLinalg());
  pm.addPass(tosa::createTosaToArith());
  pm.addPass(tosa::createTosaToTensor());
  pm.addPass(createLinalgGeneralizationPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// linalg.map, reduce, transpose and broadcast as linalg.generic: MLIR 16's
/// generalization covers only ops with a region builder. Their own region
/// is the payload (map's has no argument for the init).
void generalizeRegionOps(func::FuncOp function) {
  auto values = [](ArrayRef<OpOperand *> operands) {
    return SmallVector<Value>(
        llvm::map_range(operands, [](OpOperand *o) { return o->get(); }));
  };
  SmallVector<linalg::LinalgOp> ops;
  function.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MapOp, linalg::ReduceOp, linalg::TransposeOp,
            linalg::BroadcastOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(function.getContext());
  for (linalg::LinalgOp op : ops) {
    rewriter.setInsertionPoint(op);
    Block &payload = op->getRegion(0).front();
    auto generic = rewriter.create<linalg::GenericOp>(
        op.getLoc(), op->getResultTypes(), values(op.getDpsInputOperands()),
        values(op.getDpsInitOperands()),
        op.getIndexingMapsArray(), op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          IRMapping mapping;
          for (auto [from, to] : llvm::zip(payload.getArguments(), args))
            mapping.map(from, to);
          for (Operation &inner : payload.without_terminator())
            b.clone(inner, mapping);
          SmallVector<Value> yielded;
          for (Value v : payload.getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(v));
          b.create<linalg::YieldOp>(loc, yielded);
        });
    rewriter.replaceOp(op, generic->getResults());
  }
}

/// After conversion: only what formation understands is left.
LogicalResult checkFormable(func::FuncOp function) {
  for (Operation &op : function.getBody().front()) {
    if (isa<linalg::GenericOp, tensor::EmptyOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, func::ReturnOp>(op))
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense || dense.isSplat())
        continue;
      return op.emitOpError("is a tensor constant of ")
             << dense.getType()
             << " with distinct values (weights); the front end does not "
                "embed weights: pass them as function arguments";
    }
    return op.emitOpError("cannot be formed into a dispatch: after TOSA "
                          "conversion the front end takes linalg.generic "
                          "(and named linalg ops), tensor.empty, "
                          "expand_shape, collapse_shape and splat constants");
  }
  return success();
}

/// The binding element type of a tensor crossing a dispatch boundary.
FailureOr<BindingElementType> getBindingType(Operation *op, Value tensor) {
  Type t = getElementTypeOrSelf(tensor.getType());
  if (t.isF32())
    return BindingElementType::F32;
  if (t.isF16())
    return BindingElementType::F16;
  if (t.isBF16())
    return BindingElementType::BF16;
  if (t.isF64())
    return BindingElementType::F64;
  if (t.isSignlessInteger(8))
    return BindingElementType::I8;
  if (t.isSignlessInteger(16))
    return BindingElementType::I16;
  if (t.isSignlessInteger(32))
    return BindingElementType::I32;
  if (t.isSignlessInteger(64))
    return BindingElementType::I64;
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

FailureOr<LayoutAttr> ProgramBuilder::buildLayout(const DispatchRegion &region) {
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
  DispatchGrid grid = getDispatchGrid(region);
  b.setInsertionPointToEnd(&executable.getBlock());
  b.create<ExportOp>(loc, b.getStringAttr(name), *layout,
                     b.getDenseI64ArrayAttr(grid.workgroupSize),
                     DenseI64ArrayAttr(), IntegerAttr());
  auto module = b.create<ModuleOp>(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto body = b.create<func::FuncOp>(loc, name, b.getFunctionType({}, {}));
  return buildDispatchBody(body, region, grid);
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
        loc, BufferType::get(b.getContext(), type.getShape(),
                             type.getElementType()),
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
    for (int64_t w : getDispatchGrid(region).workload)
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
  llvm::stable_sort(regions, [](const DispatchRegion &a,
                                const DispatchRegion &b) {
    return a.ops.back()->isBeforeInBlock(b.ops.back());
  });
  for (auto [n, region] : llvm::enumerate(regions))
    producedBy[region.getResult()] = n;
  for (size_t n = 0; n < regions.size(); ++n)
    if (failed(buildExecutable(n)))
      return failure();
  for (Value result : function.getBody().front().getTerminator()->getOperands())
    if (auto constant = getStorage(result).getDefiningOp<arith::ConstantOp>())
      return constant.emitOpError(
          "is returned by the model; the front end needs results computed "
          "by a dispatch");
  return buildHostFunction();
}

struct FormDispatchesPass
    : public impl::FormDispatchesPassBase<FormDispatchesPass> {
  // The conversion pipeline's dialects must be loaded before any pass runs:
  // loading one from inside a running pass deadlocks the context.
  void getDependentDialects(DialectRegistry &registry) const override {
    FormDispatchesPassBase::getDependentDialects(registry);
    OpPassManager conversion(func::FuncOp::getOperationName());
    buildConversion(conversion);
    conversion.getDependentDialects(registry);
  }

  void runOnOperation() override {
    SmallVector<func::FuncOp> models;
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (isModelFunction(function))
        models.push_back(function);
    for (func::FuncOp function : models) {
      OpPassManager conversion(func::FuncOp::getOperationName());
      buildConversion(conversion);
      if (failed(checkModelInput(function)))
        return signalPassFailure();
      // Before MLIR's generalization and fusion, which then see them.
      generalizeRegionOps(function);
      if (failed(runPipeline(conversion, function)) ||
          failed(checkFormable(function)))
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

//===- LowerModel.cpp - The front end's first half: a model to linalg -----===//
//
// kb-lower-model (Passes.td has the contract): check each model function
// against what the front end accepts, before anything changes it, so that
// every error points at the user's op; lower TOSA with MLIR's own
// conversions; then generalize and fuse (LinalgPreparation.cpp).
//
//===----------------------------------------------------------------------===//
#include "DispatchRegions.h"

#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::kb {
#define GEN_PASS_DEF_LOWERMODELPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

namespace mlir::kb {

static bool isModelFunction(func::FuncOp function) {
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

SmallVector<func::FuncOp> getModelFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> models;
  for (auto function : module.getOps<func::FuncOp>())
    if (isModelFunction(function))
      models.push_back(function);
  return models;
}

namespace {

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
  if (function.isDeclaration())
    return function.emitOpError("is a declaration; a model function needs a "
                                "body of tosa or linalg ops");
  FunctionType type = function.getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (failed(checkTensorType(function, t, "argument #" + Twine(i))))
      return failure();
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (failed(checkTensorType(function, t, "result #" + Twine(i))))
      return failure();
  WalkResult walk = function.walk<WalkOrder::PreOrder>([](Operation *op)
                                                           -> WalkResult {
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

/// MLIR's TOSA lowering, as mlir::tosa::addTosaToLinalgPasses orders it.
void buildConversion(OpPassManager &pm) {
  pm.addPass(tosa::createTosaOptionalDecompositions());
  pm.addPass(tosa::createTosaInferShapesPass());
  pm.addPass(tosa::createTosaMakeBroadcastablePass());
  pm.addPass(tosa::createTosaToLinalgNamed());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(tosa::createTosaToLinalg());
  pm.addPass(tosa::createTosaToArith());
  pm.addPass(tosa::createTosaToTensor());
}

struct LowerModelPass : public impl::LowerModelPassBase<LowerModelPass> {
  // The conversion pipeline's dialects must be loaded before any pass runs:
  // loading one from inside a running pass deadlocks the context.
  void getDependentDialects(DialectRegistry &registry) const override {
    LowerModelPassBase::getDependentDialects(registry);
    OpPassManager conversion(func::FuncOp::getOperationName());
    buildConversion(conversion);
    conversion.getDependentDialects(registry);
  }

  void runOnOperation() override {
    for (func::FuncOp function : getModelFunctions(getOperation())) {
      OpPassManager conversion(func::FuncOp::getOperationName());
      buildConversion(conversion);
      if (failed(checkModelInput(function)) ||
          failed(runPipeline(conversion, function)))
        return signalPassFailure();
      generalizeLinalgOps(function);
      fuseElementwiseProducers(function);
    }
  }
};

} // namespace
} // namespace mlir::kb

//===- LinalgPreparation.cpp - Generalize and fuse before formation -------===//
//
// What MLIR's linalg-generalize-named-ops and linalg-fuse-elementwise-ops
// passes do for the front end, called directly: one walk each instead of a
// greedy rewrite to a fixed point over the whole model (with reshape
// propagation and canonicalization patterns the front end does not need).
// On a 1,000-layer model this is several times faster than the passes
// (bench/frontend_scale).
//
//===----------------------------------------------------------------------===//
#include "DispatchRegions.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kb {

static SmallVector<Value> getValues(ArrayRef<OpOperand *> operands) {
  return SmallVector<Value>(
      llvm::map_range(operands, [](OpOperand *o) { return o->get(); }));
}

/// |op| as a generic whose payload is |op|'s own region (map's region has
/// no argument for the init, which zip leaves out).
static linalg::GenericOp generalizeFromRegion(RewriterBase &rewriter,
                                              linalg::LinalgOp op) {
  Block &payload = op->getRegion(0).front();
  return rewriter.create<linalg::GenericOp>(
      op.getLoc(), op->getResultTypes(), getValues(op.getDpsInputOperands()),
      getValues(op.getDpsInitOperands()), op.getIndexingMapsArray(),
      op.getIteratorTypesArray(),
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
}

void generalizeLinalgOps(func::FuncOp function) {
  SmallVector<linalg::LinalgOp> named;
  function.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op))
      named.push_back(op);
  });
  IRRewriter rewriter(function.getContext());
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (succeeded(linalg::generalizeNamedOp(rewriter, op)))
      continue;
    if (isa<linalg::MapOp, linalg::ReduceOp, linalg::TransposeOp,
            linalg::BroadcastOp>(op))
      rewriter.replaceOp(op, generalizeFromRegion(rewriter, op)->getResults());
  }
}

/// Whether |op| reads a reduction's result element for element: formation
/// fuses it into that reduction as a consumer (a matmul's bias and
/// activation), so it is not fused forward into another reduction.
static bool consumesAReduction(linalg::GenericOp op) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto root = getStorage(input->get()).getDefiningOp<linalg::GenericOp>();
    if (root && root.getNumReductionLoops() > 0 &&
        op.getMatchingIndexingMap(input).isIdentity())
      return true;
  }
  return false;
}

/// Fuses the first fusable single-use producer of |consumer|; the fused op,
/// or null when there is none.
static Operation *fuseOneProducer(RewriterBase &rewriter,
                                  linalg::GenericOp consumer) {
  for (OpOperand &operand : consumer->getOpOperands()) {
    auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
    if (!producer || !producer->hasOneUse() ||
        !linalg::areElementwiseOpsFusable(&operand) ||
        (consumer.getNumReductionLoops() > 0 && consumesAReduction(producer)))
      continue;
    rewriter.setInsertionPoint(consumer);
    FailureOr<Operation *> fused =
        linalg::fuseElementwiseOps(rewriter, &operand);
    if (failed(fused))
      continue;
    rewriter.replaceOp(
        consumer, (*fused)->getResults().take_back(consumer->getNumResults()));
    if (producer->use_empty())
      rewriter.eraseOp(producer);
    return *fused;
  }
  return nullptr;
}

void fuseElementwiseProducers(func::FuncOp function) {
  SmallVector<linalg::GenericOp> generics;
  function.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  IRRewriter rewriter(function.getContext());
  // A fused op keeps its producers' results (unused) and their operands;
  // they are dropped before anything can fuse it in turn.
  RewritePatternSet patterns(function.getContext());
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  FrozenRewritePatternSet cleanup(std::move(patterns));
  // In program order, so each producer has absorbed its own producers
  // before it is fused into its consumer; only earlier ops are erased.
  for (linalg::GenericOp op : generics) {
    Operation *fused = nullptr;
    while (Operation *next = fuseOneProducer(rewriter, op)) {
      fused = next;
      op = cast<linalg::GenericOp>(next);
    }
    if (fused)
      (void)applyOpPatternsAndFold(fused, cleanup);
  }
}

} // namespace mlir::kb

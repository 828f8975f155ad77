//===- ZeroTripLoops.cpp - loop results defined on every path -------------===//
#include "kb/Codegen/ZeroTripLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

/// Constant bounds with lb < ub: the body runs, so the yield stores.
static bool runsAtLeastOnce(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  return lb && ub && *lb < *ub;
}

static void guard(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value entered =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                              loop.getLowerBound(), loop.getUpperBound());
  auto guarded = b.create<scf::IfOp>(loc, loop.getResultTypes(), entered,
                                     /*withElseRegion=*/true);
  loop->replaceAllUsesWith(guarded.getResults());

  b.setInsertionPointToEnd(guarded.thenBlock());
  auto yieldLoop = b.create<scf::YieldOp>(loc, loop.getResults());
  loop->moveBefore(yieldLoop);
  b.setInsertionPointToEnd(guarded.elseBlock());
  b.create<scf::YieldOp>(loc, loop.getInitArgs());
}

void mlir::kb::guardZeroTripLoops(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop.getNumResults() != 0 && !runsAtLeastOnce(loop))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops)
    guard(loop);
}

//===- DispatchRegions.cpp - Which generics form one dispatch -------------===//
//
// Deterministic and simple, like IREE's first formation heuristics: every
// generic is a root, in program order, and a root absorbs the chain of
// elementwise consumers that read its result element for element while
// that result has one use. Fills and broadcasts that only initialize other
// generics are recomputed inside them rather than dispatched.
//
//===----------------------------------------------------------------------===//
#include "DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::kb {

Value getStorage(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      break;
    value = op->getOperand(0);
  }
  return value;
}

static bool isAllParallel(linalg::GenericOp op) {
  return op.getNumReductionLoops() == 0;
}

bool isRecomputed(Value value) {
  value = getStorage(value);
  // Views: read through to their source.
  if (value.getDefiningOp<tensor::PadOp>() ||
      value.getDefiningOp<tensor::ExtractSliceOp>())
    return true;
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      return dense.isSplat();
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic->getNumResults() != 1 || !isAllParallel(generic) ||
      !generic.getIndexingMapsArray().back().isIdentity() || value.use_empty())
    return false;
  for (OpOperand &use : value.getUses()) {
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!user || !user.isDpsInit(&use))
      return false;
  }
  return true;
}

/// The consumer fused after |producer| in its dispatch, or null: the only
/// user of its result (through reshapes), an elementwise generic reading it
/// with the identity map into an identity-mapped result.
static linalg::GenericOp getFusedConsumer(linalg::GenericOp producer) {
  Value value = producer->getResult(0);
  while (value.hasOneUse() &&
         isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
             *value.getUsers().begin()))
    value = value.getUsers().begin()->getResult(0);
  if (!value.hasOneUse())
    return {};
  OpOperand &use = *value.getUses().begin();
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || consumer->getNumResults() != 1 || !isAllParallel(consumer) ||
      !consumer.isDpsInput(&use) ||
      !consumer.getMatchingIndexingMap(&use).isIdentity() ||
      !consumer.getIndexingMapsArray().back().isIdentity())
    return {};
  return consumer;
}

/// Adds the storage |value| reads to |inputs|, or, for a recomputed value,
/// what recomputing it reads.
static void addSource(Value value, llvm::SetVector<Value> &inputs) {
  value = getStorage(value);
  if (!isRecomputed(value)) {
    inputs.insert(value);
    return;
  }
  if (auto pad = value.getDefiningOp<tensor::PadOp>())
    return addSource(pad.getSource(), inputs);
  if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    return addSource(slice.getSource(), inputs);
  if (auto generic = value.getDefiningOp<linalg::GenericOp>())
    for (OpOperand &operand : generic->getOpOperands())
      if (isa<RankedTensorType>(operand.get().getType()) &&
          !operand.get().getDefiningOp<tensor::EmptyOp>() &&
          generic.payloadUsesValueFromOperand(&operand))
        addSource(operand.get(), inputs);
}

/// What |region|'s ops read from memory.
static SmallVector<Value> collectInputs(const DispatchRegion &region) {
  llvm::SetVector<Value> inputs;
  Value chained;
  for (linalg::GenericOp op : region.ops) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!isa<RankedTensorType>(value.getType()) ||
          (chained && getStorage(value) == chained))
        continue;
      // Operands only their shape matters for (a pooling window, an
      // overwritten init) are not read.
      if (value.getDefiningOp<tensor::EmptyOp>() ||
          !op.payloadUsesValueFromOperand(&operand))
        continue;
      addSource(value, inputs);
    }
    chained = op->getResult(0);
  }
  return SmallVector<Value>(inputs.begin(), inputs.end());
}

/// The root's result must index its parallel loops one to one, so that
/// each invocation owns one result element.
static LogicalResult checkRoot(linalg::GenericOp root) {
  if (root->getNumResults() != 1)
    return root.emitOpError("has ")
           << root->getNumResults()
           << " results; the front end forms dispatches of single-result ops";
  AffineMap map = root.getIndexingMapsArray().back();
  if (!map.isProjectedPermutation() ||
      map.getNumResults() != root.getNumParallelLoops())
    return root.emitOpError("writes its result through ")
           << AffineMapAttr::get(map)
           << "; the front end needs a result indexed by exactly the "
              "parallel loops";
  return success();
}

/// Documented in Passes.td: 16x16 workgroups over the last two dimensions
/// when both are at least 16, else 256 invocations in a line.
static DispatchGrid getDispatchGrid(const DispatchRegion &region) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(region.ops.front()->getResult(0).getType())
          .getShape();
  size_t rank = shape.size();
  if (rank >= 2 && shape[rank - 1] >= 16 && shape[rank - 2] >= 16) {
    int64_t outer = 1;
    for (int64_t d : shape.drop_back(2))
      outer *= d;
    return {{shape[rank - 1], shape[rank - 2], outer}, {16, 16, 1}};
  }
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  return {{elements}, {256, 1, 1}};
}

FailureOr<SmallVector<DispatchRegion>>
formDispatchRegions(func::FuncOp function) {
  SmallVector<DispatchRegion> regions;
  DenseSet<Operation *> formed;
  for (Operation &op : function.getBody().front()) {
    auto root = dyn_cast<linalg::GenericOp>(op);
    if (!root || formed.contains(root) ||
        (root->getNumResults() == 1 && isRecomputed(root->getResult(0))))
      continue;
    if (failed(checkRoot(root)))
      return failure();
    DispatchRegion region;
    region.ops.push_back(root);
    while (linalg::GenericOp next = getFusedConsumer(region.ops.back()))
      region.ops.push_back(next);
    for (linalg::GenericOp member : region.ops)
      formed.insert(member);
    region.inputs = collectInputs(region);
    region.grid = getDispatchGrid(region);
    regions.push_back(std::move(region));
  }
  return regions;
}

} // namespace mlir::kb

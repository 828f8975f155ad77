//===- DispatchBody.cpp - The kernel body of a formed dispatch ------------===//
//
// A correct, simple mapping (this is the reference handwritten kernels are
// checked against): each invocation computes one element of the root's
// result, with the root's reduction loops run inside the invocation, then
// the fused consumers on that element, and stores it. Reads go through the
// indexing maps to row-major linear indices into 1-D binding memrefs (the
// ABI passes no shapes); recomputed values (fills, broadcasts, splats) are
// evaluated in place. The result is the target-independent body codegen
// takes: arith/math/scf/memref and the kb interface ops.
//
//===----------------------------------------------------------------------===//
#include "DispatchRegions.h"

#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kb {
namespace {

std::string describe(AffineExpr expr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  expr.print(os);
  return os.str();
}

class BodyBuilder {
public:
  BodyBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  void bind(Value storage, Value memref) { memrefs[storage] = memref; }

  /// The element of |op|'s result at |coords| (its result shape);
  /// |chained| is the value of the operand that reads the previous op of
  /// the dispatch, if any.
  FailureOr<Value> computeElement(linalg::GenericOp op, ValueRange coords,
                                  OpOperand *chainedOperand, Value chained);

  Value index(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value linearize(ValueRange indices, ArrayRef<int64_t> shape);
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape);

private:
  FailureOr<Value> readElement(Value tensor, ValueRange indices);
  FailureOr<Value> readPadded(tensor::PadOp pad, ValueRange coords);
  FailureOr<Value> readSlice(tensor::ExtractSliceOp slice, ValueRange coords);
  FailureOr<Value> evaluateRegion(linalg::GenericOp op, ValueRange loops,
                                  Value out, OpOperand *chainedOperand,
                                  Value chained);
  FailureOr<Value> reduce(linalg::GenericOp op, SmallVector<Value> &loops,
                          ArrayRef<unsigned> dims, Value init,
                          OpOperand *chainedOperand, Value chained);
  FailureOr<SmallVector<Value>> applyMap(Operation *op, AffineMap map,
                                         ValueRange loops);
  FailureOr<Value> evaluate(Operation *op, AffineExpr expr, ValueRange loops);

  OpBuilder &b;
  Location loc;
  DenseMap<Value, Value> memrefs;
};

} // namespace

Value BodyBuilder::linearize(ValueRange indices, ArrayRef<int64_t> shape) {
  Value linear = index(0);
  for (auto [i, d] : llvm::zip(indices, shape))
    linear = b.create<arith::AddIOp>(
        loc, b.create<arith::MulIOp>(loc, linear, index(d)), i);
  return linear;
}

SmallVector<Value> BodyBuilder::delinearize(Value linear,
                                            ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    indices[i] = b.create<arith::RemUIOp>(loc, linear, index(shape[i]));
    linear = b.create<arith::DivUIOp>(loc, linear, index(shape[i]));
  }
  return indices;
}

FailureOr<Value> BodyBuilder::evaluate(Operation *op, AffineExpr expr,
                                       ValueRange loops) {
  if (auto dim = expr.dyn_cast<AffineDimExpr>())
    return loops[dim.getPosition()];
  if (auto constant = expr.dyn_cast<AffineConstantExpr>())
    return index(constant.getValue());
  auto binary = expr.dyn_cast<AffineBinaryOpExpr>();
  if (!binary)
    return op->emitOpError("indexes an operand with ")
           << describe(expr)
           << "; the front end supports dims, constants, +, *, floordiv, "
              "ceildiv and mod";
  FailureOr<Value> lhs = evaluate(op, binary.getLHS(), loops);
  FailureOr<Value> rhs = evaluate(op, binary.getRHS(), loops);
  if (failed(lhs) || failed(rhs))
    return failure();
  // Indices are never negative, so the unsigned forms are exact.
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return b.create<arith::AddIOp>(loc, *lhs, *rhs).getResult();
  case AffineExprKind::Mul:
    return b.create<arith::MulIOp>(loc, *lhs, *rhs).getResult();
  case AffineExprKind::FloorDiv:
    return b.create<arith::DivUIOp>(loc, *lhs, *rhs).getResult();
  case AffineExprKind::CeilDiv:
    return b.create<arith::CeilDivUIOp>(loc, *lhs, *rhs).getResult();
  case AffineExprKind::Mod:
    return b.create<arith::RemUIOp>(loc, *lhs, *rhs).getResult();
  default:
    return op->emitOpError("indexes an operand with ") << describe(expr);
  }
}

FailureOr<SmallVector<Value>>
BodyBuilder::applyMap(Operation *op, AffineMap map, ValueRange loops) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    FailureOr<Value> v = evaluate(op, expr, loops);
    if (failed(v))
      return failure();
    indices.push_back(*v);
  }
  return indices;
}

FailureOr<Value> BodyBuilder::readElement(Value tensor, ValueRange indices) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value storage = getStorage(tensor);
  if (auto constant = storage.getDefiningOp<arith::ConstantOp>())
    return b
        .create<arith::ConstantOp>(loc,
                                   cast<DenseElementsAttr>(constant.getValue())
                                       .getSplatValue<TypedAttr>())
        .getResult();
  // Reshapes keep the row-major order: the linear index in the shape the
  // value is read as is the linear index into its storage.
  Value linear = linearize(indices, type.getShape());
  auto storageCoords = [&]() -> SmallVector<Value> {
    if (storage == tensor)
      return SmallVector<Value>(indices);
    return delinearize(linear,
                       cast<RankedTensorType>(storage.getType()).getShape());
  };
  if (auto pad = storage.getDefiningOp<tensor::PadOp>())
    return readPadded(pad, storageCoords());
  if (auto slice = storage.getDefiningOp<tensor::ExtractSliceOp>())
    return readSlice(slice, storageCoords());
  if (auto producer = storage.getDefiningOp<linalg::GenericOp>();
      producer && isRecomputed(storage))
    return computeElement(producer, storageCoords(), nullptr, {});
  Value memref = memrefs.lookup(storage);
  assert(memref && "every input is bound");
  return b.create<memref::LoadOp>(loc, memref, linear).getResult();
}

FailureOr<Value> BodyBuilder::readPadded(tensor::PadOp pad, ValueRange coords) {
  // In the source where low <= coord < low + size in every dimension; the
  // padding value elsewhere (read only where in range).
  auto sourceShape = pad.getSourceType().getShape();
  Value inside;
  SmallVector<Value> sourceCoords;
  for (auto [i, coord] : llvm::enumerate(coords)) {
    int64_t low = pad.getStaticLow()[i];
    Value above = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, coord,
                                          index(low));
    Value below = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, coord,
                                          index(low + sourceShape[i]));
    Value both = b.create<arith::AndIOp>(loc, above, below);
    inside = inside ? b.create<arith::AndIOp>(loc, inside, both) : both;
    sourceCoords.push_back(b.create<arith::SubIOp>(loc, coord, index(low)));
  }
  Value padding = pad.getConstantPaddingValue();
  auto constant = padding ? padding.getDefiningOp<arith::ConstantOp>()
                          : arith::ConstantOp();
  if (!constant)
    return pad.emitOpError("pads with a value that is not a constant; the "
                           "front end takes constant padding");
  Type element = pad.getResultType().getElementType();
  auto select = b.create<scf::IfOp>(loc, TypeRange{element}, inside,
                                    /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&select.getThenRegion().front());
  FailureOr<Value> read = readElement(pad.getSource(), sourceCoords);
  if (failed(read))
    return failure();
  b.create<scf::YieldOp>(loc, *read);
  b.setInsertionPointToStart(&select.getElseRegion().front());
  b.create<scf::YieldOp>(loc, b.clone(*constant)->getResult(0));
  return select.getResult(0);
}

FailureOr<Value> BodyBuilder::readSlice(tensor::ExtractSliceOp slice,
                                        ValueRange coords) {
  // offset + coord * stride per source dimension; a dimension the slice
  // drops (rank-reducing) is at its offset.
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<Value> sourceCoords;
  size_t next = 0;
  for (auto [i, offset] : llvm::enumerate(slice.getStaticOffsets())) {
    if (dropped.test(i)) {
      sourceCoords.push_back(index(offset));
      continue;
    }
    Value scaled = b.create<arith::MulIOp>(loc, coords[next++],
                                           index(slice.getStaticStrides()[i]));
    sourceCoords.push_back(b.create<arith::AddIOp>(loc, scaled, index(offset)));
  }
  return readElement(slice.getSource(), sourceCoords);
}

FailureOr<Value> BodyBuilder::evaluateRegion(linalg::GenericOp op,
                                             ValueRange loops, Value out,
                                             OpOperand *chainedOperand,
                                             Value chained) {
  IRMapping mapping;
  Block &body = op.getRegion().front();
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (input == chainedOperand) {
      mapping.map(arg, chained);
      continue;
    }
    if (!op.payloadUsesValueFromOperand(input))
      continue;
    if (!isa<RankedTensorType>(input->get().getType())) {
      // A scalar operand: a constant of the function, copied in.
      auto constant = input->get().getDefiningOp<arith::ConstantOp>();
      if (!constant)
        return op.emitOpError("takes scalar operand #")
               << input->getOperandNumber()
               << " that is not a constant; a model's scalars must be "
                  "constants";
      mapping.map(arg, b.clone(*constant)->getResult(0));
      continue;
    }
    FailureOr<SmallVector<Value>> indices =
        applyMap(op, op.getMatchingIndexingMap(input), loops);
    if (failed(indices))
      return failure();
    FailureOr<Value> value = readElement(input->get(), *indices);
    if (failed(value))
      return failure();
    mapping.map(arg, *value);
  }
  mapping.map(op.getMatchingBlockArgument(op.getDpsInitOperand(0)), out);
  // Values of the function the payload uses are constants, copied in.
  auto copyCapturedConstants = [&](Operation *inner) -> LogicalResult {
    for (Value operand : inner->getOperands()) {
      if (mapping.contains(operand) ||
          op.getRegion().isAncestor(operand.getParentRegion()))
        continue;
      auto constant = operand.getDefiningOp<arith::ConstantOp>();
      if (!constant)
        return inner->emitOpError("uses a value from outside its linalg op "
                                  "that is not a constant");
      mapping.map(operand, b.clone(*constant)->getResult(0));
    }
    return success();
  };
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    if (failed(copyCapturedConstants(&inner)))
      return failure();
    b.clone(inner, mapping);
  }
  if (failed(copyCapturedConstants(body.getTerminator())))
    return failure();
  return mapping.lookup(body.getTerminator()->getOperand(0));
}

FailureOr<Value> BodyBuilder::reduce(linalg::GenericOp op,
                                     SmallVector<Value> &loops,
                                     ArrayRef<unsigned> dims, Value init,
                                     OpOperand *chainedOperand, Value chained) {
  if (dims.empty())
    return evaluateRegion(op, loops, init, chainedOperand, chained);
  int64_t size = op.getStaticLoopRanges()[dims.front()];
  auto loop = b.create<scf::ForOp>(loc, index(0), index(size), index(1),
                                   ValueRange{init});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  loops[dims.front()] = loop.getInductionVar();
  FailureOr<Value> next =
      reduce(op, loops, dims.drop_front(), loop.getRegionIterArgs()[0],
             chainedOperand, chained);
  if (failed(next))
    return failure();
  b.create<scf::YieldOp>(loc, *next);
  return loop.getResult(0);
}

FailureOr<Value> BodyBuilder::computeElement(linalg::GenericOp op,
                                             ValueRange coords,
                                             OpOperand *chainedOperand,
                                             Value chained) {
  SmallVector<Value> loops(op.getNumLoops());
  AffineMap resultMap = op.getIndexingMapsArray().back();
  for (auto [i, coord] : llvm::enumerate(coords))
    loops[resultMap.getDimPosition(i)] = coord;
  OpOperand *initOperand = op.getDpsInitOperand(0);
  Type elementType = getElementTypeOrSelf(initOperand->get().getType());
  Value init;
  if (!op.payloadUsesValueFromOperand(initOperand) ||
      initOperand->get().getDefiningOp<tensor::EmptyOp>()) {
    init = b.create<arith::ConstantOp>(loc, b.getZeroAttr(elementType));
  } else {
    FailureOr<Value> read = readElement(initOperand->get(), coords);
    if (failed(read))
      return failure();
    init = *read;
  }
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  return reduce(op, loops, reductionDims, init, chainedOperand, chained);
}

/// The linear index of this invocation's result element and whether it is
/// in range, for the region's grid (x varies fastest).
static std::pair<Value, Value> buildInvocationIndex(BodyBuilder &body,
                                                    OpBuilder &b, Location loc,
                                                    const DispatchGrid &grid) {
  Value linear, inRange;
  for (int64_t d = static_cast<int64_t>(grid.workload.size()) - 1; d >= 0;
       --d) {
    Value id = b.create<WorkgroupIdOp>(loc, b.getIndexType(),
                                       static_cast<Dimension>(d));
    Value thread =
        b.create<gpu::ThreadIdOp>(loc, static_cast<gpu::Dimension>(d));
    Value global = b.create<arith::AddIOp>(
        loc,
        b.create<arith::MulIOp>(loc, id, body.index(grid.workgroupSize[d])),
        thread);
    Value below = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                          global, body.index(grid.workload[d]));
    inRange = inRange ? b.create<arith::AndIOp>(loc, inRange, below) : below;
    linear = linear ? b.create<arith::AddIOp>(
                          loc,
                          b.create<arith::MulIOp>(loc, linear,
                                                  body.index(grid.workload[d])),
                          global)
                    : global;
  }
  return {linear, inRange};
}

LogicalResult buildDispatchBody(func::FuncOp function,
                                const DispatchRegion &region) {
  linalg::GenericOp root = region.ops.front();
  Location loc = root.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(function.addEntryBlock());
  BodyBuilder body(b, loc);
  auto bindMemref = [&](Value tensor, int64_t index) {
    Type element = getElementTypeOrSelf(tensor.getType());
    auto type = MemRefType::get({ShapedType::kDynamic}, element);
    Value memref = b.create<BindingOp>(loc, type, b.getI64IntegerAttr(index));
    body.bind(tensor, memref);
    return memref;
  };
  for (auto [i, input] : llvm::enumerate(region.inputs))
    bindMemref(input, static_cast<int64_t>(i));
  Value result = bindMemref(region.getResult(),
                            static_cast<int64_t>(region.inputs.size()));

  auto [linear, inRange] = buildInvocationIndex(body, b, loc, region.grid);
  auto guard = b.create<scf::IfOp>(loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  Value element, previous;
  for (linalg::GenericOp op : region.ops) {
    // A fused consumer reads the previous op's element through one operand.
    OpOperand *chainedOperand = nullptr;
    for (OpOperand *input : op.getDpsInputOperands())
      if (previous && getStorage(input->get()) == previous)
        chainedOperand = input;
    auto shape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    FailureOr<Value> next = body.computeElement(
        op, body.delinearize(linear, shape), chainedOperand, element);
    if (failed(next))
      return failure();
    element = *next;
    previous = op->getResult(0);
  }
  b.create<memref::StoreOp>(loc, element, result, linear);
  b.setInsertionPointToEnd(&function.getBody().front());
  b.create<func::ReturnOp>(loc);
  // Folds the index arithmetic of static shapes and drops what is unused:
  // the SPIR-V path does not optimize it later.
  (void)applyPatternsAndFoldGreedily(
      function,
      FrozenRewritePatternSet(RewritePatternSet(function.getContext())));
  return success();
}

} // namespace mlir::kb

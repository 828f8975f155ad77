//===- FloatLegalization.cpp - bf16 arithmetic computed in f32 ------------===//
#include "kb/Codegen/FloatLegalization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

/// bf16 -> f32: the 16 bits become the high half of the f32 (exact).
static Value extendBf16(OpBuilder &b, Location loc, Value value) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  Value bits = b.create<arith::BitcastOp>(loc, i16, value);
  Value wide = b.create<arith::ExtUIOp>(loc, i32, bits);
  Value shifted = b.create<arith::ShLIOp>(
      loc, wide, b.create<arith::ConstantIntOp>(loc, 16, i32));
  return b.create<arith::BitcastOp>(loc, b.getF32Type(), shifted);
}

/// f32 -> bf16, rounding to nearest even; a NaN stays a (quiet) NaN.
static Value truncateToBf16(OpBuilder &b, Location loc, Value value) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, i32);
  };
  Value bits = b.create<arith::BitcastOp>(loc, i32, value);
  Value lsb = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, bits, constant(16)), constant(1));
  Value rounded = b.create<arith::AddIOp>(
      loc, bits, b.create<arith::AddIOp>(loc, lsb, constant(0x7fff)));
  Value high = b.create<arith::ShRUIOp>(loc, rounded, constant(16));
  Value isNan =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, value, value);
  Value result = b.create<arith::SelectOp>(loc, isNan, constant(0x7fc0), high);
  return b.create<arith::BitcastOp>(
      loc, b.getBF16Type(), b.create<arith::TruncIOp>(loc, i16, result));
}

static bool isBf16(Type type) { return type.isBF16(); }

/// Ops that move bf16 values without arithmetic.
static bool keepsBf16(Operation *op) {
  return isa<arith::ConstantOp, arith::BitcastOp>(op);
}

/// A select of bf16 values selects their bits (the backend has no bf16
/// select either).
static void legalizeSelect(arith::SelectOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i16 = b.getI16Type();
  Value bits = b.create<arith::SelectOp>(
      loc, op.getCondition(),
      b.create<arith::BitcastOp>(loc, i16, op.getTrueValue()),
      b.create<arith::BitcastOp>(loc, i16, op.getFalseValue()));
  op.replaceAllUsesWith(
      b.create<arith::BitcastOp>(loc, op.getType(), bits).getResult());
  op.erase();
}

static void legalizeExtF(arith::ExtFOp op) {
  OpBuilder b(op);
  Value wide = extendBf16(b, op.getLoc(), op.getIn());
  if (op.getType() != wide.getType())
    wide = b.create<arith::ExtFOp>(op.getLoc(), op.getType(), wide);
  op.replaceAllUsesWith(wide);
  op.erase();
}

static void legalizeTruncF(arith::TruncFOp op) {
  OpBuilder b(op);
  Value in = op.getIn();
  // f64 rounds to f32 first (a double rounding, as nvcc's __double2bfloat16
  // does not; acceptable for references).
  if (!in.getType().isF32())
    in = b.create<arith::TruncFOp>(op.getLoc(), b.getF32Type(), in);
  op.replaceAllUsesWith(truncateToBf16(b, op.getLoc(), in));
  op.erase();
}

/// Recreates |op| on f32 operands and results, converting at the edges.
static void computeInF32(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(isBf16(operand.getType()) ? extendBf16(b, loc, operand)
                                                 : operand);
  SmallVector<Type> resultTypes;
  for (Type type : op->getResultTypes())
    resultTypes.push_back(isBf16(type) ? b.getF32Type() : type);
  Operation *wide = b.create(loc, op->getName().getIdentifier(), operands,
                             resultTypes, op->getAttrs());
  for (auto [before, after] : llvm::zip(op->getResults(), wide->getResults()))
    before.replaceAllUsesWith(
        isBf16(before.getType()) ? truncateToBf16(b, loc, after) : after);
  op->erase();
}

void mlir::kb::legalizeBf16Arithmetic(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            op->getDialect()) ||
        keepsBf16(op) || op->getNumRegions() != 0)
      return;
    if (llvm::any_of(op->getOperandTypes(), isBf16) ||
        llvm::any_of(op->getResultTypes(), isBf16))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (auto ext = dyn_cast<arith::ExtFOp>(op))
      legalizeExtF(ext);
    else if (auto trunc = dyn_cast<arith::TruncFOp>(op))
      legalizeTruncF(trunc);
    else if (auto select = dyn_cast<arith::SelectOp>(op))
      legalizeSelect(select);
    else
      computeInF32(op);
  }
}

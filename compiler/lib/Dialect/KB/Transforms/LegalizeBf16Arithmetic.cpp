//===- LegalizeBf16Arithmetic.cpp - kb-legalize-bf16-arithmetic -----------===//
#include "kb/Codegen/FloatLegalization.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::kb {
#define GEN_PASS_DEF_LEGALIZEBF16ARITHMETICPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

namespace {
struct LegalizeBf16ArithmeticPass
    : public mlir::kb::impl::LegalizeBf16ArithmeticPassBase<
          LegalizeBf16ArithmeticPass> {
  void runOnOperation() override {
    mlir::kb::legalizeBf16Arithmetic(getOperation());
  }
};
} // namespace

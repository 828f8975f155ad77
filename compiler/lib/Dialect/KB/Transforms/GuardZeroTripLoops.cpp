//===- GuardZeroTripLoops.cpp - kb-guard-zero-trip-loops ------------------===//
#include "kb/Codegen/ZeroTripLoops.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::kb {
#define GEN_PASS_DEF_GUARDZEROTRIPLOOPSPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

namespace {
struct GuardZeroTripLoopsPass
    : public mlir::kb::impl::GuardZeroTripLoopsPassBase<
          GuardZeroTripLoopsPass> {
  void runOnOperation() override {
    mlir::kb::guardZeroTripLoops(getOperation());
  }
};
} // namespace

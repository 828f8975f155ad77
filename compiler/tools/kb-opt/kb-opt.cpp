//===- kb-opt.cpp - mlir-opt with the kb dialect and its passes -----------===//
//
// Registers only the dialects kernel bodies and programs use (not
// InitAllDialects: that header alone costs ~25 s of compile time here).
//
//===----------------------------------------------------------------------===//
#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::kb::registerKBPasses();
  mlir::kb::registerCompilerPipeline();
  mlir::DialectRegistry registry;
  registry.insert<mlir::kb::KBDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "kb-opt: the kb dialect's optimizer driver\n", registry));
}

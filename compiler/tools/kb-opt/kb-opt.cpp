//===- kb-opt.cpp - mlir-opt with the kb dialect and its passes -----------===//
//
// Registers only the dialects programs, models and kernel bodies use
// (registerPipelineInputDialects; not InitAllDialects: that header alone
// costs ~25 s of compile time here).
//
//===----------------------------------------------------------------------===//
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::kb::registerKBPasses();
  mlir::kb::registerCompilerPipeline();
  mlir::DialectRegistry registry;
  mlir::kb::registerPipelineInputDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "kb-opt: the kb dialect's optimizer driver\n", registry));
}

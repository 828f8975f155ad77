//===- Codegen.cpp - kb-codegen: generate every non-external variant ------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::kb {
#define GEN_PASS_DEF_CODEGENPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

namespace {

struct CodegenPass : public mlir::kb::impl::CodegenPassBase<CodegenPass> {
  using mlir::kb::impl::CodegenPassBase<CodegenPass>::CodegenPassBase;
  CodegenPass(const CodegenPassOptions &options,
              SmallVectorImpl<CodegenRecord> *records)
      : CodegenPassBase(options), records(records) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    registerCodegenDialects(registry);
  }

  void runOnOperation() override {
    CodegenOptions options;
    options.emitCubin = emitCubin;
    options.ptxasPath = ptxas;
    if (failed(generateAllVariants(getOperation(), options, records)))
      signalPassFailure();
  }

  /// Where the driver collects per-variant timings (null from kb-opt).
  SmallVectorImpl<CodegenRecord> *records = nullptr;
};

} // namespace

std::unique_ptr<Pass>
mlir::kb::createCodegenPass(const CodegenPassOptions &options,
                            SmallVectorImpl<CodegenRecord> *records) {
  return std::make_unique<CodegenPass>(options, records);
}

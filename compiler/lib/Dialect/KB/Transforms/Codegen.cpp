//===- Codegen.cpp - kb-codegen: generate every non-external variant ------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

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

/// Records |binaries| on |variant| as the kb.generated attribute.
static void recordBinaries(ExecutableOp executable, VariantOp variant,
                           ArrayRef<GeneratedBinary> binaries) {
  Builder b(variant.getContext());
  SmallVector<Attribute> entries;
  for (const GeneratedBinary &binary : binaries) {
    std::string path = (executable.getSymName() + "_" + variant.getSymName() +
                        "." + binary.format)
                           .str();
    entries.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("target", b.getStringAttr(binary.target)),
         b.getNamedAttr("object",
                        ObjectAttr::get(b.getContext(), path, binary.data))}));
  }
  variant->setAttr(kGeneratedAttrName, b.getArrayAttr(entries));
}

struct CodegenPass : public mlir::kb::impl::CodegenPassBase<CodegenPass> {
  using mlir::kb::impl::CodegenPassBase<CodegenPass>::CodegenPassBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    registerCodegenDialects(registry);
  }

  void runOnOperation() override {
    CodegenOptions options;
    options.emitCubin = emitCubin;
    options.ptxasPath = ptxas;
    bool failedAny = false;
    for (auto executable : getOperation().getOps<ExecutableOp>()) {
      for (VariantOp variant : executable.getVariantOps()) {
        if (variant.isExternal() || variant->hasAttr(kGeneratedAttrName))
          continue;
        SmallVector<GeneratedBinary> binaries;
        // Keep going after a failure so that one run reports every
        // executable the lowering cannot handle.
        if (failed(generateVariant(executable, variant, options, binaries))) {
          failedAny = true;
          continue;
        }
        recordBinaries(executable, variant, binaries);
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace

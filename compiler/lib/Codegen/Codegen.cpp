//===- Codegen.cpp - Dispatch a generated variant to its backend ----------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Chrono.h"

#include <chrono>
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb::codegen {
LogicalResult generateCuda(ExecutableOp executable, VariantOp variant,
                           const CodegenOptions &options,
                           SmallVectorImpl<GeneratedBinary> &result);
LogicalResult generateSpirv(ExecutableOp executable, VariantOp variant,
                            SmallVectorImpl<GeneratedBinary> &result);
} // namespace mlir::kb::codegen

void kb::registerCodegenDialects(DialectRegistry &registry) {
  registry.insert<cf::ControlFlowDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, spirv::SPIRVDialect>();
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

LogicalResult kb::generateVariant(ExecutableOp executable, VariantOp variant,
                                  const CodegenOptions &options,
                                  SmallVectorImpl<GeneratedBinary> &result) {
  if (variant.isExternal())
    return variant.emitOpError("is external; only generated variants have "
                               "codegen");
  // Conversions create ops of these dialects; a context that only parsed
  // the program has not loaded them.
  MLIRContext *context = executable.getContext();
  context->loadDialect<cf::ControlFlowDialect, gpu::GPUDialect,
                       LLVM::LLVMDialect, NVVM::NVVMDialect,
                       spirv::SPIRVDialect>();
  if (variant.getBackend() == Backend::Cuda)
    return codegen::generateCuda(executable, variant, options, result);
  return codegen::generateSpirv(executable, variant, result);
}

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

LogicalResult kb::generateAllVariants(Operation *module,
                                      const CodegenOptions &options,
                                      SmallVectorImpl<CodegenRecord> *records) {
  bool failedAny = false;
  for (auto executable : cast<ModuleOp>(module).getOps<ExecutableOp>()) {
    for (VariantOp variant : executable.getVariantOps()) {
      if (variant.isExternal() || variant->hasAttr(kGeneratedAttrName))
        continue;
      auto start = std::chrono::steady_clock::now();
      SmallVector<GeneratedBinary> binaries;
      if (failed(generateVariant(executable, variant, options, binaries))) {
        failedAny = true;
        continue;
      }
      recordBinaries(executable, variant, binaries);
      std::chrono::duration<double, std::milli> elapsed =
          std::chrono::steady_clock::now() - start;
      if (records)
        records->push_back({executable.getSymName().str(),
                            variant.getSymName().str(),
                            variant.getTargetString(), elapsed.count()});
    }
  }
  return failure(failedAny);
}

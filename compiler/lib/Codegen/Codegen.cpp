//===- Codegen.cpp - Dispatch a generated variant to its backend ----------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
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
  if (variant.getBackend() == Backend::Cuda)
    return codegen::generateCuda(executable, variant, options, result);
  return codegen::generateSpirv(executable, variant, result);
}

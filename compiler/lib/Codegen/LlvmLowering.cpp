//===- LlvmLowering.cpp - The steps every lowering to LLVM shares ---------===//
#include "LlvmLowering.h"

#include "kb/Codegen/FloatLegalization.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace mlir;
using namespace mlir::kb;

LogicalResult codegen::approximateMath(Operation *root,
                                       const std::string &what) {
  legalizeBf16Arithmetic(root);
  RewritePatternSet patterns(root->getContext());
  populateMathPolynomialApproximationPatterns(patterns);
  if (failed(applyPatternsAndFoldGreedily(root, std::move(patterns))))
    return root->emitError("math approximation did not converge in the ")
           << what;
  return success();
}

LogicalResult codegen::lowerNativeMath(Operation *root,
                                       LLVMTypeConverter &converter) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  populateMathToLLVMConversionPatterns(converter, patterns);
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  // Selected natively by the NVPTX backend (and by every CPU backend).
  target.addIllegalOp<math::AbsFOp, math::AbsIOp, math::SqrtOp, math::FmaOp,
                      math::FloorOp, math::CeilOp, math::CopySignOp,
                      math::CountLeadingZerosOp, math::CountTrailingZerosOp,
                      math::CtPopOp, math::RoundEvenOp, math::RsqrtOp>();
  return applyPartialConversion(root, target, std::move(patterns));
}

LogicalResult codegen::lowerScfToCf(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  populateSCFToControlFlowConversionPatterns(patterns);
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalDialect<scf::SCFDialect>();
  return applyPartialConversion(root, target, std::move(patterns));
}

void codegen::populateBodyToLlvmPatterns(LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  populateMemRefToLLVMConversionPatterns(converter, patterns);
}

LogicalResult codegen::reconcileCasts(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  populateReconcileUnrealizedCastsPatterns(patterns);
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<UnrealizedConversionCastOp>();
  return applyPartialConversion(root, target, std::move(patterns));
}

void codegen::accessBf16AsI16(llvm::Module &module) {
  llvm::Type *i16 = llvm::Type::getInt16Ty(module.getContext());
  SmallVector<llvm::Instruction *> accesses;
  for (llvm::Function &function : module)
    for (llvm::Instruction &inst : llvm::instructions(function)) {
      if (auto *load = dyn_cast<llvm::LoadInst>(&inst))
        if (load->getType()->isBFloatTy())
          accesses.push_back(load);
      if (auto *store = dyn_cast<llvm::StoreInst>(&inst))
        if (store->getValueOperand()->getType()->isBFloatTy())
          accesses.push_back(store);
    }
  for (llvm::Instruction *inst : accesses) {
    llvm::IRBuilder<> b(inst);
    if (auto *load = dyn_cast<llvm::LoadInst>(inst)) {
      llvm::LoadInst *wide = b.CreateAlignedLoad(
          i16, load->getPointerOperand(), load->getAlign(), load->isVolatile());
      load->replaceAllUsesWith(b.CreateBitCast(wide, load->getType()));
      load->eraseFromParent();
      continue;
    }
    auto *store = cast<llvm::StoreInst>(inst);
    b.CreateAlignedStore(b.CreateBitCast(store->getValueOperand(), i16),
                         store->getPointerOperand(), store->getAlign(),
                         store->isVolatile());
    store->eraseFromParent();
  }
}

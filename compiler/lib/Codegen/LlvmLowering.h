//===- LlvmLowering.h - The steps every lowering to LLVM shares -----------===//
//
// The CUDA codegen and the CPU execution of references (test-only) lower a
// kernel body to the LLVM dialect with the same steps, so that both compute
// the same math: bf16 arithmetic in f32, the same polynomial approximations
// of exp/log/tanh/..., the same native math ops. Only what is specific to a
// target (NVVM ids and address spaces; the CPU's loops over ids) differs.
//
//===----------------------------------------------------------------------===//
#ifndef KB_LIB_CODEGEN_LLVMLOWERING_H_
#define KB_LIB_CODEGEN_LLVMLOWERING_H_

#include "mlir/Support/LogicalResult.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
class LLVMTypeConverter;
class Operation;
class RewritePatternSet;
namespace kb::codegen {

/// bf16 arithmetic computed in f32 (kb/Codegen/FloatLegalization.h), then
/// MLIR's polynomial approximations of the math ops that have one.
LogicalResult approximateMath(Operation *root, const std::string &what);

/// The math ops LLVM selects natively (abs, sqrt, fma, floor, ...) to LLVM
/// intrinsics; other math ops are left for the caller to refuse or lower.
LogicalResult lowerNativeMath(Operation *root, LLVMTypeConverter &converter);

/// scf.for/if/while -> cf branches with block arguments.
LogicalResult lowerScfToCf(Operation *root);

/// The patterns of a kernel body's arith, cf, func and memref ops to the
/// LLVM dialect (each target adds its own ids and math).
void populateBodyToLlvmPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

/// Removes the unrealized casts the LLVM conversions leave in pairs.
LogicalResult reconcileCasts(Operation *root);

/// Loads and stores of bf16 become i16 ones (with bitcasts the optimizer
/// folds away): after approximateMath, memory is the only place bf16 is
/// left, and a backend would otherwise fold the conversions' integer
/// operations back into bf16 operations it cannot select.
void accessBf16AsI16(llvm::Module &module);

} // namespace kb::codegen
} // namespace mlir

#endif // KB_LIB_CODEGEN_LLVMLOWERING_H_

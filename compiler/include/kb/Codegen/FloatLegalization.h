//===- kb/Codegen/FloatLegalization.h - bf16 arithmetic computed in f32 ---===//
//
// LLVM 16's NVPTX backend cannot select bf16 arithmetic ("Cannot select:
// bf16 = fadd") and miscompiles bf16 <-> f32 conversions (it loads the
// 16 bits into an f32 register), and its optimizer narrows an
// extf/addf/truncf chain back into bf16 arithmetic. So before lowering,
// every arith/math op on bf16 is computed in f32, and every bf16 <-> f32
// conversion is written as integer bit operations (extension: the 16 bits
// shifted into the high half; truncation: round to nearest even, NaN kept
// quiet), which no LLVM pass turns back into bf16 arithmetic. bf16 remains
// only in constants, bitcasts, loads and stores (the CUDA codegen then
// makes the loads and stores i16 ones in LLVM IR).
//
//===----------------------------------------------------------------------===//
#ifndef KB_CODEGEN_FLOATLEGALIZATION_H_
#define KB_CODEGEN_FLOATLEGALIZATION_H_

namespace mlir {
class Operation;
namespace kb {

/// Rewrites every scalar arith/math op under |root| that takes or produces
/// bf16 (constants and bitcasts excepted) to compute in f32, every
/// arith.extf / arith.truncf between bf16 and a wider float into integer
/// bit operations, and every select of bf16 into a select of its bits.
void legalizeBf16Arithmetic(Operation *root);

} // namespace kb
} // namespace mlir

#endif // KB_CODEGEN_FLOATLEGALIZATION_H_

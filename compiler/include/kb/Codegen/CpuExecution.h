//===- kb/Codegen/CpuExecution.h - A kernel body run on the host ----------===//
//
// Test-only: an independent execution of a generated reference, so that a
// codegen bug shows up as a disagreement between three executions of one
// MLIR body (SPIR-V on a Vulkan device, PTX on a GPU, this one on the CPU).
// MLIR 16 has no pass that runs a gpu.func on the CPU, so the lowering is
// our own: the body is rebuilt as for the CUDA codegen (kb interface ops ->
// parameters and GPU ids), then the GPU ids become the induction variables
// of loops over workgroups and invocations (x innermost), and the result
// goes through the CUDA codegen's own math steps (bf16 computed in f32, the
// same polynomial approximations) to the LLVM dialect, which MLIR's
// ExecutionEngine compiles for the host and runs.
//
// Invocations run one after another, so phase 1 covers bodies without
// workgroup barriers or workgroup memory (refused with a message); every
// generated reference today is such a body. The index width is chosen per
// run: 64 bits as in the CUDA codegen, 32 as in the SPIR-V codegen, so that
// index arithmetic that overflows 32 bits shows up as a difference.
//
//===----------------------------------------------------------------------===//
#ifndef KB_CODEGEN_CPUEXECUTION_H_
#define KB_CODEGEN_CPUEXECUTION_H_

#include "mlir/Support/LogicalResult.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::kb {
class ExecutableOp;

/// One dispatch of one export.
struct CpuDispatch {
  std::string exportName;
  /// One per binding, in binding order: the buffer's bytes, read and
  /// written in place.
  std::vector<std::vector<uint8_t>> *buffers = nullptr;
  /// One per constant: its value's bits (the low 4 bytes for 32-bit types).
  std::vector<uint64_t> constants;
  std::array<uint32_t, 3> workgroupCount = {1, 1, 1};
  /// 64 as in the CUDA codegen, 32 as in the SPIR-V codegen.
  unsigned indexBitwidth = 64;
};

/// Lowers export |dispatch.exportName| of |executable| for the host and runs
/// it over the whole grid. Errors are emitted as diagnostics (at the op that
/// cannot run: a barrier, workgroup memory, an op the lowering lacks).
/// Leaves |executable| unchanged.
LogicalResult runOnCpu(ExecutableOp executable, const CpuDispatch &dispatch);

} // namespace mlir::kb

#endif // KB_CODEGEN_CPUEXECUTION_H_

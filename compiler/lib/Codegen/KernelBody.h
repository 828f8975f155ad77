//===- KernelBody.h - Kernel body -> gpu.func with the kernel ABI --------===//
//
// Shared by the CUDA and SPIR-V codegen: checks that a kernel body only uses
// ops both lowerings support, then rebuilds it as a `gpu.func` kernel whose
// signature is the export's ABI, replacing the kb interface ops.
//
//===----------------------------------------------------------------------===//
#ifndef KB_LIB_CODEGEN_KERNELBODY_H_
#define KB_LIB_CODEGEN_KERNELBODY_H_

#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::kb::codegen {

/// The attribute on the placeholder (an operand-less
/// `builtin.unrealized_conversion_cast`) that stands for constant N in a
/// Vulkan kernel until the push-constant block exists.
inline constexpr llvm::StringLiteral kPushConstantAttr = "kb.push_constant";

enum class KernelFlavor {
  /// Bindings are static-shaped memref parameters (bare pointers after
  /// lowering; a dynamic binding is re-typed with memref.reinterpret_cast),
  /// then one scalar parameter per constant.
  Cuda,
  /// Bindings are memref parameters with `spirv.interface_var_abi` (0, i);
  /// constants are placeholders (kPushConstantAttr).
  Vulkan,
  /// The CPU execution of a reference (test-only): bindings are 1-D dynamic
  /// memref parameters (strided descriptors after lowering; a binding of
  /// another shape is re-typed with memref.reinterpret_cast), then one
  /// scalar parameter per constant. Workgroup memory is not supported.
  Host,
};

/// The signless type a constant of |type| is passed as (a kernel parameter,
/// a push-constant block member).
Type getConstantType(MLIRContext *context, ConstantType type);

/// "cuda:sm_90 codegen of kb.executable @saxpy" for messages.
std::string describeCodegen(ExecutableOp executable, VariantOp variant);

/// Builds `builtin.module attributes {gpu.container_module} { gpu.module
/// @<executable> { gpu.func @<export>(...) kernel ... } }` holding every
/// export of |executable|. Errors are emitted at the body op concerned.
FailureOr<OwningOpRef<ModuleOp>> buildKernelModule(ExecutableOp executable,
                                                   VariantOp variant,
                                                   KernelFlavor flavor);
/// The same, for a lowering that is not a variant's codegen; |what| names
/// it in messages ("CPU execution of kb.executable @saxpy").
FailureOr<OwningOpRef<ModuleOp>> buildKernelModule(ExecutableOp executable,
                                                   const std::string &what,
                                                   KernelFlavor flavor);

/// Rewrites #gpu.address_space memory spaces to the target's numbers
/// (workgroup, global, private), as MLIR 16's GPU lowerings do internally.
LogicalResult lowerAddressSpaces(Operation *root, unsigned workgroup,
                                 unsigned global, unsigned privateSpace);

} // namespace mlir::kb::codegen

#endif // KB_LIB_CODEGEN_KERNELBODY_H_

//===- KBAbi.h - Bridge between the kb dialect and common/kernel_abi.h ----===//
//
// The kb dialect spells the kernel ABI of DESIGN.md §3 with its own enums;
// common/ holds the model that the PTX/SPIR-V readers, the toolchain layer
// and the runtime share. These functions convert between the two so that an
// export can be checked with the same code that checks a kernel build.
//
//===----------------------------------------------------------------------===//
#ifndef KB_DIALECT_KB_IR_KBABI_H_
#define KB_DIALECT_KB_IR_KBABI_H_

#include "common/kernel_abi.h"
#include "kb/Dialect/KB/IR/KBDialect.h"

#include <optional>
#include <string>

namespace mlir::kb {
class ExportOp;

::kb::ElementType toCommon(BindingElementType type);
::kb::ScalarType toCommon(ConstantType type);
::kb::Access toCommon(BindingAccess access);

/// The KernelAbi of |exportOp| with |entry| as the entry name.
::kb::KernelAbi getKernelAbi(ExportOp exportOp, llvm::StringRef entry);

/// True when an MLIR type stands for |type| in a buffer or memref: same
/// width; a signless integer matches both signednesses, `si`/`ui` only their
/// own.
bool matchesElementType(Type type, BindingElementType elementType);
/// Same for a constant's scalar type.
bool matchesConstantType(Type type, ConstantType constantType);

/// A target as users write it: `cuda:sm_90`, `vulkan:1.2`.
struct TargetSpec {
  Backend backend;
  std::string arch; // "sm_90" or "vulkan1.2"
  /// The variant name: "cuda_sm_90", "vulkan_1_2".
  std::string getVariantName() const;
};
/// Parses |text|; nullopt when it is not a valid target.
std::optional<TargetSpec> parseTargetSpec(llvm::StringRef text);
/// True when |arch| is valid for |backend| ("sm_75".."sm_121"; "vulkan1.0"..
/// "vulkan1.3").
bool isValidArch(Backend backend, llvm::StringRef arch);
/// The valid targets for error messages.
const char *getValidTargetsText();

} // namespace mlir::kb

#endif // KB_DIALECT_KB_IR_KBABI_H_

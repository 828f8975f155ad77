//===- KBAbi.h - Bridge between the kb dialect and common/kernel_abi.h ----===//
//
// The kb dialect spells the kernel ABI of docs/kernel-abi.md with its own
// enums; common/ holds the model that the PTX/SPIR-V readers, the toolchain
// layer and the runtime share. These functions convert between the two so that
// an export can be checked with the same code that checks a kernel build.
//
//===----------------------------------------------------------------------===//
#ifndef KB_DIALECT_KB_IR_KBABI_H_
#define KB_DIALECT_KB_IR_KBABI_H_

#include "common/kernel_abi.h"
#include "common/target.h"
#include "kb/Dialect/KB/IR/KBDialect.h"

#include <optional>
#include <string>

namespace mlir::kb {
class ExportOp;
class VariantOp;

::kb::ElementType toCommon(BindingElementType type);
::kb::ScalarType toCommon(ConstantType type);
::kb::Access toCommon(BindingAccess access);
/// The inverses of toCommon: the kb dialect's spelling of a common/ type.
BindingElementType fromCommon(::kb::ElementType type);
ConstantType fromCommon(::kb::ScalarType type);
BindingAccess fromCommon(::kb::Access access);

/// The KernelAbi of |exportOp| with |entry| as the entry name.
::kb::KernelAbi getKernelAbi(ExportOp exportOp, llvm::StringRef entry);

/// Discardable integer attribute of a kb.variant: the dynamic shared memory
/// (bytes) its object is launched with, where it differs from the export's
/// `shared_memory` — a handwritten kernel declares its own in kernel.toml,
/// while the generated reference keeps the export's.
inline constexpr llvm::StringLiteral kVariantSharedMemoryAttrName =
    "kb.shared_memory";
/// The dynamic shared memory of |exportOp| when launched from |variant|.
int64_t getSharedMemoryBytes(VariantOp variant, ExportOp exportOp);

/// Discardable i64 array attributes of a kb.variant whose object (a
/// handwritten kernel) brings its own launch shape (kernel.toml [abi]
/// workgroup_size and workload_per_workgroup, e.g. a tuned tile size): the
/// workgroup size (3 entries) and the workload per workgroup (1 to 3) its
/// object runs with, in place of the export's. IREE's custom dispatches
/// declare a workgroup count region; here the rule stays the export's,
/// ceildiv(workload, workload_per_workgroup), with the variant's numbers.
inline constexpr llvm::StringLiteral kVariantWorkgroupSizeAttrName =
    "kb.workgroup_size";
inline constexpr llvm::StringLiteral kVariantWorkloadPerWorkgroupAttrName =
    "kb.workload_per_workgroup";
/// The workgroup size |variant| launches |exportOp| with (3 entries).
SmallVector<int64_t, 3> getWorkgroupSize(VariantOp variant, ExportOp exportOp);
/// The workload per workgroup |variant| covers (3 entries, missing 1).
SmallVector<int64_t, 3> getWorkloadPerWorkgroup(VariantOp variant,
                                                ExportOp exportOp);

/// Discardable string attribute of an external kb.variant: the device model
/// (the runtime's device name, as tuned.toml records it) its object was
/// tuned for. Such a variant sits beside the one for any device of its
/// target (which it does not replace); the runtime loads it on that model
/// only and prefers it there. One per target and device model.
inline constexpr llvm::StringLiteral kVariantDeviceAttrName = "kb.device";
/// |variant|'s device model; empty when it is for any device.
StringRef getVariantDevice(VariantOp variant);

/// Discardable attributes of a kb.variant whose object (a handwritten
/// kernel) assumes something of its pipeline, from its kernel.toml: the
/// required subgroup size (i64), full subgroups (unit), the SPIR-V
/// specialization constants (an array of {id, name, size, bits}
/// dictionaries, resolved against the object) and a CUDA kernel's own
/// parameter order (i64 array: the ABI slot of each parameter, bindings
/// then constants; ::kb::KernelAbi::parameterOrder). The generated
/// reference has none.
inline constexpr llvm::StringLiteral kVariantSubgroupSizeAttrName =
    "kb.subgroup_size";
inline constexpr llvm::StringLiteral kVariantFullSubgroupsAttrName =
    "kb.full_subgroups";
inline constexpr llvm::StringLiteral kVariantSpecializationAttrName =
    "kb.specialization";
inline constexpr llvm::StringLiteral kVariantParameterOrderAttrName =
    "kb.parameter_order";
/// A dictionary {binding, offsets, size} on a kb.variant whose SPIR-V
/// object takes its constants in a uniform block
/// (::kb::KernelAbi::uniformConstants, read from the object); absent: push
/// constants.
inline constexpr llvm::StringLiteral kVariantUniformConstantsAttrName =
    "kb.uniform_constants";
/// An array of {binding, name, stride, members} dictionaries on a
/// kb.variant whose SPIR-V object holds structs in some bindings
/// (::kb::Binding::structLayout, read from the object; each member
/// {name, type, offset, components, count, array_stride}); the export's
/// layout spells such a binding as bytes (u8). Standalone kernels only.
inline constexpr llvm::StringLiteral kVariantStructBindingsAttrName =
    "kb.struct_bindings";
/// Sets those attributes of |variant| from |abi| (removes what |abi| does
/// not set).
void setVariantPipeline(VariantOp variant, const ::kb::KernelAbi &abi);
/// Copies |variant|'s subgroup size, full subgroups, specialization
/// constants, parameter order, uniform constants and struct layouts into
/// |abi|.
void getVariantPipeline(VariantOp variant, ::kb::KernelAbi &abi);

/// True when an MLIR type stands for |type| in a buffer or memref: same
/// width; a signless integer matches both signednesses, `si`/`ui` only their
/// own.
bool matchesElementType(Type type, BindingElementType elementType);
/// Same for a constant's scalar type.
bool matchesConstantType(Type type, ConstantType constantType);

/// The dialect's backend of a common/target.h kind and back; a kb.variant's
/// `target(backend, arch)` is ::kb::Target::fromArch(toCommon(backend), arch).
::kb::Target::Kind toCommon(Backend backend);
Backend toBackend(::kb::Target::Kind kind);
/// The target of |variant|'s `target(backend, arch)`; always ok once the op
/// has verified. (A free function: KBOps.h stays free of the global `kb`
/// namespace, which `using namespace mlir` would make ambiguous.)
::kb::StatusOr<::kb::Target> getTarget(VariantOp variant);

} // namespace mlir::kb

#endif // KB_DIALECT_KB_IR_KBABI_H_

//===- common/abi_check.h - Check a PTX / SPIR-V object against an ABI ---===//
//
// The one implementation of "does this object fit the slot": used by the
// toolchain layer after a build, by the compiler on object substitution and
// by the runtime's module loader.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_ABI_CHECK_H_
#define KB_COMMON_ABI_CHECK_H_

#include "common/kernel_abi.h"
#include "common/ptx_reader.h"
#include "common/spirv_reader.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// One way an object does not fit. |message| names the parameter/binding,
/// what was expected and what was found, e.g.
/// "parameter 3 (constant 1 `n`): expected .u32 (4 bytes), found .u64 (8
/// bytes)".
struct AbiMismatch {
  std::string message;
};

/// What every workgroup-size mismatch's message says (PTX `.reqntid` and
/// SPIR-V alike). The workbench finds it in the compiler's diagnostics to
/// add its note on tuned launch shapes; one constant keeps the two together.
inline constexpr std::string_view kWorkgroupSizeMismatch =
    "workgroup size: expected ";

/// The `.entry` of |ptx| that the kernel function |name| compiled to: the
/// entry named exactly |name|, else the one entry whose mangled C++ name
/// names a function |name| at global or namespace scope (`saxpy` finds
/// `_Z5saxpyfPKfPfi`, `tile` finds `_ZN2ns4tileEv`). Null when there is no
/// such entry or several (overloads, template instances); |error|, when
/// given, then says which entries exist or match, and what to do. The one
/// resolver for the toolchain layer (ABI check, ptxas report), the compiler
/// (object substitution) and the runtime.
const PtxEntry *resolvePtxEntry(const PtxModule &ptx, std::string_view name,
                                std::string *error = nullptr);

/// The name a person calls the kernel |entry|: the source name of a mangled
/// C++ function (`_Z13scale_kernel1P13__nv_bfloat16PKS_i` ->
/// "scale_kernel1", template instances included), else |entry| itself.
/// Benchmark names use it.
std::string readableEntryName(std::string_view entry);

/// A CUDA kernel whose source names its parameters (|declared|, in its
/// order; cudaSourceParameterNames) with exactly the names of |abi|'s
/// bindings and constants, but in another order than |abi| passes them
/// (parameterSlots): two pointers, or two scalars of one size, fit either
/// way, so only the names can tell the kernel would read its output. One
/// mismatch that says which `parameters` to declare; none when the names
/// are not such a permutation (unnamed slots, other names) or agree.
std::vector<AbiMismatch>
checkParameterNames(const KernelAbi &abi,
                    const std::vector<std::string> &declared);

/// Compares the `.entry` resolvePtxEntry() finds for |abi.entry| in |ptx|
/// with |abi|: entry present, parameter
/// count, each parameter's size and alignment (pointer = 8 bytes), and
/// `.reqntid` / `.maxntid` against the workgroup size. Empty = fits.
std::vector<AbiMismatch> checkPtxAbi(const PtxModule &ptx,
                                     const KernelAbi &abi);

/// Compares the GLCompute entry point named |abi.entry| in |spirv| (GLSL
/// entry points are always "main": a module whose only GLCompute entry point
/// is "main" stands for any |abi.entry|) with
/// |abi|: storage buffer at set 0 binding i for each binding (and nothing
/// else bound), NonWritable iff readonly, the scalar kind of each buffer's
/// array (`int[]` for an f32 binding is a mismatch; `vec4[]` for f32, 16-bit
/// integers for bf16, which GLSL lacks, and 32-bit words packing narrower
/// elements fit), push-constant block size, member offsets and scalar kinds
/// against the constants, workgroup size. Empty = fits. Differences that
/// fit but deserve a word (signedness: `int` for a u32) go to |notes| when
/// given.
///
/// A struct binding (Binding::structLayout) must hold an array of structs
/// with exactly that layout (stride, member offsets, types, names aside);
/// a struct element where |abi| declares a scalar type is a mismatch that
/// describes the struct and says why only a standalone kernel can take it
/// (a program dispatch's bindings are arrays of scalars).
///
/// Constants come in a push-constant block, or, when |abi| has
/// uniformConstants, in one uniform block of scalars (std140): set 0, a
/// binding after the storage buffers, one scalar member per constant in
/// order, at the offsets and binding |abi| records. A uniform block the
/// ABI cannot fill (a vector, matrix, array or struct member, several
/// blocks, a block beside push constants, a binding of a storage buffer)
/// is a mismatch that says what to declare instead.
std::vector<AbiMismatch>
checkSpirvAbi(const SpirvModule &spirv, const KernelAbi &abi,
              std::vector<AbiMismatch> *notes = nullptr);

/// The uniform block |spirv| declares its constants in: the binding and
/// the members' offsets and size, as KernelAbi::uniformConstants records
/// them; nullopt when it declares no uniform buffer, or more than one, or
/// an array of blocks (checkSpirvAbi says what is wrong then). Whoever makes
/// a variant of a SPIR-V kernel sets its ABI's uniformConstants from this
/// before checkSpirvAbi: the block is the kernel's choice, not kernel.toml's.
std::optional<UniformConstants> uniformConstantsOf(const SpirvModule &spirv);

/// Sets the layout of every struct binding of |abi| (Binding::structLayout
/// engaged, as kernel.toml `type = "struct"` declares it) to the struct
/// element |spirv| declares at set 0 binding i, the kernel's own layout;
/// a binding whose storage buffer holds no struct keeps its declared empty
/// layout, which checkSpirvAbi then refuses saying what it found. Whoever
/// checks a SPIR-V kernel with struct bindings calls it before
/// checkSpirvAbi, as uniformConstantsOf for its constants.
void setStructLayouts(const SpirvModule &spirv, KernelAbi &abi);

/// Joins mismatches one per line, for Status messages.
std::string formatMismatches(const std::vector<AbiMismatch> &mismatches);

} // namespace kb

#endif // KB_COMMON_ABI_CHECK_H_

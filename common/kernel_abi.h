//===- common/kernel_abi.h - The kernel ABI model (docs/kernel-abi.md) ---===//
//
// One ABI for handwritten and generated kernels, shared by toolchains/ (build
// validation), compiler/ (object-substitution checks, codegen) and runtime/
// (launch argument packing, module-loader checks):
//
//  * Bindings: ordered storage buffers with an element type and an access.
//    CUDA: the first kernel parameters, one 64-bit pointer each.
//    Vulkan: descriptor set 0, binding i, storage buffer.
//  * Constants: ordered scalars after the bindings; 32-bit (i32/u32/f32, as in
//    IREE) and 64-bit (i64/u64/f64) naturally aligned.
//    CUDA: the next kernel parameters. Vulkan: one push-constant block, or
//    (a handwritten kernel's choice) one uniform block of scalars.
//  * Workgroup size: CUDA block dims; SPIR-V LocalSize/LocalSizeId/builtin.
//  * Dynamic shared memory in bytes.
//  * A required subgroup size and SPIR-V specialization constants.
//
// Dependency-free (C++17 standard library only).
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_KERNEL_ABI_H_
#define KB_COMMON_KERNEL_ABI_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// Element type of a binding's buffer.
enum class ElementType {
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  F16,
  BF16,
  F32,
  F64
};

/// Scalar type of a constant (kernel parameter / push-constant member).
enum class ScalarType { I32, U32, F32, I64, U64, F64 };

/// How a kernel uses a binding. ReadOnly maps to SPIR-V NonWritable.
enum class Access { ReadOnly, WriteOnly, ReadWrite };

/// Spellings used in kernel.toml, MLIR attributes and reports ("f32",
/// "readonly", ...). The parse functions return nullopt on unknown text.
const char *toString(ElementType type);
const char *toString(ScalarType type);
const char *toString(Access access);
std::optional<ElementType> parseElementType(std::string_view text);
std::optional<ScalarType> parseScalarType(std::string_view text);
std::optional<Access> parseAccess(std::string_view text);
/// The valid spellings, comma separated, for "expected one of ..." messages.
const char *validElementTypes();
const char *validScalarTypes();
const char *validAccesses();

uint32_t byteSize(ElementType type);
uint32_t byteSize(ScalarType type);

struct Binding {
  std::string name; // Optional; used in messages ("binding 1 (`y`)").
  ElementType elementType = ElementType::F32;
  Access access = Access::ReadWrite;
};

struct Constant {
  std::string name; // Optional; used in messages.
  ScalarType type = ScalarType::I32;
};

/// The value a SPIR-V specialization constant (SpecId |id|) is created with:
/// the low |size| bytes of |bits| (4: a 32-bit int/uint/float, or a bool as
/// VkBool32; 8: 64-bit), what VkSpecializationInfo passes. Resolved from
/// kernel.toml's [specialization] against the module (common/specialization.h).
struct SpecializationValue {
  uint32_t id = 0;
  std::string name; // the [specialization] key, for messages
  uint32_t size = 4;
  uint64_t bits = 0;
};

/// Vulkan: constants a kernel takes from a uniform buffer instead of push
/// constants (GLSL `layout(set = 0, binding = K) uniform Params { float
/// deltaT; uint n; }`, as most Vulkan samples pass parameters). The block is
/// the module's own, so these numbers come from its SPIR-V: |binding| K
/// (after the storage buffers, never one of theirs), one std140 |offsets|
/// entry per constant (the members' Offset decorations, in constant order)
/// and |size|, the bytes the block spans. The runtime packs a dispatch's
/// constants at these offsets into a small host-visible buffer bound there.
struct UniformConstants {
  uint32_t binding = 0;
  std::vector<uint32_t> offsets;
  uint32_t size = 0;
  bool operator==(const UniformConstants &other) const {
    return binding == other.binding && offsets == other.offsets &&
           size == other.size;
  }
  bool operator!=(const UniformConstants &other) const {
    return !(*this == other);
  }
};

/// The declared interface of one kernel entry point.
struct KernelAbi {
  std::string entry;
  std::vector<Binding> bindings;
  std::vector<Constant> constants;
  std::array<uint32_t, 3> workgroupSize = {1, 1, 1};
  uint32_t dynamicSharedMemoryBytes = 0;
  /// The subgroup (warp) size the kernel requires; 0 = any. CUDA: 32 only;
  /// Vulkan: set at pipeline creation (requiredSubgroupSize).
  uint32_t subgroupSize = 0;
  /// Every subgroup of a workgroup is full (Vulkan: the pipeline's
  /// REQUIRE_FULL_SUBGROUPS flag); only with |subgroupSize|.
  bool fullSubgroups = false;
  /// SPIR-V specialization constants, by SpecId (Vulkan only).
  std::vector<SpecializationValue> specialization;
  /// The workload items one workgroup covers per dimension: the workgroup
  /// count of a dispatch over workload w is ceildiv(w[d], this[d]). All 0:
  /// not declared (the dispatch's own count, i.e. the export's rule).
  std::array<uint32_t, 3> workloadPerWorkgroup = {0, 0, 0};
  /// CUDA only: the kernel's parameters in its own order, each an ABI slot
  /// (binding i is slot i, constant j is slot bindings.size() + j), so that
  /// `transpose(float *out, const float *in, int w, int h)` fits a dispatch
  /// whose bindings are (in, out). Empty: the bindings, then the constants.
  /// Vulkan binds by binding number and push-constant offset, not order.
  std::vector<uint32_t> parameterOrder;
  /// Vulkan: the constants come in a uniform buffer (a handwritten GLSL
  /// kernel's choice, read from its SPIR-V); absent: one push-constant block
  /// (kb::pushConstantLayout), which generated kernels always use.
  std::optional<UniformConstants> uniformConstants;
};

/// The ABI slot of each kernel parameter, in parameter order: |abi|'s
/// parameterOrder, or 0, 1, ... over the bindings, then the constants.
std::vector<uint32_t> parameterSlots(const KernelAbi &abi);

/// Empty when |abi|'s parameterOrder is empty or names every slot exactly
/// once; else what is wrong ("slot 4 is out of range (2 bindings, 2
/// constants)", "slot 1 is listed twice", "slot 3 is missing").
std::string checkParameterOrder(const KernelAbi &abi);

/// The workgroup count of a dispatch over |workload| (missing dimensions 1)
/// under |abi|'s workloadPerWorkgroup, or std::nullopt when |abi| declares
/// none or a count does not fit 32 bits.
std::optional<std::array<uint32_t, 3>>
workgroupCountFor(const KernelAbi &abi,
                  const std::array<uint64_t, 3> &workload);

/// One slot of a packed parameter block.
struct ParamSlot {
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 0;
  /// The ABI slot it holds: binding i is i, constant j is bindings + j.
  uint32_t slot = 0;
};

/// CUDA kernel-parameter layout, in parameter order (parameterSlots): one
/// 8-byte pointer per binding and each constant as its scalar, each at its
/// natural alignment (what the driver computes from the PTX `.param`
/// list). Without a parameterOrder: the bindings, then the constants.
std::vector<ParamSlot> cudaParamLayout(const KernelAbi &abi);

/// Vulkan push-constant block layout of the constants (natural alignment,
/// offsets from 0). Empty when there are no constants.
std::vector<ParamSlot> pushConstantLayout(const KernelAbi &abi);

/// Total size of the push-constant block in bytes (0 when no constants).
uint32_t pushConstantSize(const KernelAbi &abi);

/// The bytes of |abi|'s uniform block (abi.uniformConstants->size, at
/// least 4) holding the constants of |packed|, a constant block packed per
/// kb::pushConstantLayout (what every dispatch carries): each constant moved
/// to its std140 offset, the rest zero. Empty when |abi| takes no uniform
/// constants or |packed| is not pushConstantSize(abi) bytes, or an offset
/// lies outside the block (the loader refuses such a module before).
std::vector<uint8_t> packUniformConstants(const KernelAbi &abi,
                                          const std::vector<uint8_t> &packed);

/// "uniform buffer at set 0 binding 2 (std140 offsets 0, 4, 8; 12 bytes)"
/// for listings and messages; empty when |abi| takes push constants.
std::string describeUniformConstants(const KernelAbi &abi);

/// "binding 1 (`y`)" / "constant 0 (`n`)" for messages.
std::string describeBinding(const KernelAbi &abi, size_t index);
std::string describeConstant(const KernelAbi &abi, size_t index);
/// describeBinding or describeConstant of ABI slot |slot|.
std::string describeSlot(const KernelAbi &abi, size_t slot);

/// "saxpy(x: f32 readonly, y: f32 readwrite; a: f32, n: u32)": the entry,
/// its bindings, then its constants, for listings and messages.
std::string formatSignature(const KernelAbi &abi);

} // namespace kb

#endif // KB_COMMON_KERNEL_ABI_H_

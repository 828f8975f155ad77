//===- common/kernel_abi.h - The kernel ABI model (docs/kernel-abi.md) ---===//
//
// One ABI for handwritten and generated kernels, shared by toolchains/ (build
// validation), compiler/ (object-substitution checks, codegen) and runtime/
// (launch argument packing, module-loader checks):
//
//  * Bindings: ordered storage buffers with an element type and an access.
//    CUDA: the first kernel parameters, one 64-bit pointer each.
//    Vulkan: descriptor set 0, binding i, storage buffer. A standalone
//    Vulkan kernel's element may be a struct, laid out as its SPIR-V says.
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

/// One member of a struct element of a binding (GLSL `struct Particle {
/// vec2 pos; vec2 vel; }` in `buffer Pos { Particle particles[]; }`): a
/// scalar, a vector, or an array of them. A nested struct is flattened into
/// its members ("inner.mass"), a matrix into its columns (an array of
/// vectors with the MatrixStride as |arrayStride|), so the leaves are all a
/// benchmark fills and compares.
struct StructMember {
  std::string name; // "pos", "inner.mass"; "" when the module names none
  ElementType type = ElementType::F32; // of each component
  uint32_t offset = 0;                 // bytes from the element's start
  uint32_t components = 1;             // vector width: vec4 is 4
  uint32_t count = 1;                  // array length; 1: not an array
  uint32_t arrayStride = 0; // bytes between array entries (count > 1)
  bool operator==(const StructMember &other) const {
    return name == other.name && type == other.type && offset == other.offset &&
           components == other.components && count == other.count &&
           arrayStride == other.arrayStride;
  }
  bool operator!=(const StructMember &other) const { return !(*this == other); }
};

/// The byte layout of a struct element, as its SPIR-V declares it: the
/// array's ArrayStride and each member's Offset decoration. The kernel's
/// own (GLSL std430/std140 rules, explicit offsets), so it is read from the
/// module, never written by hand.
struct StructLayout {
  std::string name;    // the struct's type name ("Particle"), or ""
  uint32_t stride = 0; // bytes per element, padding included
  std::vector<StructMember> members; // in offset order
  bool operator==(const StructLayout &other) const {
    return name == other.name && stride == other.stride &&
           members == other.members;
  }
  bool operator!=(const StructLayout &other) const { return !(*this == other); }
};

struct Binding {
  std::string name; // Optional; used in messages ("binding 1 (`y`)").
  ElementType elementType = ElementType::F32;
  Access access = Access::ReadWrite;
  /// Set when each element is a struct (kernel.toml `type = "struct"`):
  /// the buffer is then bytes (|elementType| U8) holding count x stride of
  /// them. Declared with stride 0 and no members until the layout is read
  /// from the kernel's SPIR-V (setStructLayouts in common/abi_check.h).
  /// Vulkan and standalone kernels only: a program dispatch's bindings are
  /// arrays of scalars.
  std::optional<StructLayout> structLayout;
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

/// GLSL's name of |member|'s type: "float", "vec2", "uint", "ivec4",
/// "float16_t", "f16vec2", ...; an array adds its length ("vec4[3]").
std::string structMemberTypeName(const StructMember &member);

/// "Particle, 32 bytes: pos vec2 at 0, vel vec2 at 8, gradientPos vec4 at
/// 16" for listings and messages.
std::string describeStructLayout(const StructLayout &layout);

/// The bytes of one element of |binding|: its struct's stride, else the
/// size of its element type.
uint32_t elementByteSize(const Binding &binding);

/// Empty when |layout| can be filled and compared member by member: a
/// stride of 1 byte to 1 MiB, and every member's components (1 to 4),
/// count (at least 1, stride between entries no smaller than an entry)
/// and last byte inside the stride; else what is wrong ("member 2
/// (`vel`) ends at byte 40, past the stride of 32 bytes"). A module's
/// layout is untrusted input to the runtime.
std::string checkStructLayout(const StructLayout &layout);

/// "binding 1 (`y`)" / "constant 0 (`n`)" for messages.
std::string describeBinding(const KernelAbi &abi, size_t index);
std::string describeConstant(const KernelAbi &abi, size_t index);
/// describeBinding or describeConstant of ABI slot |slot|.
std::string describeSlot(const KernelAbi &abi, size_t slot);

/// "saxpy(x: f32 readonly, y: f32 readwrite; a: f32, n: u32)": the entry,
/// its bindings (a struct one as "p: struct Particle readwrite"), then its
/// constants, for listings and messages.
std::string formatSignature(const KernelAbi &abi);

} // namespace kb

#endif // KB_COMMON_KERNEL_ABI_H_

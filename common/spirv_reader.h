//===- common/spirv_reader.h - Reflect a SPIR-V compute module -----------===//
//
// A small word parser (no SPIRV-Tools dependency) for what the ABI check and
// the runtime need: entry points and execution models, the workgroup size
// (LocalSize, LocalSizeId and the WorkgroupSize builtin, which overrides
// both), descriptor set/binding of every resource with its storage class and
// NonWritable, the element type of every storage buffer's array (the
// byte layout of a struct element), the
// members of the push-constant block and of each uniform block (offsets,
// sizes, scalar types), and the static workgroup
// (shared) memory the module declares, and its specialization constants.
// Input is untrusted: bounds are checked on every word.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SPIRV_READER_H_
#define KB_COMMON_SPIRV_READER_H_

#include "common/kernel_abi.h"
#include "common/status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

struct SpirvEntryPoint {
  std::string name;
  uint32_t executionModel = 0; // 5 = GLCompute
  uint32_t id = 0;
  /// Resolved workgroup size. A dimension that is a specialization constant
  /// holds its default value and its SpecId in |specIds|.
  std::optional<std::array<uint32_t, 3>> workgroupSize;
  std::array<std::optional<uint32_t>, 3> specIds;
  /// Which encoding gave the size: "LocalSize", "LocalSizeId",
  /// "WorkgroupSize builtin".
  std::string workgroupSizeSource;
};

/// The members of a block (a push-constant or uniform block) as the SPIR-V
/// lays them out: Offset decorations, sizes, scalar types.
struct SpirvBlockLayout {
  uint32_t size = 0; // bytes: last member offset + its size
  std::vector<uint32_t> memberOffsets;
  std::vector<uint32_t> memberSizes;
  /// Scalar members as "i32", "u32", "f32", "i64", "u64", "f64" (also 8- and
  /// 16-bit widths: "i16", "f16", ...); "" for vectors, arrays and structs.
  std::vector<std::string> memberTypes;
  /// What each non-scalar member is, for messages: "a vector", "a matrix",
  /// "an array", "a struct", "another type"; "" for scalars.
  std::vector<std::string> memberShapes;
  /// OpMemberName of each member ("" when the module carries none).
  std::vector<std::string> memberNames;
  /// The members flattened as a struct element's are (StructLayout's
  /// members: nested structs as "inner.mass", arrays with their stride),
  /// offsets from the block's start: what a block with array or struct
  /// members holds. Empty, with |leavesError| saying why, when a member
  /// has no such layout.
  std::vector<StructMember> leaves;
  std::string leavesError;
};

struct SpirvResource {
  enum class Kind { StorageBuffer, UniformBuffer, Image, Sampler, Other };
  uint32_t set = 0;
  uint32_t binding = 0;
  Kind kind = Kind::Other;
  /// NonWritable on the variable or on every member of its block.
  bool nonWritable = false;
  /// NonReadable likewise (GLSL `writeonly buffer`).
  bool nonReadable = false;
  std::string name; // OpName of the variable, when present
  /// The block's type name (GLSL `buffer X { ... }`: "X") and the name of
  /// its last member (`float x[]`: "x"), when present: GLSL leaves the
  /// variable of a block without an instance name unnamed.
  std::string blockName;
  std::string lastMemberName;
  /// Storage buffers whose block ends in an array (`float data[]`): the
  /// array's scalar type ("f32", "i32", "u16", ...; the component type for
  /// an array of vectors) and its vector size (1 for scalars, 4 for vec4).
  /// Empty for anything else (arrays of structs, blocks of scalars).
  std::string elementType;
  uint32_t elementVectorSize = 0;
  /// Storage buffers whose block ends in an array of structs (`Particle
  /// particles[]`): the struct's layout (the array's ArrayStride, each
  /// member's Offset, nested structs and matrices flattened). When it
  /// cannot be laid out (no ArrayStride, a member without an Offset, a
  /// bool or pointer member, a runtime array inside), |elementStruct| is
  /// empty and |elementStructError| says why; the module stays readable.
  std::optional<StructLayout> elementStruct;
  std::string elementStructError;
  /// A uniform buffer that is one block (not an array of blocks): its
  /// members (std140 offsets from the Offset decorations). What a kernel
  /// that takes its constants from a uniform buffer declares them in.
  std::optional<SpirvBlockLayout> uniformBlock;
};

/// A scalar specialization constant (OpSpecConstant, OpSpecConstantTrue/
/// False) with a SpecId: what kernel.toml's [specialization] may set.
struct SpirvSpecConstant {
  uint32_t specId = 0;
  std::string name; // OpName, when present (glslc names `constant_id` ones)
  /// "i32", "u32", "f32", "i64", "u64", "f64", "bool"; other widths as
  /// "i16", "f16", ... (which [specialization] refuses).
  std::string type;
  uint64_t defaultBits = 0; // the default value's bits (bool: 0 or 1)
};

struct SpirvModule {
  uint32_t version = 0; // 0x00010500 for SPIR-V 1.5
  std::vector<SpirvEntryPoint> entryPoints;
  std::vector<SpirvResource> resources;
  std::optional<SpirvBlockLayout> pushConstants;
  /// Bytes of every Workgroup-storage variable of the module (GLSL
  /// `shared`), laid out at natural alignment; array lengths that are
  /// specialization constants count at their default. What one workgroup of
  /// the module's (single, for GLSL) entry point needs, checked at load
  /// against maxComputeSharedMemorySize.
  uint64_t workgroupMemoryBytes = 0;
  /// Scalar specialization constants with a SpecId, in SpecId order.
  std::vector<SpirvSpecConstant> specConstants;
  /// The OpCapability operands, in module order (61..68 are the
  /// GroupNonUniform* subgroup capabilities).
  std::vector<uint32_t> capabilities;
  /// Whether a function reads a runtime array's length (GLSL `x.length()`,
  /// OpArrayLength), which the bound range gives: a guard band in that range
  /// would change what the kernel computes.
  bool usesArrayLength = false;

  const SpirvEntryPoint *findEntryPoint(std::string_view name) const;
};

/// Reflects |words|. Errors say which word/instruction was malformed.
StatusOr<SpirvModule> readSpirv(const uint32_t *words, size_t count);
/// Same, from raw bytes (little-endian words; size must be a multiple of 4).
StatusOr<SpirvModule> readSpirvBytes(std::string_view bytes);

} // namespace kb

#endif // KB_COMMON_SPIRV_READER_H_

//===- common/spirv_block_flattening.h - Blocks matched scalar by scalar --===//
//
// A push-constant block of scalars is matched to a kernel's constants member
// by member; one with an array, vector or struct member is matched through
// its flattened scalars (SpirvBlockLayout::leaves), by name. The ABI check
// and `kernel-bench import` must agree on which, so both ask this.
// (Kept out of spirv_reader.h, which the compiler's translation units
// include: a declaration here costs them no rebuild.)
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SPIRV_BLOCK_FLATTENING_H
#define KB_COMMON_SPIRV_BLOCK_FLATTENING_H

namespace kb {

struct SpirvBlockLayout;

/// Whether a member of |block| is an array, a vector or a struct.
bool flattensToScalars(const SpirvBlockLayout &block);

} // namespace kb

#endif // KB_COMMON_SPIRV_BLOCK_FLATTENING_H

//===- runtime/module/inputs.h - Seeded buffer initialisation -------------===//
//
// The contents a BufferDecl's InitSpec describes, bit-for-bit reproducible
// across machines and standard libraries: draws come from SplitMix64 seeded
// with InitSpec.seed, uniform doubles take the top 53 bits, normals use the
// Box-Muller transform (no std::*_distribution, whose output differs between
// libstdc++ and libc++). Values are then written with writeElement.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_INPUTS_H_
#define KB_RUNTIME_MODULE_INPUTS_H_

#include "runtime/module/module.h"

#include <cstdint>
#include <vector>

namespace kb::module {

/// The initial bytes of |buffer| (byteSize() of them). A buffer of struct
/// elements (structLayout) is drawn member by member, each component as its
/// member's type under the buffer's InitSpec, padding left zero.
std::vector<uint8_t> generateContents(const BufferDecl &buffer);

/// Special values the correctness check puts into the float inputs, on top
/// of their seeded draw: Large multiplies every element by
/// largeInputFactor (a kernel must not overflow or lose precision where the
/// reference does not); Nan and Inf set every 16th element (from element 3)
/// to NaN, or to +inf and -inf in turn, which a kernel that declares it
/// propagates as its reference does.
enum class SpecialValues { None, Large, Nan, Inf };
const char *toString(SpecialValues special);

/// The factor of SpecialValues::Large for |type|: 2^20, or 2^4 for f16
/// (whose largest value is 65504).
double largeInputFactor(ElementType type);

/// Applies |special| to |bytes|, the contents of a buffer of |type|;
/// nothing for an integer type or None.
void applySpecialValues(ElementType type, SpecialValues special,
                        std::vector<uint8_t> &bytes);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_INPUTS_H_

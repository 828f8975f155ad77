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

/// The initial bytes of |buffer| (byteSize() of them).
std::vector<uint8_t> generateContents(const BufferDecl &buffer);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_INPUTS_H_

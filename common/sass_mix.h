//===- common/sass_mix.h - The instruction mix of SASS disassembly --------===//
//
// What the GPU runs, where the CUDA toolkit's disassemblers are installed:
// `nvdisasm` and `cuobjdump -sass` print one instruction per line as
// `/*0080*/  @P0 LDG.E.128 R4, desc[UR4][R2.64] ;`. This counts the
// opcodes (with their modifiers, `LDG.E.128`) of such text. Static counts.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SASS_MIX_H_
#define KB_COMMON_SASS_MIX_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kb {

struct SassInstructionMix {
  uint64_t instructions = 0;
  std::map<std::string, uint64_t> opcodes; // "LDG.E.128", "FFMA", "BRA"
};

/// Counts the instructions of nvdisasm or cuobjdump -sass output. Lines
/// without a `/*offset*/` and a `;` are not instructions.
SassInstructionMix countSassInstructions(std::string_view disassembly);

} // namespace kb

#endif // KB_COMMON_SASS_MIX_H_

//===- common/ptx_mix.h - The instruction mix of a PTX module -------------===//
//
// What `kernel-bench inspect` shows of a CUDA variant without any tool: the
// static count of each PTX instruction in the module's bodies, and the
// classes a kernel author compares first — global loads and stores by
// width (`ld.global.v4.f32` moves four floats per instruction,
// `ld.global.f32` one), shared-memory operations, FMAs, tensor-core
// operations, branches and barriers. Static counts: an instruction in a loop
// counts once. Input is untrusted text; anything that is not an instruction
// (directives, labels, declarations) is skipped by its shape.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_PTX_MIX_H_
#define KB_COMMON_PTX_MIX_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kb {

struct PtxInstructionMix {
  uint64_t instructions = 0;
  /// Every opcode as written, qualifiers included ("ld.global.nc.v4.f32").
  std::map<std::string, uint64_t> opcodes;
  /// Global-memory accesses by width: the opcode without cache, scope and
  /// ordering qualifiers, so `ld.global.nc.v4.f32` and `ld.global.v4.f32`
  /// are one "ld.global.v4.f32".
  std::map<std::string, uint64_t> globalLoads;
  std::map<std::string, uint64_t> globalStores;
  uint64_t sharedOps = 0; // ld/st/atom/red on .shared, cp.async
  uint64_t fma = 0;       // fma.*, mad.f* (floating point only)
  uint64_t tensorOps = 0; // mma, wmma.mma, wgmma.mma_async
  uint64_t branches = 0;  // bra, brx
  uint64_t barriers = 0;  // bar.*, barrier.*
};

/// Counts the instructions of |ptxText|. Never fails: text that is not PTX
/// gives few or no instructions.
PtxInstructionMix countPtxInstructions(std::string_view ptxText);

/// The elements one access of |normalizedAccess| moves ("ld.global.v4.f32"
/// -> 4, "ld.global.f32" -> 1).
uint32_t ptxVectorWidth(std::string_view normalizedAccess);

} // namespace kb

#endif // KB_COMMON_PTX_MIX_H_

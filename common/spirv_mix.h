//===- common/spirv_mix.h - The instruction mix of a SPIR-V module --------===//
//
// What `kernel-bench inspect` shows of a Vulkan variant: the static count of
// each instruction inside the module's functions, and the classes a kernel
// author compares first — storage-buffer loads and stores by the type they
// move (`vec4<f32>` is one 16-byte access, `f32` one 4-byte access),
// workgroup (shared) memory operations, FMAs (GLSL.std.450 Fma),
// cooperative-matrix multiply-adds, branches and barriers. The reflection
// the ABI check needs is spirv_reader.h's; this reads the same words for
// counting only. Input is untrusted: bounds are checked on every word.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SPIRV_MIX_H_
#define KB_COMMON_SPIRV_MIX_H_

#include "common/status.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kb {

struct SpirvInstructionMix {
  /// Instructions between OpFunction and OpFunctionEnd.
  uint64_t instructions = 0;
  /// Those instructions by name ("OpFMul"; "Op<N>" for opcodes outside the
  /// table of common compute instructions).
  std::map<std::string, uint64_t> opcodes;
  /// Storage-buffer accesses by the type moved: "OpLoad StorageBuffer
  /// vec4<f32>", "OpStore StorageBuffer f32".
  std::map<std::string, uint64_t> bufferLoads;
  std::map<std::string, uint64_t> bufferStores;
  uint64_t workgroupOps = 0; // loads, stores and atomics on Workgroup memory
  uint64_t fma = 0;          // GLSL.std.450 Fma
  uint64_t matrixOps = 0;    // OpCooperativeMatrixMulAdd{KHR,NV}
  uint64_t branches = 0;     // OpBranch, OpBranchConditional, OpSwitch
  uint64_t barriers = 0;     // OpControlBarrier, OpMemoryBarrier
};

/// Counts the instructions of the SPIR-V module in |bytes| (little-endian
/// words). InvalidArgument naming the word when it is not SPIR-V or an
/// instruction runs past the end.
StatusOr<SpirvInstructionMix> countSpirvInstructions(std::string_view bytes);

/// The elements one access of |bufferAccess| moves ("OpLoad StorageBuffer
/// vec4<f32>" -> 4, "... f32" -> 1).
uint32_t spirvVectorWidth(std::string_view bufferAccess);

} // namespace kb

#endif // KB_COMMON_SPIRV_MIX_H_

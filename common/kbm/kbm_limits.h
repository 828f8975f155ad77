//===- common/kbm/kbm_limits.h - What one .kbm module can hold ------------===//
//
// A .kbm module is one FlatBuffers buffer, read through the FlatBuffers
// verifier (runtime/module/module.cpp). Both bound what a module can hold:
// the buffer's offsets are signed 32-bit (FLATBUFFERS_MAX_BUFFER_SIZE, just
// under 2 GiB) and the verifier refuses more than a million tables. The
// compiler refuses a program past either before it writes it
// (kb/Serialization/KbmWriter.h: checkKbmLimits), naming the limit, and the
// reader verifies with the same figures.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_KBM_KBM_LIMITS_H_
#define KB_COMMON_KBM_KBM_LIMITS_H_

#include <cstdint>

namespace kb::kbm {

/// FLATBUFFERS_MAX_BUFFER_SIZE: 2^31 - 1 bytes.
inline constexpr uint64_t kMaxModuleBytes = (uint64_t(1) << 31) - 1;
/// The FlatBuffers verifier's table limit (its default, passed explicitly).
inline constexpr uint32_t kMaxModuleTables = 1000000;
/// The verifier's nesting limit (its default; a module nests a few levels).
inline constexpr uint32_t kMaxModuleDepth = 64;

} // namespace kb::kbm

#endif // KB_COMMON_KBM_KBM_LIMITS_H_

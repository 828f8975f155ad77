//===- common/byte_size.h - Sizes in bytes, as people write them ----------===//
//
// One spelling for memory sizes in flags and TOML (`--tool-memory 4GiB`,
// `tool_memory = "512MiB"`) and in messages: an integer with an optional
// binary unit.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_BYTE_SIZE_H_
#define KB_COMMON_BYTE_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kb {

/// `4096`, `64KiB`, `512MiB`, `4GiB`, `1TiB` (also `K`, `M`, `G`, `T`);
/// nullopt for anything else or a size past 2^64.
std::optional<uint64_t> parseByteSize(std::string_view text);

/// What parseByteSize accepts, for "expected ..." messages.
const char *byteSizeSyntax();

/// `512 MiB`, `4 GiB`, `1.5 GiB`, `100 bytes`.
std::string formatByteSize(uint64_t bytes);

} // namespace kb

#endif // KB_COMMON_BYTE_SIZE_H_

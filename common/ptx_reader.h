//===- common/ptx_reader.h - Read PTX `.entry` signatures ----------------===//
//
// A line-oriented reader for the parts of PTX the ABI check needs: the module
// header (.version/.target/.address_size) and every `.entry` with its `.param`
// list and the `.maxntid` / `.reqntid` directives. Not a PTX parser: bodies
// are skipped. Input is untrusted; malformed headers are errors, never
// crashes.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_PTX_READER_H_
#define KB_COMMON_PTX_READER_H_

#include "common/status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

struct PtxParam {
  std::string name;   // saxpy_param_0
  std::string type;   // "u64", "f32", "b8", ...
  uint32_t size = 0;  // bytes (element size x array length)
  uint32_t align = 0; // explicit .align, else the element size
  bool isArray = false;
};

struct PtxEntry {
  std::string name;
  bool visible = false;
  std::vector<PtxParam> params;
  std::optional<std::array<uint32_t, 3>> maxntid;
  std::optional<std::array<uint32_t, 3>> reqntid;
  int line = 0; // 1-based line of the `.entry` keyword
};

struct PtxModule {
  std::string version; // "9.0"
  std::string target;  // "sm_90"
  uint32_t addressSize = 0;
  std::vector<PtxEntry> entries;

  const PtxEntry *findEntry(std::string_view name) const;
};

/// Reads |text|. Errors name the line and what was expected.
StatusOr<PtxModule> readPtx(std::string_view text);

} // namespace kb

#endif // KB_COMMON_PTX_READER_H_

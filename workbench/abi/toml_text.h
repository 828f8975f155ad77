//===- workbench/abi/toml_text.h - TOML values as text --------------------===//
//
// What the kernel.toml writers (new-kernel's scaffold, import) need to spell
// strings and lists: a TOML basic string escapes quotes, backslashes and
// control characters, so any path or name round-trips through the reader.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_ABI_TOML_TEXT_H_
#define KB_WORKBENCH_ABI_TOML_TEXT_H_

#include <cstdio>
#include <string>
#include <vector>

namespace kb::workbench {

/// |text| as a TOML basic string.
inline std::string tomlString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

inline std::string tomlList(const std::vector<std::string> &items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ", " : "") + tomlString(items[i]);
  return text + "]";
}

} // namespace kb::workbench

#endif // KB_WORKBENCH_ABI_TOML_TEXT_H_

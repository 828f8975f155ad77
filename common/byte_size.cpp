//===- common/byte_size.cpp - Sizes in bytes, as people write them --------===//
#include "common/byte_size.h"

#include <charconv>
#include <cstdio>

namespace kb {

namespace {

struct Unit {
  const char *names[2];
  int shift;
};
constexpr Unit kUnits[] = {{{"KiB", "K"}, 10},
                           {{"MiB", "M"}, 20},
                           {{"GiB", "G"}, 30},
                           {{"TiB", "T"}, 40}};

} // namespace

std::optional<uint64_t> parseByteSize(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data())
    return std::nullopt;
  std::string_view unit(end,
                        static_cast<size_t>(text.data() + text.size() - end));
  if (unit.empty())
    return value;
  for (const Unit &u : kUnits)
    for (const char *name : u.names)
      if (unit == name) {
        if (value > (UINT64_MAX >> u.shift))
          return std::nullopt;
        return value << u.shift;
      }
  return std::nullopt;
}

const char *byteSizeSyntax() {
  return "a size in bytes, with an optional unit KiB, MiB, GiB or TiB (e.g. "
         "\"512MiB\", \"4GiB\")";
}

std::string formatByteSize(uint64_t bytes) {
  for (int i = 3; i >= 0; --i) {
    const Unit &u = kUnits[i];
    if (bytes >= (uint64_t(1) << u.shift)) {
      double value = double(bytes) / double(uint64_t(1) << u.shift);
      char text[48];
      std::snprintf(text, sizeof text,
                    value == double(uint64_t(value)) ? "%.0f %s" : "%.1f %s",
                    value, u.names[0]);
      return text;
    }
  }
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

} // namespace kb

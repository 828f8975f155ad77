//===- common/terminal_text.cpp - Text from elsewhere, safe to print ------===//
#include "common/terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace kb {

namespace {

std::string hexByte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02X", byte);
  return text;
}

std::string codePointText(uint32_t cp) {
  char text[16];
  std::snprintf(text, sizeof text, "\\u{%04X}", unsigned(cp));
  return text;
}

bool isBidiControl(uint32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string escape(std::string_view text, bool keepLines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t length = decodeUtf8(text, i, cp);
    if (length == 0) {
      out += hexByte(static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if ((cp == '\n' || cp == '\t') && keepLines)
      out += char(cp);
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\t')
      out += "\\t";
    else if (cp < 0x20 || cp == 0x7F)
      out += hexByte(static_cast<unsigned char>(cp));
    else if ((cp >= 0x80 && cp <= 0x9F) || isBidiControl(cp))
      out += codePointText(cp);
    else
      out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

} // namespace

size_t decodeUtf8(std::string_view text, size_t i, uint32_t &cp) {
  unsigned char lead = static_cast<unsigned char>(text[i]);
  size_t length = lead < 0x80       ? 1
                  : lead >> 5 == 6  ? 2
                  : lead >> 4 == 14 ? 3
                  : lead >> 3 == 30 ? 4
                                    : 0;
  if (length == 0 || i + length > text.size())
    return 0;
  cp = length == 1 ? lead : lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    unsigned char c = static_cast<unsigned char>(text[i + k]);
    if (c >> 6 != 2)
      return 0;
    cp = cp << 6 | (c & 0x3F);
  }
  static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return length;
}

std::string terminalText(std::string_view text) { return escape(text, true); }

std::string terminalLine(std::string_view text) { return escape(text, false); }

} // namespace kb

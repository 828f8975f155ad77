//===- common/terminal_text.h - Text from elsewhere, safe to print --------===//
//
// Kernel names, tool output (an nvcc `#error` line), device names and the
// reasons in a report are not ours: an ESC or OSC sequence in them would
// recolour, retitle or rewrite the user's terminal, a CR would overwrite
// the line before it, and a bidirectional override would reorder what is
// shown. Everything not ours passes through terminalText() before it is
// printed; our own colour codes are added afterwards.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_TERMINAL_TEXT_H_
#define KB_COMMON_TERMINAL_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kb {

/// |text| with every control character shown instead of obeyed: C0 controls
/// (but newline and tab), DEL and C1 controls as `\xNN` / `\u{NNNN}`, bytes
/// that are not UTF-8 as `\xNN`, and the Unicode bidirectional controls
/// (U+202A..U+202E, U+2066..U+2069) as `\u{NNNN}`. Printable text, UTF-8
/// included, is unchanged.
std::string terminalText(std::string_view text);

/// The same on one line: newlines and tabs are shown as `\n` and `\t` too.
std::string terminalLine(std::string_view text);

/// The length of the well-formed UTF-8 sequence at |text[i]| (1 to 4) with
/// its code point in |codePoint|, or 0 when the bytes there are not one
/// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
/// The one UTF-8 decoder of the writers that must emit valid text (the
/// terminal here, junit.xml).
size_t decodeUtf8(std::string_view text, size_t i, uint32_t &codePoint);

} // namespace kb

#endif // KB_COMMON_TERMINAL_TEXT_H_

//===- common/sass_mix.cpp - The instruction mix of SASS disassembly ------===//
#include "common/sass_mix.h"

#include <cctype>

namespace kb {
namespace {

std::string_view skipSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  return s;
}

/// The opcode of one disassembly line, or empty when it holds none: after
/// the `/*hex*/` offset, past an optional `@P0`/`@!PT` guard, up to a
/// space or the `;`.
std::string_view opcodeOf(std::string_view line) {
  if (line.find(';') == std::string_view::npos)
    return {};
  size_t open = line.find("/*");
  size_t close = open == std::string_view::npos ? open : line.find("*/", open);
  if (close == std::string_view::npos)
    return {};
  for (size_t i = open + 2; i < close; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(line[i])))
      return {};
  std::string_view rest = skipSpaces(line.substr(close + 2));
  if (!rest.empty() && rest.front() == '@') {
    size_t end = rest.find_first_of(" \t");
    rest = skipSpaces(
        rest.substr(end == std::string_view::npos ? rest.size() : end));
  }
  size_t end = 0;
  while (end < rest.size() &&
         !std::isspace(static_cast<unsigned char>(rest[end])) &&
         rest[end] != ';')
    ++end;
  std::string_view opcode = rest.substr(0, end);
  if (opcode.empty() || !std::isupper(static_cast<unsigned char>(opcode[0])))
    return {};
  return opcode;
}

} // namespace

SassInstructionMix countSassInstructions(std::string_view disassembly) {
  SassInstructionMix mix;
  size_t start = 0;
  while (start < disassembly.size()) {
    size_t end = disassembly.find('\n', start);
    if (end == std::string_view::npos)
      end = disassembly.size();
    std::string_view opcode = opcodeOf(disassembly.substr(start, end - start));
    start = end + 1;
    if (opcode.empty())
      continue;
    ++mix.instructions;
    ++mix.opcodes[std::string(opcode)];
  }
  return mix;
}

} // namespace kb

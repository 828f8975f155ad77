//===- common/ptx_mix.cpp - The instruction mix of a PTX module -----------===//
//
// Statements are what lies between `;`s once comments are gone and the
// braces that open and close bodies and scopes (always at the start of a
// line in nvcc's and LLVM's output) are dropped; vector operands such as
// `{%f1, %f2}` stay inside their statement. A statement that starts with
// `.` is a directive or declaration, one that starts with `name:` carries a
// label, one that starts with `@%p` a predicate.
//
//===----------------------------------------------------------------------===//
#include "common/ptx_mix.h"

#include <cctype>
#include <vector>

namespace kb {
namespace {

/// |text| without `//` and `/* */` comments; newlines are kept.
std::string stripComments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n')
        ++i;
      if (i < text.size())
        out.push_back('\n');
    } else if (text.compare(i, 2, "/*") == 0) {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      out.push_back(' ');
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

/// |text| with the braces at the start of each line turned into statement
/// ends, so that a body's first instruction is not glued to its header.
std::string splitScopes(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '{' || c == '}')) {
      out.push_back(';');
      continue;
    }
    if (c == '\n')
      lineStart = true;
    else if (!std::isspace(static_cast<unsigned char>(c)))
      lineStart = false;
    out.push_back(c);
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// The first whitespace-separated word of |s| and what follows it.
std::string_view firstWord(std::string_view s, std::string_view *rest) {
  size_t end = 0;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])))
    ++end;
  *rest = trim(s.substr(end));
  return s.substr(0, end);
}

/// The opcode of |statement|, or empty when it is no instruction.
std::string_view opcodeOf(std::string_view statement) {
  std::string_view rest = trim(statement), word;
  while (!rest.empty()) {
    word = firstWord(rest, &rest);
    bool label = word.size() > 1 && word.back() == ':' &&
                 word.find("::") == std::string_view::npos;
    if (word.front() == '@' || label)
      continue; // a predicate guard or a label before the instruction
    break;
  }
  if (word.empty() || !std::islower(static_cast<unsigned char>(word.front())))
    return {};
  return word;
}

std::vector<std::string_view> splitDots(std::string_view opcode) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t dot; (dot = opcode.find('.', start)) != std::string_view::npos;
       start = dot + 1)
    parts.push_back(opcode.substr(start, dot - start));
  parts.push_back(opcode.substr(start));
  return parts;
}

bool isVectorQualifier(std::string_view q) {
  return q == "v2" || q == "v4" || q == "v8";
}

/// `ld.global.nc.L1::no_allocate.v4.f32` -> `ld.global.v4.f32`; empty when
/// |opcode| is no plain global load or store.
std::string normalizedGlobalAccess(std::string_view opcode) {
  std::vector<std::string_view> parts = splitDots(opcode);
  if (parts.size() < 3 || (parts[0] != "ld" && parts[0] != "st"))
    return {};
  bool global = false;
  std::string vector;
  for (std::string_view q : parts) {
    global = global || q == "global";
    if (isVectorQualifier(q))
      vector = "." + std::string(q);
  }
  if (!global)
    return {};
  return std::string(parts[0]) + ".global" + vector + "." +
         std::string(parts.back());
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

void classify(std::string_view opcode, PtxInstructionMix &mix) {
  std::string access = normalizedGlobalAccess(opcode);
  if (!access.empty())
    ++(opcode.front() == 'l' ? mix.globalLoads : mix.globalStores)[access];
  std::vector<std::string_view> parts = splitDots(opcode);
  std::string_view op = parts[0];
  bool shared = false;
  for (std::string_view q : parts)
    shared = shared || startsWith(q, "shared");
  if ((shared && (op == "ld" || op == "st" || op == "atom" || op == "red")) ||
      startsWith(opcode, "cp.async"))
    ++mix.sharedOps;
  // Floating-point multiply-adds only: mad.lo.s32 and mad.wide.u32 are the
  // address arithmetic of nearly every kernel, not its math.
  std::string_view type = parts.back();
  if ((op == "fma" || op == "mad") &&
      (startsWith(type, "f") || startsWith(type, "bf")))
    ++mix.fma;
  if (op == "mma" || startsWith(opcode, "wmma.mma") ||
      startsWith(opcode, "wgmma.mma_async"))
    ++mix.tensorOps;
  if (op == "bra" || op == "brx")
    ++mix.branches;
  if (op == "bar" || op == "barrier")
    ++mix.barriers;
}

} // namespace

PtxInstructionMix countPtxInstructions(std::string_view ptxText) {
  PtxInstructionMix mix;
  std::string text = splitScopes(stripComments(ptxText));
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos)
      end = text.size();
    std::string_view opcode =
        opcodeOf(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (opcode.empty())
      continue;
    ++mix.instructions;
    ++mix.opcodes[std::string(opcode)];
    classify(opcode, mix);
  }
  return mix;
}

uint32_t ptxVectorWidth(std::string_view normalizedAccess) {
  for (std::string_view q : splitDots(normalizedAccess))
    if (isVectorQualifier(q))
      return static_cast<uint32_t>(q[1] - '0');
  return 1;
}

} // namespace kb

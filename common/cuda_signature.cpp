//===- common/cuda_signature.cpp - A CUDA kernel's parameters -------------===//
#include "common/cuda_signature.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>

namespace kb {

namespace {

std::string trim(std::string_view text) {
  size_t b = text.find_first_not_of(' ');
  size_t e = text.find_last_not_of(' ');
  return b == std::string_view::npos ? std::string()
                                     : std::string(text.substr(b, e - b + 1));
}

/// |text| split at commas outside <>, () and [].
std::vector<std::string> splitTopLevel(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<' || c == '(' || c == '[')
      ++depth;
    else if (c == '>' || c == ')' || c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = trim(text.substr(start));
  if (!last.empty())
    parts.push_back(last);
  return parts;
}

/// The ABI scalar of a demangled type name, with CUDA's vector types
/// (float4, uint2, __half2, ...) as their components.
std::string abiScalar(const std::string &name, unsigned &width) {
  static const std::map<std::string, std::string> scalars = {
      {"float", "f32"},
      {"double", "f64"},
      {"__half", "f16"},
      {"half", "f16"},
      {"__nv_bfloat16", "bf16"},
      {"nv_bfloat16", "bf16"},
      {"signed char", "i8"},
      {"char", "i8"},
      {"unsigned char", "u8"},
      {"short", "i16"},
      {"unsigned short", "u16"},
      {"int", "i32"},
      {"unsigned int", "u32"},
      {"long", "i64"},
      {"unsigned long", "u64"},
      {"long long", "i64"},
      {"unsigned long long", "u64"}};
  static const std::map<std::string, std::string> vectors = {
      {"float", "f32"},     {"double", "f64"}, {"int", "i32"},
      {"uint", "u32"},      {"char", "i8"},    {"uchar", "u8"},
      {"short", "i16"},     {"ushort", "u16"}, {"longlong", "i64"},
      {"ulonglong", "u64"}, {"__half", "f16"}, {"__nv_bfloat16", "bf16"}};
  width = 1;
  if (auto it = scalars.find(name); it != scalars.end())
    return it->second;
  char last = name.empty() ? '\0' : name.back();
  if (last >= '2' && last <= '4') {
    auto it = vectors.find(name.substr(0, name.size() - 1));
    if (it != vectors.end()) {
      width = static_cast<unsigned>(last - '0');
      return it->second;
    }
  }
  return "";
}

CudaParameter parseParameter(const std::string &spelled) {
  CudaParameter p;
  p.spelled = spelled;
  std::string base = spelled;
  // Top-level qualifiers of a parameter are not part of the mangled type;
  // a pointer's `__restrict` may still appear.
  for (const char *suffix : {" __restrict", " restrict"})
    if (base.size() > std::string(suffix).size() &&
        base.compare(base.size() - std::string(suffix).size(),
                     std::string::npos, suffix) == 0)
      base.resize(base.size() - std::string(suffix).size());
  if (!base.empty() && base.back() == '*') {
    p.pointer = true;
    base = trim(std::string_view(base).substr(0, base.size() - 1));
    if (!base.empty() && base.back() == '*')
      return p; // a pointer to a pointer: none of the ABI's
  }
  // `T const volatile` and `T volatile const` both: const is tried again
  // after volatile.
  for (const char *qualifier : {" const", " volatile", " const"}) {
    std::string q = qualifier;
    if (base.size() > q.size() &&
        base.compare(base.size() - q.size(), std::string::npos, q) == 0) {
      if (q == " const")
        p.pointeeConst = p.pointer;
      base.resize(base.size() - q.size());
    }
  }
  p.type = abiScalar(base, p.vectorWidth);
  return p;
}

/// "void ns::k<3, 4>" -> "ns::k<3, 4>": the text after the last space
/// outside template brackets (a function template's name spells its return
/// type; a plain function's does not).
std::string withoutReturnType(const std::string &head) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<')
      ++depth;
    else if (head[i] == '>' && depth > 0)
      --depth;
    else if (head[i] == ' ' && depth == 0)
      start = i + 1;
  }
  return head.substr(start);
}

/// |text| without spaces and without the u/l suffixes of integer literals.
std::string canonicalInstance(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c)))
      continue;
    bool suffix = (c == 'u' || c == 'l' || c == 'U' || c == 'L') &&
                  !out.empty() &&
                  std::isdigit(static_cast<unsigned char>(out.back()));
    // Only a literal's suffix: `1u` inside an identifier (`k1u`) stays.
    size_t start = out.find_last_not_of("0123456789");
    bool literal = start == std::string::npos || out[start] == '<' ||
                   out[start] == ',' || out[start] == '-' || out[start] == '(';
    if (suffix && literal)
      continue;
    out += c;
  }
  return out;
}

} // namespace

bool sameTemplateInstance(std::string_view written, std::string_view instance) {
  return canonicalInstance(written) == canonicalInstance(instance);
}

bool isMangledName(std::string_view name) {
  return name.size() > 2 && name.substr(0, 2) == "_Z";
}

StatusOr<CudaSignature> demangleCudaKernel(std::string_view mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> text(
      abi::__cxa_demangle(std::string(mangled).c_str(), nullptr, nullptr,
                          &status),
      std::free);
  if (status != 0 || !text)
    return invalidArgument("`" + std::string(mangled) +
                           "` is not a mangled C++ function name");
  CudaSignature sig;
  sig.demangled = text.get();
  // The parameter list is the last top-level parenthesis.
  const std::string &d = sig.demangled;
  size_t close = d.rfind(')');
  int depth = 0;
  size_t open = std::string::npos;
  for (size_t i = close; close != std::string::npos && i-- > 0;) {
    if (d[i] == ')')
      ++depth;
    else if (d[i] == '(' && depth-- == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos)
    return invalidArgument("`" + sig.demangled + "` (from `" +
                           std::string(mangled) + "`) has no parameter list");
  std::string head = d.substr(0, open);
  sig.instance = withoutReturnType(head);
  if (size_t lt = head.find('<'); lt != std::string::npos)
    head.resize(lt);
  size_t space = head.rfind(' ');
  sig.function = space == std::string::npos ? head : head.substr(space + 1);
  if (size_t scope = sig.function.rfind("::"); scope != std::string::npos)
    sig.function = sig.function.substr(scope + 2);
  std::string list = d.substr(open + 1, close - open - 1);
  if (list != "void")
    for (const std::string &param : splitTopLevel(list))
      sig.parameters.push_back(parseParameter(param));
  return sig;
}

std::vector<std::string> cudaSourceParameterNames(std::string_view text,
                                                  const std::string &function,
                                                  size_t count) {
  for (size_t pos = text.find(function); pos != std::string::npos;
       pos = text.find(function, pos + 1)) {
    bool boundary =
        pos == 0 || !(std::isalnum(static_cast<unsigned char>(text[pos - 1])) ||
                      text[pos - 1] == '_');
    size_t open = text.find_first_not_of(" \t\r\n", pos + function.size());
    if (!boundary || open == std::string::npos || text[open] != '(')
      continue;
    if (text.rfind("__global__", pos) == std::string::npos)
      continue;
    std::vector<std::string> names;
    std::string current;
    int depth = 0;
    for (size_t i = open + 1; i < text.size(); ++i) {
      char c = text[i];
      if (c == '(' || c == '<' || c == '[')
        ++depth;
      else if ((c == ')' || c == '>' || c == ']') && depth > 0)
        --depth;
      else if ((c == ',' || c == ')') && depth == 0) {
        size_t end = current.find('=');
        std::string decl = current.substr(0, end);
        size_t last = decl.find_last_not_of(" \t\r\n");
        size_t first = last;
        while (first != std::string::npos && first > 0 &&
               (std::isalnum(static_cast<unsigned char>(decl[first - 1])) ||
                decl[first - 1] == '_'))
          --first;
        names.push_back(last == std::string::npos
                            ? ""
                            : decl.substr(first, last - first + 1));
        current.clear();
        if (c == ')')
          break;
        continue;
      }
      current += c;
    }
    if (names.size() == count &&
        std::all_of(names.begin(), names.end(), [](const std::string &n) {
          return !n.empty() && !std::isdigit(static_cast<unsigned char>(n[0]));
        }))
      return names;
  }
  return {};
}

} // namespace kb

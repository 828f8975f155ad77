//===- kb-c/CompilerStrings.h - C strings of the compiler API as C++ -----===//
//
// Both sides of the C interface (the library's wrappers and the
// workbench's loader) turn its nullable `const char *` and string lists
// into std::string; one definition here, header-only so neither side links
// the other.
//
//===----------------------------------------------------------------------===//
#ifndef KB_C_COMPILERSTRINGS_H_
#define KB_C_COMPILERSTRINGS_H_

#include "kb-c/Compiler.h"

#include <string>
#include <vector>

namespace kb::capi {

/// |text|, or "" for a null pointer.
inline std::string str(const char *text) { return text ? text : ""; }

inline std::vector<std::string> strings(const kbCompilerStrings &list) {
  std::vector<std::string> out;
  for (size_t i = 0; i < list.count; ++i)
    out.push_back(str(list.items[i]));
  return out;
}

} // namespace kb::capi

#endif // KB_C_COMPILERSTRINGS_H_

//===- kb-c/CompilerStrings.h - C strings of the compiler API as C++ -----===//
//
// Both sides of the C interface (the library's wrappers and the
// workbench's loader) turn its nullable `const char *` and string lists
// into std::string, its spellings ("cuda:sm_90", "f32", "readonly",
// "KEY=VALUE", "object") into the common/ types of kb/Driver/Records.h and
// back, and keep the strings a C struct points into alive; one definition
// here, header-only so neither side links the other. These are the only
// places the records' types become text.
//
//===----------------------------------------------------------------------===//
#ifndef KB_C_COMPILERSTRINGS_H_
#define KB_C_COMPILERSTRINGS_H_

#include "kb-c/Compiler.h"
#include "kb/Driver/Records.h"

#include <deque>
#include <optional>
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

/// The C views of C++ values and the storage they point into, kept as long
/// as this object lives (a deque never moves what it already holds).
class CViews {
public:
  /// Views of |list|'s strings, which must outlive this object's use.
  kbCompilerStrings strings(const std::vector<std::string> &list) {
    std::vector<const char *> &array = pointers_.emplace_back();
    for (const std::string &s : list)
      array.push_back(s.c_str());
    return {array.data(), array.size()};
  }
  /// |text| (a spelling made for the call), kept here.
  const char *keep(std::string text) {
    return texts_.emplace_back(std::move(text)).c_str();
  }
  kbCompilerStrings targets(const std::vector<Target> &targets) {
    std::vector<std::string> &texts = lists_.emplace_back();
    for (const Target &target : targets)
      texts.push_back(target.toString());
    return strings(texts);
  }
  /// Settings as "KEY=VALUE".
  kbCompilerStrings
  settings(const std::vector<SpecializationSetting> &settings) {
    std::vector<std::string> &texts = lists_.emplace_back();
    for (const SpecializationSetting &setting : settings)
      texts.push_back(formatSpecializationSetting(setting));
    return strings(texts);
  }

private:
  std::deque<std::vector<const char *>> pointers_;
  std::deque<std::string> texts_;
  std::deque<std::vector<std::string>> lists_;
};

/// Reads the C interface's spellings into common/ types. The first text
/// that does not parse is kept as error(), naming the field; what a failed
/// read returns is a placeholder the caller must not use.
class SpellingReader {
public:
  const std::string &error() const { return error_; }

  Target target(const char *text, const std::string &field) {
    StatusOr<Target> target = Target::parse(str(text));
    if (target.ok())
      return *target;
    fail(field + ": " + target.status().message());
    return Target();
  }
  std::vector<Target> targets(const kbCompilerStrings &list,
                              const std::string &field) {
    std::vector<Target> out;
    for (size_t i = 0; i < list.count; ++i)
      out.push_back(target(list.items[i], field));
    return out;
  }
  std::vector<SpecializationSetting> settings(const kbCompilerStrings &list,
                                              const std::string &field) {
    std::vector<SpecializationSetting> out;
    for (const std::string &text : capi::strings(list))
      if (std::optional<SpecializationSetting> setting =
              parseSpecializationSetting(text))
        out.push_back(std::move(*setting));
      else
        fail(field + ": specialization setting '" + text +
             "' is not KEY=VALUE");
    return out;
  }
  ElementType elementType(const char *text, const std::string &field) {
    return read(parseElementType(str(text)), text, field, "element type",
                validElementTypes(), ElementType::F32);
  }
  Access access(const char *text, const std::string &field) {
    return read(parseAccess(str(text)), text, field, "access", validAccesses(),
                Access::ReadWrite);
  }
  ScalarType scalarType(const char *text, const std::string &field) {
    return read(parseScalarType(str(text)), text, field, "type",
                validScalarTypes(), ScalarType::I32);
  }
  driver::SubstitutionKind substitutionKind(const char *text,
                                            const std::string &field) {
    return read(driver::parseSubstitutionKind(str(text)), text, field, "kind",
                "source, object", driver::SubstitutionKind::Object);
  }

private:
  template <typename T>
  T read(std::optional<T> parsed, const char *text, const std::string &field,
         const char *what, const char *valid, T placeholder) {
    if (parsed)
      return *parsed;
    fail(field + ": " + what + " '" + str(text) + "' is not one of " + valid);
    return placeholder;
  }
  void fail(std::string message) {
    if (error_.empty())
      error_ = std::move(message);
  }
  std::string error_;
};

} // namespace kb::capi

#endif // KB_C_COMPILERSTRINGS_H_

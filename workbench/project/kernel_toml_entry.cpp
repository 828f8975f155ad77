//===- workbench/project/kernel_toml_entry.cpp - A templated `entry` ------===//
#include "workbench/project/kernel_toml_entry.h"

#include "common/paths.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <vector>

namespace kb::workbench {

namespace {

/// `ns::name<a, b>`: the name and the arguments, each trimmed.
struct TemplateEntry {
  std::string name;
  std::vector<std::string> arguments;
};

std::optional<TemplateEntry> parseTemplateEntry(const std::string &entry) {
  static const std::regex form(
      R"(^\s*([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s*<([^<>]*)>\s*$)");
  std::smatch m;
  if (!std::regex_match(entry, m, form))
    return std::nullopt;
  TemplateEntry out;
  out.name = m[1].str();
  std::string list = m[2].str();
  for (size_t start = 0;;) {
    size_t comma = list.find(',', start);
    std::string arg = list.substr(start, comma - start);
    size_t first = arg.find_first_not_of(" \t");
    size_t last = arg.find_last_not_of(" \t");
    out.arguments.push_back(
        first == std::string::npos ? "" : arg.substr(first, last - first + 1));
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

bool isInteger(const std::string &text) {
  static const std::regex integer(R"(^-?[0-9]+$)");
  return std::regex_match(text, integer);
}

bool isName(const std::string &text) {
  static const std::regex name(R"(^[A-Za-z_]\w*$)");
  return std::regex_match(text, name);
}

/// Why the name |arg| cannot be a template argument of |kernel|; empty when
/// it can (tuned as a define, or an integer in every source's `defines`).
std::string whyNotAnArgument(const Kernel &kernel, const std::string &arg) {
  if (const TuneParameter *p = kernel.tune.find(arg))
    return p->apply == TuneApply::Define
               ? ""
               : "`" + arg +
                     "` is tuned as a GLSL specialization constant; a "
                     "template argument needs a define (drop `as`)";
  for (const toolchains::KernelSpec &spec : kernel.specs)
    for (const auto &[name, value] : spec.defines)
      if (name == arg)
        return isInteger(value) ? ""
                                : "the define `" + arg + "` is \"" + value +
                                      "\", not an integer";
  return "`" + arg +
         "` is neither tuned ([tune]) nor defined (`defines`); tune it (`" +
         arg + " = [16, 32]` in [tune]), define it (`defines = { " + arg +
         " = 16 }`) or write the integer";
}

} // namespace

bool isTemplateEntry(const std::string &entry) {
  return entry.find('<') != std::string::npos;
}

std::string entryExportName(const std::string &entry) {
  if (!isTemplateEntry(entry))
    return entry;
  std::string name = entry.substr(0, entry.find('<'));
  name = name.substr(name.rfind(':') + 1);
  size_t last = name.find_last_not_of(" \t");
  size_t first = name.find_first_not_of(" \t");
  return first == std::string::npos ? name
                                    : name.substr(first, last - first + 1);
}

Status checkTemplateEntry(const TomlFile &file, const toml::node &node,
                          const Kernel &kernel) {
  if (!isTemplateEntry(kernel.entry))
    return okStatus();
  std::optional<TemplateEntry> entry = parseTemplateEntry(kernel.entry);
  if (!entry)
    return file.expected(node, "entry",
                         "a function template's name and its arguments, "
                         "e.g. \"MatrixMulCUDA<BLOCK_SIZE>\"");
  for (const std::string &arg : entry->arguments) {
    std::string why;
    if (!isInteger(arg) && !isName(arg))
      why = "`" + arg +
            "` is neither an integer nor a name: the workbench "
            "instantiates templates on integers (a literal, a tuned name or "
            "an integer in `defines`)";
    else if (isName(arg))
      why = whyNotAnArgument(kernel, arg);
    if (!why.empty())
      return file.error(node, "`entry` = \"" + kernel.entry +
                                  "\": template argument " + why);
  }
  return okStatus();
}

Status instantiateEntry(const Kernel &kernel, toolchains::KernelSpec &spec) {
  if (spec.language != toolchains::Language::Cuda ||
      !isTemplateEntry(kernel.entry))
    return okStatus();
  std::optional<TemplateEntry> entry = parseTemplateEntry(kernel.entry);
  if (!entry)
    return invalidArgument(displayPath(kernel.manifest) + ": `entry` = \"" +
                           kernel.entry + "\" is not a template instance");
  std::string instance = entry->name + "<";
  spec.templateArgumentNames.clear();
  for (size_t i = 0; i < entry->arguments.size(); ++i) {
    std::string value = entry->arguments[i];
    if (isName(value)) {
      spec.templateArgumentNames.push_back(value);
      // Tuned values are applied as defines, so the defines hold them all.
      auto it = std::find_if(spec.defines.begin(), spec.defines.end(),
                             [&](const auto &d) { return d.first == value; });
      if (it == spec.defines.end() || !isInteger(it->second))
        return invalidArgument(
            displayPath(kernel.manifest) + ": `entry` = \"" + kernel.entry +
            "\": `" + value +
            "` is tuned and has no value here: a tuned name the entry uses "
            "needs a default in [tune] (`" +
            value + " = { values = [...], default = N }`)");
      value = it->second;
    }
    instance += (i ? ", " : "") + value;
  }
  instance += ">";
  spec.templateInstance = spec.entry = spec.abi.entry = instance;
  return okStatus();
}

} // namespace kb::workbench

//===- workbench/project/kernel_toml.cpp - The kernel.toml schema ---------===//
#include "workbench/project/kernel_toml.h"

#include "workbench/project/declared_expression.h"

#include "workbench/project/hardcoded_define.h"
#include "workbench/project/kernel_toml_declared.h"
#include "workbench/project/kernel_toml_entry.h"
#include "workbench/project/kernel_toml_fixed.h"
#include "workbench/project/kernel_toml_launch.h"
#include "workbench/project/kernel_toml_pipeline.h"
#include "workbench/project/kernel_toml_tune.h"
#include "workbench/project/problem_sizes.h"
#include "workbench/project/toml_file.h"

#include "common/file_util.h"
#include "common/paths.h"

#include <charconv>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace kb::workbench {

using toolchains::KernelSpec;
using toolchains::Language;

std::optional<Language> languageOf(const fs::path &source) {
  std::string ext = source.extension().string();
  if (ext == ".cu")
    return Language::Cuda;
  if (ext == ".glsl" || ext == ".comp")
    return Language::Glsl;
  return std::nullopt;
}

namespace {
/// Whether |source| is a C or C++ file by its extension (.c; .cc, .cpp,
/// .cxx), i.e. a host reference rather than a kernel or MLIR. Here, beside
/// languageOf, so that reading kernel.toml needs no toolchain code.
bool isHostReferenceSource(const fs::path &source) {
  std::string ext = source.extension().string();
  return ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".cxx";
}
} // namespace

namespace {

bool isIdentifier(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// Kernel names become directory names under OUT_DIR/kernels/.
bool isValidKernelName(std::string_view text) {
  if (text.empty() || text[0] == '.' || text[0] == '-')
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-' || c == '.';
  });
}

const std::vector<std::string> kKernelKeys = {
    "name",           "source",      "sources",
    "entry",          "targets",     "defines",
    "include_dirs",   "substitutes", "spills_are_errors",
    "optimize_spirv", "flags"};
const std::vector<std::string> kKernelFileKeys = {
    "kernel",         "abi", "bench", "roofline", "tolerance",
    "specialization", "tune"};
const std::vector<std::string> kBenchKeys = {
    "workload", "workload_per_workgroup", "constants", "elements", "reference",
    "init",     "special_values",         "sweep"};
const std::vector<std::string> kAbiKeys = {"workgroup_size",
                                           "workload_per_workgroup",
                                           "dynamic_shared_memory",
                                           "bindings",
                                           "constants",
                                           "subgroup_size",
                                           "full_subgroups",
                                           "parameters"};
// `shape` is read with the declared figures (kernel_toml_declared.h): its
// entries may name [bench] constants, read after the bindings.
const std::vector<std::string> kBindingKeys = {"name", "type", "access",
                                               "shape"};
const std::vector<std::string> kConstantKeys = {"name", "type", "count"};

/// Entries one `count` may declare: a push-constant block is small (128
/// bytes is Vulkan's guaranteed minimum).
constexpr int64_t kMaxConstantCount = 64;

/// `[abi] key = [{...}, ...]`: an array of tables, or null when absent.
StatusOr<const toml::array *> tableArray(const TomlFile &file,
                                         const toml::table &abiTable,
                                         const std::string &key) {
  const toml::node *node = abiTable.get(key);
  if (!node)
    return static_cast<const toml::array *>(nullptr);
  const toml::array *array = node->as_array();
  if (!array)
    return file.expected(*node, key, "an array of tables");
  for (size_t i = 0; i < array->size(); ++i)
    if (!array->get(i)->is_table())
      return file.expected(*array->get(i), key + "[" + std::to_string(i) + "]",
                           "a table like { name = \"x\", type = \"f32\" }");
  return array;
}

/// `|key|.|field|` of an [abi] entry: required, one of |valid| as |parse|
/// reads it. |entry| locates the error when the field is missing.
template <typename T>
StatusOr<T>
readSpelling(const TomlFile &file, const toml::table &table,
             const toml::node &entry, const std::string &key, const char *field,
             std::optional<T> (*parse)(std::string_view), const char *valid) {
  const toml::node *node = table.get(field);
  if (!node)
    return file.error(entry, "`" + key + "` is missing `" + field +
                                 "`: expected one of " + valid);
  std::optional<T> value;
  if (node->is_string())
    value = parse(node->as_string()->get());
  if (!value)
    return file.expected(*node, key + "." + field,
                         std::string("one of ") + valid);
  return *value;
}

/// What `type` takes: the element types, or a struct.
const std::string kBindingTypes = std::string(validElementTypes()) + ", struct";

Status parseBindings(const TomlFile &file, const toml::table &abiTable,
                     KernelAbi &abi) {
  KB_ASSIGN_OR_RETURN(const toml::array *bindings,
                      tableArray(file, abiTable, "bindings"));
  for (size_t i = 0; bindings && i < bindings->size(); ++i) {
    const toml::node &entry = *bindings->get(i);
    const toml::table &t = *entry.as_table();
    std::string key = "bindings[" + std::to_string(i) + "]";
    KB_RETURN_IF_ERROR(file.checkKeys(t, key, kBindingKeys));
    Binding binding;
    KB_ASSIGN_OR_RETURN(auto name, file.string(t, "name"));
    binding.name = name.value_or("");
    // "struct": each element a struct, laid out by the kernel's SPIR-V
    // once built; until then, bytes of an unknown stride.
    const toml::node *type = t.get("type");
    if (type && type->is_string() && type->as_string()->get() == "struct") {
      binding.elementType = ElementType::U8;
      binding.structLayout = StructLayout{};
    } else {
      KB_ASSIGN_OR_RETURN(binding.elementType,
                          readSpelling(file, t, entry, key, "type",
                                       &parseElementType,
                                       kBindingTypes.c_str()));
    }
    KB_ASSIGN_OR_RETURN(binding.access,
                        readSpelling(file, t, entry, key, "access",
                                     &parseAccess, validAccesses()));
    abi.bindings.push_back(std::move(binding));
  }
  return okStatus();
}

Status parseConstants(const TomlFile &file, const toml::table &abiTable,
                      KernelAbi &abi) {
  KB_ASSIGN_OR_RETURN(const toml::array *constants,
                      tableArray(file, abiTable, "constants"));
  for (size_t i = 0; constants && i < constants->size(); ++i) {
    const toml::node &entry = *constants->get(i);
    const toml::table &t = *entry.as_table();
    std::string key = "constants[" + std::to_string(i) + "]";
    KB_RETURN_IF_ERROR(file.checkKeys(t, key, kConstantKeys));
    Constant constant;
    KB_ASSIGN_OR_RETURN(auto name, file.string(t, "name"));
    constant.name = name.value_or("");
    KB_ASSIGN_OR_RETURN(constant.type,
                        readSpelling(file, t, entry, key, "type",
                                     &parseScalarType, validScalarTypes()));
    // An array member of a push-constant block (`float coeffs[4]`): one
    // scalar per entry, "coeffs[0]" .. "coeffs[3]", the names the ABI
    // check matches the block's flattened members by.
    KB_ASSIGN_OR_RETURN(auto count,
                        file.integer(t, "count", 1, kMaxConstantCount,
                                     "an array's length, 1 to " +
                                         std::to_string(kMaxConstantCount)));
    if (!count) {
      abi.constants.push_back(std::move(constant));
      continue;
    }
    if (constant.name.empty())
      return file.expected(*t.get("count"), key + ".count",
                           "a count on a named constant (its entries are "
                           "named after it)");
    for (int64_t k = 0; k < *count; ++k)
      abi.constants.push_back(
          {constant.name + "[" + std::to_string(k) + "]", constant.type});
  }
  return okStatus();
}

/// `[abi] parameters = ["out", "in", "w", "h"]`: a CUDA kernel's parameters
/// in its own order, each the name of a binding or constant above, every
/// one of them once (so `transpose(odata, idata, w, h)` fits a dispatch
/// whose bindings are (idata, odata) without a wrapper).
Status parseParameters(const TomlFile &file, const toml::table &abiTable,
                       KernelAbi &abi) {
  const toml::node *node = abiTable.get("parameters");
  if (!node)
    return okStatus();
  const toml::array *names = node->as_array();
  if (!names)
    return file.expected(*node, "parameters",
                         "an array of binding and constant names");
  size_t count = abi.bindings.size() + abi.constants.size();
  auto nameOf = [&](size_t slot) -> const std::string & {
    return slot < abi.bindings.size()
               ? abi.bindings[slot].name
               : abi.constants[slot - abi.bindings.size()].name;
  };
  for (size_t i = 0; i < names->size(); ++i) {
    const toml::node &item = *names->get(i);
    std::string key = "parameters[" + std::to_string(i) + "]";
    if (!item.is_string())
      return file.expected(item, key, "the name of a binding or constant");
    const std::string &name = item.as_string()->get();
    std::vector<uint32_t> matches;
    for (size_t slot = 0; slot < count; ++slot)
      if (nameOf(slot) == name)
        matches.push_back(static_cast<uint32_t>(slot));
    if (matches.size() != 1)
      return file.error(
          item, key + ": `" + name + "` " +
                    (matches.empty() ? "names no binding or constant"
                                     : "names several bindings or constants") +
                    "; [abi] declares " + formatSignature(abi));
    abi.parameterOrder.push_back(matches.front());
  }
  std::string wrong = checkParameterOrder(abi);
  if (!wrong.empty())
    return file.error(*node, "parameters: " + wrong +
                                 "; list every binding and constant once, in "
                                 "the order the kernel declares them");
  return okStatus();
}

/// `[abi]`: the slot the kernel fits.
Status parseAbi(const TomlFile &file, const toml::table &abiTable,
                KernelAbi &abi) {
  KB_RETURN_IF_ERROR(file.checkKeys(abiTable, "[abi]", kAbiKeys));
  // The launch shape (workgroup size, workload per workgroup, dynamic shared
  // memory) is read by readLaunch and evaluated per source (resolveLaunch).
  KB_RETURN_IF_ERROR(readSubgroupSize(file, abiTable, abi));
  KB_RETURN_IF_ERROR(parseBindings(file, abiTable, abi));
  KB_RETURN_IF_ERROR(parseConstants(file, abiTable, abi));
  return parseParameters(file, abiTable, abi);
}

/// A size in [bench]: a positive integer, or an expression
/// (declared_expression.h: + - * /, parentheses) of integers, the integer
/// [bench] constants and the integer [specialization] values ("M*K",
/// "n / 4", "(n + TILE - 1) / TILE * TILE") whose value is a positive whole
/// number.
StatusOr<int64_t> evaluateSize(const TomlFile &file, const toml::node &node,
                               const std::string &key,
                               const std::map<std::string, int64_t> &values) {
  const char *what =
      "a positive integer, or an expression of integers, integer [bench] "
      "constants and integer [specialization] values such as \"M*K\" or "
      "\"n / 4\"";
  if (const auto *i = node.as_integer()) {
    if (i->get() < 1)
      return file.expected(node, key, what);
    return i->get();
  }
  const auto *text = node.as_string();
  if (!text)
    return file.expected(node, key, what);
  std::map<std::string, double> names;
  for (const auto &[name, value] : values)
    names[name] = static_cast<double>(value);
  std::string unknown;
  StatusOr<double> value = evaluateExpression(text->get(), names, &unknown);
  if (!value.ok())
    return file.error(node,
                      "`" + key + "`: " + value.status().message() +
                          (unknown.empty() ? ""
                                           : " (a size names integer [bench] "
                                             "constants and [specialization] "
                                             "values)"));
  // Doubles hold every integer up to 2^53 exactly.
  if (*value < 1 || *value != std::floor(*value) || *value > 9007199254740992.0)
    return file.error(node, "`" + key + "`: `" + text->get() + "` is " +
                                std::to_string(*value) +
                                "; expected a positive whole number (`/` "
                                "divides exactly: its operands must divide)");
  return static_cast<int64_t>(*value);
}

/// The decimal text of an integer [bench] constant of |type|: a TOML
/// integer, or a decimal string (TOML integers are signed 64-bit, so a u64
/// above 2^63-1 can only be written as one); nullopt when it does not fit.
std::optional<std::string> integerConstantText(const toml::node &node,
                                               ScalarType type) {
  bool isUnsigned = type == ScalarType::U32 || type == ScalarType::U64;
  bool is32 = type == ScalarType::I32 || type == ScalarType::U32;
  if (const auto *n = node.as_integer()) {
    int64_t min = isUnsigned ? 0 : (is32 ? INT32_MIN : INT64_MIN);
    int64_t max =
        is32 ? (isUnsigned ? int64_t(UINT32_MAX) : INT32_MAX) : INT64_MAX;
    if (n->get() < min || n->get() > max)
      return std::nullopt;
    return std::to_string(n->get());
  }
  const auto *s = node.as_string();
  if (!s || s->get().empty())
    return std::nullopt;
  const std::string &text = s->get();
  const char *end = text.data() + text.size();
  if (isUnsigned) {
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || (is32 && value > UINT32_MAX))
      return std::nullopt;
    return std::to_string(value);
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end ||
      (is32 && (value < INT32_MIN || value > INT32_MAX)))
    return std::nullopt;
  return std::to_string(value);
}

/// An integer constant given as a list: a problem-size axis. Records it in
/// |bench.axes| and returns the node of the value |problem| picks (the
/// first without one).
StatusOr<const toml::node *>
axisValue(const TomlFile &file, const toml::array &list, const Constant &c,
          const std::string &key, DeclaredBench &bench,
          const ProblemSize *problem) {
  if (c.type == ScalarType::F32 || c.type == ScalarType::F64 || list.empty())
    return file.expected(list, key,
                         "a number (a non-empty list of integers sweeps an "
                         "integer constant's problem size for `kernel-bench "
                         "tune`)");
  std::vector<std::string> texts;
  for (const toml::node &item : list) {
    std::optional<std::string> text = integerConstantText(item, c.type);
    if (!text)
      return file.expected(
          item, key, std::string("an integer that fits ") + toString(c.type));
    texts.push_back(*text);
  }
  bench.axes.emplace_back(c.name, texts);
  if (problem)
    if (auto it = problem->find(c.name); it != problem->end())
      for (size_t i = 0; i < texts.size(); ++i)
        if (texts[i] == it->second)
          return list.get(i);
  return list.get(0);
}

/// At most this many sweep points: each is a benchmark of its own.
constexpr size_t kMaxSweepPoints = 256;

/// The values of one swept constant |c| at |node| ([tune]'s value forms),
/// as decimal text, each checked to fit the constant's type.
StatusOr<std::vector<std::string>>
sweepValues(const TomlFile &file, const toml::node &node, const Constant &c) {
  const std::string key = "bench.sweep." + c.name;
  if (c.type == ScalarType::F32 || c.type == ScalarType::F64)
    return file.error(node, "`" + key + "`: constant `" + c.name + "` is " +
                                toString(c.type) +
                                "; a sweep sizes the problem with integer "
                                "constants");
  KB_ASSIGN_OR_RETURN(
      std::vector<int64_t> values,
      readValueForm(file, node, key, "[bench] sweep " + c.name));
  std::vector<std::string> texts;
  for (int64_t v : values) {
    std::optional<std::string> text =
        integerConstantText(toml::value<int64_t>(v), c.type);
    if (!text)
      return file.expected(node, key,
                           std::string("values that fit ") + toString(c.type) +
                               " (found " + std::to_string(v) + ")");
    texts.push_back(*text);
  }
  return texts;
}

/// `[bench] sweep = { n = { pow2 = [lo, hi] } }`: integer [abi] constants
/// not also in `constants`, each with its values. Records |bench.sweep| and
/// returns each swept name's value at |problem| (the first without one).
StatusOr<ProblemSize>
parseBenchSweep(const TomlFile &file, const toml::table &table,
                const KernelAbi &abi, const toml::table *constants,
                DeclaredBench &bench, const ProblemSize *problem) {
  KB_ASSIGN_OR_RETURN(const toml::table *sweep, file.table(table, "sweep"));
  ProblemSize picked;
  if (!sweep)
    return picked;
  std::vector<std::string> constantNames;
  for (const Constant &c : abi.constants)
    constantNames.push_back(c.name);
  KB_RETURN_IF_ERROR(file.checkKeys(*sweep, "[bench] sweep", constantNames));
  if (sweep->empty())
    return file.expected(*sweep, "bench.sweep",
                         "at least one integer [abi] constant with its "
                         "values, e.g. { n = { pow2 = [1024, 1048576] } }");
  size_t points = 1;
  for (const Constant &c : abi.constants) {
    const toml::node *node = sweep->get(c.name);
    if (!node)
      continue;
    if (constants && constants->get(c.name))
      return file.error(*constants->get(c.name),
                        "[bench] constants `" + c.name +
                            "` is swept by [bench] sweep; give its values "
                            "in one place (remove it from constants)");
    KB_ASSIGN_OR_RETURN(std::vector<std::string> texts,
                        sweepValues(file, *node, c));
    points *= texts.size();
    if (points > kMaxSweepPoints)
      return file.error(*node, "[bench] sweep: more than " +
                                   std::to_string(kMaxSweepPoints) +
                                   " points (each is a benchmark); sweep "
                                   "fewer values");
    picked[c.name] = texts.front();
    if (problem)
      if (auto it = problem->find(c.name);
          it != problem->end() &&
          std::find(texts.begin(), texts.end(), it->second) != texts.end())
        picked[c.name] = it->second;
    bench.sweep.emplace_back(c.name, std::move(texts));
  }
  return picked;
}

/// The top-level key of constant |name| in `[bench] constants`: "coeffs"
/// for an array entry "coeffs[2]", "inner" for a struct member
/// "inner.id" (which TOML reads the same as `inner = { id = ... }`).
std::string constantKey(const std::string &name) {
  return name.substr(0, name.find_first_of("[."));
}

/// The node of constant |name| in |constants|: itself, or the entry of an
/// array (`coeffs[2]`) or the member of a table (`inner.id`) its name
/// walks to; null when there is none.
const toml::node *constantNode(const toml::table &constants,
                               const std::string &name) {
  const toml::node *node = &constants;
  size_t at = 0;
  while (node && at < name.size()) {
    if (name[at] == '[') {
      size_t close = name.find(']', at);
      const toml::array *array = node->as_array();
      if (close == std::string::npos || !array)
        return nullptr;
      size_t index = 0;
      auto [end, ec] =
          std::from_chars(name.data() + at + 1, name.data() + close, index);
      if (ec != std::errc() || end != name.data() + close)
        return nullptr;
      node = array->get(index);
      at = close + 1;
      continue;
    }
    if (name[at] == '.')
      ++at;
    size_t end = name.find_first_of("[.", at);
    const toml::table *table = node->as_table();
    node = table ? table->get(name.substr(at, end - at)) : nullptr;
    at = end == std::string::npos ? name.size() : end;
  }
  return node;
}

/// A value under |path| in `[bench] constants` that names no [abi]
/// constant: an array entry past the declared count, a struct member the
/// block does not have (`damping = [1, 2, 3, 4]` for `count = 3`).
Status checkNoExtraValues(const TomlFile &file, const toml::node &node,
                          const std::string &path,
                          const std::set<std::string> &declared) {
  if (declared.count(path))
    return okStatus();
  if (const toml::array *array = node.as_array()) {
    for (size_t i = 0; i < array->size(); ++i)
      KB_RETURN_IF_ERROR(
          checkNoExtraValues(file, *array->get(i),
                             path + "[" + std::to_string(i) + "]", declared));
    return okStatus();
  }
  if (const toml::table *table = node.as_table()) {
    for (const auto &[key, value] : *table)
      KB_RETURN_IF_ERROR(checkNoExtraValues(
          file, value, path + "." + std::string(key.str()), declared));
    return okStatus();
  }
  return file.error(node, "[bench] constants: `" + path +
                              "` is no constant of [abi] (an array entry "
                              "past its count, or a member the block does "
                              "not have); remove it");
}

/// Every key and every nested value of `[bench] constants` is some [abi]
/// constant's: a value nothing takes is a typo the user should hear about.
Status checkConstantKeys(const TomlFile &file, const toml::table &constants,
                         const KernelAbi &abi) {
  std::vector<std::string> constantNames;
  std::set<std::string> declared;
  for (const Constant &c : abi.constants) {
    constantNames.push_back(constantKey(c.name));
    declared.insert(c.name);
  }
  KB_RETURN_IF_ERROR(
      file.checkKeys(constants, "[bench] constants", constantNames));
  for (const auto &[key, value] : constants)
    KB_RETURN_IF_ERROR(
        checkNoExtraValues(file, value, std::string(key.str()), declared));
  return okStatus();
}

/// `[bench] constants`: one value per [abi] constant, rendered as a literal;
/// the integer ones also go to |integerValues| for the sizes to name.
Status parseBenchConstants(const TomlFile &file, const toml::table &table,
                           const KernelAbi &abi, DeclaredBench &bench,
                           std::map<std::string, int64_t> &integerValues,
                           const ProblemSize *problem) {
  KB_ASSIGN_OR_RETURN(const toml::table *constants,
                      file.table(table, "constants"));
  if (constants)
    KB_RETURN_IF_ERROR(checkConstantKeys(file, *constants, abi));
  KB_ASSIGN_OR_RETURN(
      ProblemSize swept,
      parseBenchSweep(file, table, abi, constants, bench, problem));
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    const Constant &c = abi.constants[i];
    if (auto it = swept.find(c.name); it != swept.end()) {
      bench.constantValues.push_back(it->second);
      int64_t value = 0;
      std::from_chars(it->second.data(), it->second.data() + it->second.size(),
                      value);
      integerValues[c.name] = value; // sweepValues' text of an int64_t
      continue;
    }
    const toml::node *node = constants && !c.name.empty()
                                 ? constantNode(*constants, c.name)
                                 : nullptr;
    // Part of an array or struct: `coeffs = [...]`, `inner = { id = 1 }`.
    const bool part = constantKey(c.name) != c.name;
    if (!node)
      return file.error(constants ? static_cast<const toml::node &>(*constants)
                                  : static_cast<const toml::node &>(table),
                        "[bench] constants: no value for constant " +
                            std::to_string(i) + " `" + c.name + "` (" +
                            toString(c.type) +
                            "); give every [abi] constant a value" +
                            (part ? " (an array takes a list, `coeffs = "
                                    "[1.0, 2.0]`, a struct a table, `inner "
                                    "= { id = 1 }` or `inner.id = 1`)"
                                  : ""));
    std::string key = "constants." + c.name;
    if (c.type == ScalarType::F32 || c.type == ScalarType::F64) {
      double value = 0;
      if (const auto *f = node->as_floating_point())
        value = f->get();
      else if (const auto *n = node->as_integer())
        value = static_cast<double>(n->get());
      else
        return file.expected(*node, key, "a number");
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.17g", value);
      bench.constantValues.push_back(buffer);
      continue;
    }
    if (const toml::array *list = node->as_array(); list && !part) {
      KB_ASSIGN_OR_RETURN(node, axisValue(file, *list, c, key, bench, problem));
    }
    std::optional<std::string> value = integerConstantText(*node, c.type);
    if (!value)
      return file.expected(
          *node, key,
          std::string("an integer that fits ") + toString(c.type) +
              (c.type == ScalarType::U64
                   ? " (one above 2^63-1 as a decimal string, e.g. "
                     "\"18446744073709551615\")"
                   : ""));
    bench.constantValues.push_back(*value);
    int64_t signedValue = 0;
    if (std::from_chars(value->data(), value->data() + value->size(),
                        signedValue)
            .ec == std::errc())
      integerValues[c.name] = signedValue;
  }
  return okStatus();
}

/// `[bench] elements`: one element count per [abi] binding.
Status parseBenchElements(const TomlFile &file, const toml::table &table,
                          const KernelAbi &abi,
                          const std::map<std::string, int64_t> &integerValues,
                          DeclaredBench &bench) {
  KB_ASSIGN_OR_RETURN(const toml::table *elements,
                      file.table(table, "elements"));
  std::vector<std::string> bindingNames;
  for (const Binding &b : abi.bindings)
    bindingNames.push_back(b.name);
  if (elements)
    KB_RETURN_IF_ERROR(
        file.checkKeys(*elements, "[bench] elements", bindingNames));
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    const toml::node *node =
        elements && !b.name.empty() ? elements->get(b.name) : nullptr;
    if (!node)
      return file.error(elements ? static_cast<const toml::node &>(*elements)
                                 : static_cast<const toml::node &>(table),
                        "[bench] elements: no element count for binding " +
                            std::to_string(i) + " `" + b.name +
                            "`; give every [abi] binding its size, e.g. `" +
                            (b.name.empty() ? "x" : b.name) + " = \"n\"`");
    KB_ASSIGN_OR_RETURN(
        int64_t count,
        evaluateSize(file, *node, "elements." + b.name, integerValues));
    bench.elementCounts.push_back(static_cast<uint64_t>(count));
  }
  return okStatus();
}

/// Integer element types draw integers: their init numbers must be
/// integers too.
bool holdsIntegers(ElementType type) {
  return type != ElementType::F16 && type != ElementType::BF16 &&
         type != ElementType::F32 && type != ElementType::F64;
}

/// The numbers of one init distribution, `key.name` (`constant = v` reads as
/// [v, 0], the others as their pair), checked against the binding's type.
StatusOr<std::vector<double>> parseInitNumbers(const TomlFile &file,
                                               const toml::node &value,
                                               const std::string &key,
                                               const std::string &name,
                                               const Binding &b) {
  // A struct's members draw as their own types: any numbers apply.
  const bool integer = holdsIntegers(b.elementType) && !b.structLayout;
  auto number = [&](const toml::node &n) -> StatusOr<double> {
    if (const auto *f = n.as_floating_point()) {
      if (integer)
        return file.expected(n, key + "." + name,
                             std::string("an integer (binding `") + b.name +
                                 "` holds " + toString(b.elementType) + ")");
      if (!std::isfinite(f->get()))
        return file.expected(n, key + "." + name, "a finite number");
      return f->get();
    }
    if (const auto *v = n.as_integer())
      return static_cast<double>(v->get());
    return file.expected(n, key + "." + name, "a number");
  };
  std::vector<double> numbers;
  if (name == "constant") {
    KB_ASSIGN_OR_RETURN(double v, number(value));
    return std::vector<double>{v, 0};
  }
  const toml::array *pair = value.as_array();
  if (!pair || pair->size() != 2)
    return file.expected(value, key + "." + name, "an array of 2 numbers");
  for (size_t k = 0; k < 2; ++k) {
    KB_ASSIGN_OR_RETURN(double v, number(*pair->get(k)));
    numbers.push_back(v);
  }
  return numbers;
}

/// |numbers| as distribution |name| of |out| (a constant is a range of step
/// 0), after the checks each distribution needs.
Status setDistribution(const TomlFile &file, const toml::node &value,
                       const std::string &key, const std::string &name,
                       const std::vector<double> &numbers, BufferInit &out) {
  if (name == "uniform") {
    if (!(numbers[0] < numbers[1]))
      return file.expected(value, key + ".uniform",
                           "[low, high] with low < high (the draw is in "
                           "[low, high); integers stay below high)");
    out = {"uniform", numbers[0], numbers[1]};
  } else if (name == "normal") {
    if (numbers[1] < 0)
      return file.expected(value, key + ".normal",
                           "[mean, stddev] with stddev >= 0");
    out.distribution = "normal";
    out.mean = numbers[0];
    out.stddev = numbers[1];
  } else {
    out.distribution = "range";
    out.start = numbers[0];
    out.step = numbers[1];
  }
  return okStatus();
}

/// One binding's `init.<name>` table: exactly one distribution, or a file
/// (binding |i| of |abi|, |count| elements: into |declared|.fixedInputs),
/// and only for a binding the kernel reads.
Status parseBufferInit(const TomlFile &file, const toml::node &node, size_t i,
                       const KernelAbi &abi, uint64_t count, BufferInit &out,
                       bench::KernelDeclared &declared) {
  static const std::vector<std::string> kinds = {"uniform", "normal",
                                                 "constant", "range", "file"};
  const Binding &b = abi.bindings[i];
  std::string key = "init." + b.name;
  const char *what =
      "a table with one of `uniform = [low, high]`, `normal = [mean, "
      "stddev]`, `constant = value`, `range = [start, step]`, `file = "
      "\"x.npy\"`";
  const toml::table *spec = node.as_table();
  if (!spec || spec->size() != 1)
    return file.expected(node, key, what);
  KB_RETURN_IF_ERROR(file.checkKeys(*spec, "[bench] " + key, kinds));
  if (b.access == Access::WriteOnly)
    return file.error(node, "`" + key + "`: binding " + std::to_string(i) +
                                " `" + b.name +
                                "` is writeonly: the kernel never reads "
                                "its initial contents; remove its init");
  // The iterator owns what it points at: keep it alive.
  auto only = spec->begin();
  const std::string name(only->first.str());
  const toml::node &value = only->second;
  if (name == "file") {
    KB_ASSIGN_OR_RETURN(bench::FixedArray fixed,
                        readFixedInput(file, value, abi, i, count));
    declared.fixedInputs.push_back(std::move(fixed));
    return okStatus();
  }
  KB_ASSIGN_OR_RETURN(std::vector<double> numbers,
                      parseInitNumbers(file, value, key, name, b));
  return setDistribution(file, value, key, name, numbers, out);
}

/// `[bench] init`: per binding, how its inputs are drawn, e.g.
/// `idx = { uniform = [0, 1000] }` (integers in [0, 1000): index buffers in
/// bounds), `{ normal = [0.0, 0.5] }`, `{ constant = 1.0 }`,
/// `{ range = [0, 1] }` (element i = 0 + i * 1), `{ file = "x.npy" }`
/// (fixed: into |declared|.fixedInputs).
Status parseBenchInit(const TomlFile &file, const toml::table &table,
                      const KernelAbi &abi, DeclaredBench &bench,
                      bench::KernelDeclared &declared) {
  bench.init.assign(abi.bindings.size(), BufferInit{});
  KB_ASSIGN_OR_RETURN(const toml::table *init, file.table(table, "init"));
  if (!init)
    return okStatus();
  std::vector<std::string> bindingNames;
  for (const Binding &b : abi.bindings)
    bindingNames.push_back(b.name);
  KB_RETURN_IF_ERROR(file.checkKeys(*init, "[bench] init", bindingNames));
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    if (const toml::node *node = b.name.empty() ? nullptr : init->get(b.name))
      KB_RETURN_IF_ERROR(parseBufferInit(file, *node, i, abi,
                                         bench.elementCounts[i], bench.init[i],
                                         declared));
  }
  return okStatus();
}

/// `workload` (required): 1 to 3 sizes.
Status parseBenchWorkload(const TomlFile &file, const toml::table &table,
                          const std::map<std::string, int64_t> &integerValues,
                          DeclaredBench &bench) {
  const std::string key = "workload";
  const toml::node *node = table.get(key);
  if (!node)
    return file.error(table, "[bench] needs `workload = [...]`: 1 to 3 "
                             "sizes, integers or products of integer "
                             "constants such as \"n\"");
  const toml::array *array = node->as_array();
  if (!array || array->empty() || array->size() > 3)
    return file.expected(*node, key, "an array of 1 to 3 sizes");
  for (size_t i = 0; i < array->size(); ++i) {
    KB_ASSIGN_OR_RETURN(int64_t size,
                        evaluateSize(file, *array->get(i),
                                     key + "[" + std::to_string(i) + "]",
                                     integerValues));
    bench.workload.push_back(size);
  }
  return okStatus();
}

/// `[bench]` (DeclaredBench) against the kernel's parsed [abi].
/// One file `reference` names: an MLIR reference, a source of the kernel's
/// handwritten twin, or a C/C++ source whose function runs on the host (by
/// extension). |inList|: named among `sources`, where MLIR does not belong.
Status addReferenceFile(const TomlFile &file, const toml::node &node,
                        const std::string &text, bool inList,
                        DeclaredBench &bench) {
  fs::path path = (file.dir() / text).lexically_normal();
  std::string ext = path.extension().string();
  bool mlir = ext == ".mlir" || ext == ".mlirbc";
  bool twin = languageOf(path).has_value();
  bool host = isHostReferenceSource(path);
  if (!twin && !host && (inList || !mlir))
    return file.error(node, "`reference`: `" + text + "`: expected " +
                                (inList ? ""
                                        : "a .mlir/.mlirbc holding the "
                                          "kb.executable the kernel is "
                                          "checked against, ") +
                                "the .cu/.comp/.glsl source of a twin of the "
                                "kernel (a naive version with the same "
                                "[abi]), or a .c/.cpp file whose function "
                                "runs on the host");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return file.error(node, "`reference`: file `" + text +
                                "` not found (looked for " + displayPath(path) +
                                ")");
  if ((host || twin) && !bench.hostReference.empty() ||
      (host && !bench.referenceSources.empty()))
    return file.error(node, "`reference`: `" + text +
                                "`: a host reference is one C or C++ file, "
                                "not combined with other sources");
  if (mlir)
    bench.reference = path;
  else if (host)
    bench.hostReference = path;
  else
    bench.referenceSources.push_back(path);
  return okStatus();
}

/// `reference`: "ref.mlir"; "naive.comp"; "ref.cpp"; ["naive.cu",
/// "naive.comp"]; or { sources = [...], entry = "naive_kernel" } for a twin
/// whose CUDA function (or a host reference whose function) is named
/// differently; or { outputs = { y = "y.npy" } }, the expected outputs
/// (into |declared|).
Status parseReference(const TomlFile &file, const toml::table &table,
                      const KernelAbi &abi, DeclaredBench &bench,
                      bench::KernelDeclared &declared) {
  const toml::node *node = table.get("reference");
  if (!node)
    return okStatus();
  if (const auto *s = node->as_string())
    return addReferenceFile(file, *node, s->get(), false, bench);
  const toml::table *spec = node->as_table();
  if (spec && spec->get("outputs")) {
    KB_RETURN_IF_ERROR(file.checkKeys(*spec, "[bench] reference", {"outputs"}));
    KB_ASSIGN_OR_RETURN(const toml::table *outputs,
                        file.table(*spec, "outputs"));
    return readExpectedOutputs(file, *outputs, abi, bench, declared);
  }
  if (spec) {
    KB_RETURN_IF_ERROR(file.checkKeys(*spec, "[bench] reference",
                                      {"sources", "entry", "outputs"}));
    KB_ASSIGN_OR_RETURN(auto entry, file.string(*spec, "entry"));
    bench.referenceEntry = entry.value_or("");
  } else if (!node->as_array()) {
    return file.expected(*node, "reference",
                         "a file, a list of twin sources, a table "
                         "{ sources = [...], entry = \"...\" }, or "
                         "{ outputs = { NAME = \"NAME.npy\" } }");
  }
  KB_ASSIGN_OR_RETURN(auto sources, spec ? file.strings(*spec, "sources")
                                         : file.strings(table, "reference"));
  if (sources.empty())
    return file.error(*node, "`reference`: names no source");
  for (const auto &[text, element] : sources)
    KB_RETURN_IF_ERROR(addReferenceFile(file, *element, text, true, bench));
  return okStatus();
}

Status parseBench(const TomlFile &file, const toml::table &table,
                  const KernelAbi &abi, DeclaredBench &bench,
                  const ProblemSize *problem,
                  const std::map<std::string, int64_t> &specialization,
                  bench::KernelDeclared &declared) {
  KB_RETURN_IF_ERROR(file.checkKeys(table, "[bench]", kBenchKeys));
  // Constants first: sizes may name them, and the integer [specialization]
  // values (a [bench] constant of the same name wins).
  std::map<std::string, int64_t> integerValues;
  KB_RETURN_IF_ERROR(
      parseBenchConstants(file, table, abi, bench, integerValues, problem));
  for (const auto &[name, value] : specialization)
    integerValues.emplace(name, value);
  KB_RETURN_IF_ERROR(
      parseBenchElements(file, table, abi, integerValues, bench));
  KB_RETURN_IF_ERROR(parseBenchWorkload(file, table, integerValues, bench));
  KB_RETURN_IF_ERROR(parseBenchInit(file, table, abi, bench, declared));

  return parseReference(file, table, abi, bench, declared);
}

/// `name` (default: the directory's name), which names the output directory.
Status readKernelName(const TomlFile &file, const toml::table &kt,
                      Kernel &kernel, std::string *nameWhere) {
  KB_ASSIGN_OR_RETURN(auto name, file.string(kt, "name"));
  kernel.name =
      name.value_or(kernel.manifest.parent_path().filename().string());
  if (nameWhere)
    *nameWhere = kt.get("name") ? file.where(kt.get("name")->source())
                                : displayPath(kernel.manifest);
  if (!isValidKernelName(kernel.name)) {
    std::string message =
        "kernel name `" + kernel.name +
        "` is not valid: expected letters, digits, `_`, `-` or `.` "
        "(it names the output directory)";
    if (const toml::node *n = kt.get("name"))
      return file.error(*n, message);
    return invalidArgument(displayPath(kernel.manifest) + ": " + message +
                           "; set [kernel] name");
  }
  return okStatus();
}

using NamedNodes = std::vector<std::pair<std::string, const toml::node *>>;

/// Sources: `source = "x.cu"` or `sources = [...]`, never both.
StatusOr<NamedNodes> readSourceNames(const TomlFile &file,
                                     const toml::table &kt) {
  NamedNodes sources;
  if (kt.get("source") && kt.get("sources"))
    return file.error(*kt.get("sources"),
                      "[kernel] has both `source` and `sources`: use one");
  if (const toml::node *s = kt.get("source")) {
    if (!s->is_string())
      return file.expected(*s, "source", "a file name (a string)");
    sources.emplace_back(s->as_string()->get(), s);
  } else {
    KB_ASSIGN_OR_RETURN(sources, file.strings(kt, "sources"));
  }
  if (sources.empty())
    return invalidArgument(file.where(kt.source()) +
                           ": [kernel] names no source: expected `source = "
                           "\"k.cu\"` or `sources = [\"k.cu\", \"k.comp\"]`");
  return sources;
}

/// A `defines` name a source #defines itself, unguarded, is not set by the
/// -D: nvcc warns of the redefinition and builds the source's value, so the
/// kernel built is not the one declared (and a launch shape computed from
/// the define does not match it). The sources are scanned as text
/// (hardcoded_define.h) when the kernel.toml is read, before any build:
/// nvcc's warning would come only after a compile, per target, and glslang
/// makes it an error of its own wording.
Status checkDefinesSettable(const TomlFile &file, const toml::table &kt,
                            const Kernel &kernel) {
  const toml::node *table = kt.get("defines");
  if (!table || !table->is_table())
    return okStatus();
  for (auto &&[key, value] : *table->as_table())
    for (const KernelSpec &spec : kernel.specs) {
      std::string name(key.str());
      StatusOr<std::string> text = readFile(spec.source);
      std::optional<size_t> line =
          text.ok() ? unguardedDefineLine(*text, name) : std::nullopt;
      if (!line)
        continue;
      return invalidArgument(
          file.where(key.source()) + ": `defines`: `" + name +
          "` cannot be set: " + displayPath(spec.source) + ":" +
          std::to_string(*line) + " #defines it itself, which overrides -D" +
          name +
          " (nvcc only warns of the redefinition), so the kernel built would "
          "not be the one declared; make that line a default a define can "
          "replace: `#ifndef " +
          name + "` / `#define " + name + " ...` / `#endif`, or remove `" +
          name + "` from `defines`");
    }
  return okStatus();
}

/// `[kernel.defines]`: macro name -> string or integer value.
StatusOr<std::vector<std::pair<std::string, std::string>>>
readDefines(const TomlFile &file, const toml::table &kt) {
  std::vector<std::pair<std::string, std::string>> defines;
  KB_ASSIGN_OR_RETURN(const toml::table *defineTable,
                      file.table(kt, "defines"));
  if (!defineTable)
    return defines;
  for (auto &&[key, value] : *defineTable) {
    std::string k(key.str());
    if (!isIdentifier(k))
      return invalidArgument(file.where(key.source()) + ": `defines`: `" + k +
                             "` is not a valid macro name");
    if (const auto *s = value.as_string())
      defines.emplace_back(k, s->get());
    else if (const auto *i = value.as_integer())
      defines.emplace_back(k, std::to_string(i->get()));
    else
      return file.expected(value, "defines." + k, "a string or an integer");
  }
  return defines;
}

/// `include_dirs`, relative to the kernel.toml; each must exist.
StatusOr<std::vector<fs::path>> readIncludeDirs(const TomlFile &file,
                                                const toml::table &kt) {
  std::vector<fs::path> includeDirs;
  KB_ASSIGN_OR_RETURN(auto includes, file.strings(kt, "include_dirs"));
  for (const auto &[text, node] : includes) {
    fs::path dir = (file.dir() / text).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      return file.error(*node, "`include_dirs`: directory `" + text +
                                   "` not found (looked for " +
                                   displayPath(dir) + ")");
    includeDirs.push_back(dir);
  }
  return includeDirs;
}

/// `[kernel.flags]`: tool name -> extra arguments.
StatusOr<std::map<std::string, std::vector<std::string>>>
readToolFlags(const TomlFile &file, const toml::table &kt) {
  std::map<std::string, std::vector<std::string>> flags;
  KB_ASSIGN_OR_RETURN(const toml::table *flagTable, file.table(kt, "flags"));
  if (!flagTable)
    return flags;
  KB_RETURN_IF_ERROR(
      file.checkKeys(*flagTable, "[kernel.flags]", knownToolNames()));
  for (auto &&[key, value] : *flagTable) {
    KB_ASSIGN_OR_RETURN(auto list,
                        file.strings(*flagTable, std::string(key.str())));
    for (auto &item : list)
      flags[std::string(key.str())].push_back(item.first);
  }
  return flags;
}

/// What every source's spec shares: everything but the source, its language
/// and its entry.
StatusOr<KernelSpec> readCommonSpec(const TomlFile &file, const toml::table &kt,
                                    const Kernel &kernel) {
  KernelSpec spec;
  spec.name = kernel.name;
  KB_ASSIGN_OR_RETURN(auto spills, file.boolean(kt, "spills_are_errors"));
  KB_ASSIGN_OR_RETURN(auto optimize, file.boolean(kt, "optimize_spirv"));
  KB_ASSIGN_OR_RETURN(spec.defines, readDefines(file, kt));
  KB_ASSIGN_OR_RETURN(spec.includeDirs, readIncludeDirs(file, kt));
  KB_ASSIGN_OR_RETURN(spec.extraFlags, readToolFlags(file, kt));
  spec.spillsAreErrors = spills.value_or(false);
  spec.optimizeSpirv = optimize.value_or(false);
  spec.manifest = kernel.manifest;
  return spec;
}

/// One spec per source, from |common|; at most one source per language.
Status addSources(const TomlFile &file, const NamedNodes &sources,
                  const KernelSpec &common,
                  const std::optional<std::string> &entry, Kernel &kernel) {
  for (const auto &[text, node] : sources) {
    fs::path source = (file.dir() / text).lexically_normal();
    std::optional<Language> language = languageOf(source);
    if (!language)
      return file.error(*node, "source `" + text +
                                   "`: unknown language: expected a `.cu` "
                                   "(CUDA), `.glsl` or `.comp` (GLSL) file");
    std::error_code ec;
    if (!fs::is_regular_file(source, ec))
      return file.error(*node, "source file `" + text +
                                   "` not found (looked for " +
                                   displayPath(source) + ")");
    for (const KernelSpec &other : kernel.specs)
      if (other.language == *language)
        return file.error(
            *node, std::string("a second ") +
                       (*language == Language::Cuda ? "CUDA" : "GLSL") +
                       " source `" + text +
                       "`: a kernel has at most one "
                       "source per language (each builds its own targets); "
                       "put the other one in its own kernel directory");
    KernelSpec spec = common;
    spec.source = source;
    spec.language = *language;
    spec.entry =
        *language == Language::Glsl ? "main" : entry.value_or(kernel.name);
    spec.abi.entry = spec.entry;
    // GLSL binds by binding number and push-constant offset, not order.
    if (*language == Language::Glsl)
      spec.abi.parameterOrder.clear();
    kernel.specs.push_back(std::move(spec));
  }
  return okStatus();
}

/// `[abi] parameters` orders a CUDA kernel's parameters; a kernel with no
/// CUDA source has nothing it could order.
Status checkParametersHaveCuda(const TomlFile &file,
                               const toml::table &abiTable,
                               const Kernel &kernel) {
  const toml::node *node = abiTable.get("parameters");
  if (!node)
    return okStatus();
  for (const KernelSpec &spec : kernel.specs)
    if (spec.language == Language::Cuda)
      return okStatus();
  return file.error(*node, "parameters orders a CUDA kernel's parameters, but "
                           "`sources` has no .cu; GLSL binds by binding "
                           "number and push-constant offset: remove it");
}

/// A target the kernel itself asks for must have a source that builds it.
Status checkDeclaredTargets(const TomlFile &file, const toml::table &kt,
                            const std::vector<Target> &declared,
                            const Kernel &kernel) {
  for (size_t i = 0; i < declared.size(); ++i) {
    const Target &target = declared[i];
    if (!kernel.specFor(target))
      return file.error(
          *kt.get("targets")->as_array()->get(i),
          "target " + target.toString() + " needs a " +
              (target.isCuda() ? "CUDA (.cu)" : "GLSL (.glsl/.comp)") +
              " source, but `sources` has none; add one or drop the target");
  }
  return okStatus();
}

/// KernelDeclared::hostReference from [bench]'s C/C++ reference: the
/// function (its `entry`, else the kernel's name) and where the build puts
/// the shared object.
Status declareHostReference(const TomlFile &file, const toml::table &table,
                            bool tuneOnly, const DeclaredBench &bench,
                            Kernel &kernel) {
  if (bench.hostReference.empty())
    return okStatus();
  if (tuneOnly)
    return file.error(table, "[bench] of a kernel that `substitutes` `" +
                                 kernel.substitutes +
                                 "` is what `tune` measures; a host "
                                 "reference applies to standalone kernels");
  bench::HostReferenceDecl host;
  host.source = displayPath(bench.hostReference);
  host.function =
      bench.referenceEntry.empty() ? kernel.name : bench.referenceEntry;
  bool identifier = !host.function.empty() &&
                    !std::isdigit(static_cast<unsigned char>(host.function[0]));
  for (char c : host.function)
    identifier &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  if (!identifier)
    return file.error(table, "[bench] `reference` " + host.source +
                                 ": the function defaults to the kernel's "
                                 "name, `" +
                                 host.function +
                                 "`, which is not a C identifier; name it: "
                                 "reference = { sources = [\"" +
                                 bench.hostReference.filename().string() +
                                 "\"], entry = \"my_reference\" }");
  host.stored =
      "standalone/" + kernel.name + "/reference/" + kernel.name + ".so";
  kernel.declared.hostReference = std::move(host);
  return okStatus();
}

/// Makes |kernel| the copy of its sweep point (the values |bench| holds for
/// its swept constants): Kernel::declared's sweep, and the point's name for
/// the kernel and its sources.
void nameSweepPoint(const KernelAbi &abi, const DeclaredBench &bench,
                    Kernel &kernel) {
  bench::SweepPoint &point = kernel.declared.sweep;
  point.kernel = kernel.name;
  for (const auto &[name, values] : bench.sweep)
    for (size_t i = 0; i < abi.constants.size(); ++i)
      if (abi.constants[i].name == name) {
        int64_t value = 0;
        const std::string &text = bench.constantValues[i];
        std::from_chars(text.data(), text.data() + text.size(), value);
        point.values.emplace_back(name, value);
      }
  kernel.name = sweepPointName(point);
  for (KernelSpec &spec : kernel.specs)
    spec.name = kernel.name;
}

/// Why a kernel with struct bindings (`type = "struct"`) cannot be what
/// it asks to be, at the first such binding's `type`: one that substitutes
/// a program dispatch (whose bindings are arrays of scalars), a CUDA
/// source (the layout is read from SPIR-V), or a standalone kernel with a
/// reference other than a GLSL twin (the others hold arrays of scalars) or
/// a fixed input.
Status checkStructBindings(const TomlFile &file, const toml::table &abiTable,
                           const KernelAbi &abi, const Kernel &kernel) {
  size_t i = 0;
  while (i < abi.bindings.size() && !abi.bindings[i].structLayout)
    ++i;
  if (i == abi.bindings.size())
    return okStatus();
  const toml::node &where =
      *abiTable.get("bindings")->as_array()->get(i)->as_table()->get("type");
  std::string label = describeBinding(abi, i) + " is type = \"struct\"";
  if (!kernel.substitutes.empty())
    return file.error(
        where, label + " and the kernel `substitutes` `" + kernel.substitutes +
                   "`: a program dispatch's bindings are arrays of scalars, "
                   "so a struct-element kernel can only be benchmarked "
                   "standalone ([bench]); remove `substitutes` or declare "
                   "the binding's scalar type");
  for (const KernelSpec &spec : kernel.specs)
    if (spec.language == Language::Cuda)
      return file.error(where, label +
                                   ", whose layout is read from a GLSL "
                                   "kernel's SPIR-V; " +
                                   displayPath(spec.source) +
                                   " is CUDA, which takes a pointer to "
                                   "scalars (declare a scalar type)");
  const DeclaredBench *bench = kernel.bench ? &*kernel.bench : nullptr;
  if (bench && (!bench->reference.empty() || !bench->hostReference.empty() ||
                !kernel.declared.expectedOutputs.empty()))
    return file.error(where, label + ", and its reference would hold arrays "
                                     "of scalars (an MLIR kb.executable, a "
                                     "C/C++ function's pointers, .npy "
                                     "arrays); give a GLSL twin with the "
                                     "same struct (`reference = "
                                     "\"naive.comp\"`), compared member by "
                                     "member, or none (run and timed)");
  for (const bench::FixedArray &a : kernel.declared.fixedInputs)
    if (a.binding == i)
      return file.error(where, label + ": its input cannot come from a .npy "
                                       "file, which holds an array of "
                                       "scalars; use `uniform`, `normal`, "
                                       "`constant` or `range`");
  return okStatus();
}

/// Why a kernel that `substitutes` a program dispatch cannot declare
/// constants that are array entries (`count`) or struct members (a dotted
/// name), at the first such constant.
Status checkAggregateConstants(const TomlFile &file,
                               const toml::table &abiTable,
                               const Kernel &kernel) {
  if (kernel.substitutes.empty())
    return okStatus();
  const toml::array *declared = abiTable.get("constants")
                                    ? abiTable.get("constants")->as_array()
                                    : nullptr;
  for (size_t i = 0; declared && i < declared->size(); ++i) {
    const toml::table *t = declared->get(i)->as_table();
    const toml::node *name = t ? t->get("name") : nullptr;
    bool dotted = name && name->is_string() &&
                  name->as_string()->get().find('.') != std::string::npos;
    if (!t || (!t->get("count") && !dotted))
      continue;
    return file.error(*(t->get("count") ? t->get("count") : name),
                      "`constants[" + std::to_string(i) +
                          "]` is an array or a struct member, and the kernel "
                          "`substitutes` `" +
                          kernel.substitutes +
                          "`: a program dispatch's constants are its "
                          "export's scalars (`kernel-bench abi` lists them), "
                          "so a push-constant block of arrays or structs "
                          "can only be benchmarked standalone ([bench]); "
                          "declare the export's scalars");
  }
  return okStatus();
}

/// `[bench]`, only for a standalone kernel.
Status readBench(const TomlFile &file, const toml::table &root,
                 const std::optional<std::string> &entry, const KernelAbi &abi,
                 Kernel &kernel, const ProblemSize *problem) {
  KB_ASSIGN_OR_RETURN(const toml::table *benchTable, file.table(root, "bench"));
  if (!benchTable)
    return okStatus();
  // A substituting kernel with [tune] is tuned standalone with its [bench].
  const bool tuneOnly = !kernel.substitutes.empty() && root.get("tune");
  if (!kernel.substitutes.empty() && !tuneOnly)
    return file.error(*benchTable,
                      "[bench] is for a standalone kernel, but this one "
                      "`substitutes` `" +
                          kernel.substitutes +
                          "`: the program's dispatches give its "
                          "benchmarks; remove one of the two (with [tune], "
                          "[bench] is what `kernel-bench tune` measures)");
  DeclaredBench bench;
  // A template entry is benchmarked under its template's name; the
  // instance it names differs per configuration.
  bench.exportName = entryExportName(entry.value_or(kernel.name));
  std::map<std::string, int64_t> specialization;
  for (const KernelSpec &spec : kernel.specs)
    for (const SpecializationSetting &s : spec.specialization) {
      int64_t value = 0;
      auto [end, ec] = std::from_chars(s.value.data(),
                                       s.value.data() + s.value.size(), value);
      if (ec == std::errc() && end == s.value.data() + s.value.size())
        specialization.emplace(s.key, value);
    }
  bench::KernelDeclared fixed;
  KB_RETURN_IF_ERROR(parseBench(file, *benchTable, abi, bench, problem,
                                specialization, fixed));
  // Loaded at a problem size, a swept kernel is that point's copy: its own
  // name (and so its own output directories) before anything is named
  // after it.
  if (problem && !bench.sweep.empty())
    nameSweepPoint(abi, bench, kernel);
  if (tuneOnly && !(fixed.fixedInputs.empty() && fixed.expectedOutputs.empty()))
    return file.error(*benchTable,
                      "[bench] of a kernel that `substitutes` `" +
                          kernel.substitutes +
                          "` is what `tune` measures, and it cannot use .npy "
                          "files (`file`, `reference.outputs`): they apply "
                          "to standalone kernels");
  for (bench::FixedArray &a : fixed.fixedInputs)
    a.stored = storedFixedPath(kernel.name, false, a);
  for (bench::FixedArray &a : fixed.expectedOutputs)
    a.stored = storedFixedPath(kernel.name, true, a);
  kernel.declared.fixedInputs = std::move(fixed.fixedInputs);
  kernel.declared.expectedOutputs = std::move(fixed.expectedOutputs);
  KB_RETURN_IF_ERROR(
      declareHostReference(file, *benchTable, tuneOnly, bench, kernel));
  if (!bench.axes.empty() && !root.get("tune"))
    return file.error(*benchTable,
                      "[bench] constants `" + bench.axes.front().first +
                          "` is a list: lists sweep the problem size for "
                          "`kernel-bench tune`, but this kernel has no "
                          "[tune]; give one value");
  (tuneOnly ? kernel.tuneBench : kernel.bench) = std::move(bench);
  return okStatus();
}

/// Kernel::referenceSpecs from [bench]'s twin sources: each a copy of the
/// kernel's own (resolved) spec of its language, so the twin builds with
/// the same [abi], defines, include directories and [specialization].
Status makeReferenceSpecs(Kernel &kernel) {
  if (!kernel.bench || kernel.bench->referenceSources.empty())
    return okStatus();
  const std::string where =
      displayPath(kernel.manifest) + ": [bench] `reference`: ";
  auto name = [](Language l) {
    return std::string(l == Language::Cuda ? "CUDA" : "GLSL");
  };
  for (const fs::path &source : kernel.bench->referenceSources) {
    Language language = *languageOf(source);
    const KernelSpec *own = nullptr;
    for (const KernelSpec &spec : kernel.specs)
      if (spec.language == language)
        own = &spec;
    if (!own)
      return invalidArgument(where + displayPath(source) + " is " +
                             name(language) +
                             " but the kernel has no source of that "
                             "language; a twin reference builds for the "
                             "kernel's targets like its own source");
    for (const KernelSpec &other : kernel.referenceSpecs)
      if (other.language == language)
        return invalidArgument(where + "two " + name(language) +
                               " twin sources; give one per language");
    KernelSpec twin = *own;
    twin.name = kernel.name + "@reference";
    twin.source = source;
    twin.tunedFor.clear();
    if (language == Language::Cuda && !kernel.bench->referenceEntry.empty()) {
      twin.entry = twin.abi.entry = kernel.bench->referenceEntry;
      twin.templateInstance.clear();
    }
    kernel.referenceSpecs.push_back(std::move(twin));
  }
  for (const KernelSpec &spec : kernel.specs)
    if (!std::any_of(
            kernel.referenceSpecs.begin(), kernel.referenceSpecs.end(),
            [&](const KernelSpec &t) { return t.language == spec.language; }))
      return invalidArgument(where + "the kernel has a " + name(spec.language) +
                             " source but the twin none; give the twin a "
                             "source of each language the kernel has");
  return okStatus();
}

} // namespace

StatusOr<Kernel> loadKernel(const fs::path &manifestIn,
                            const std::vector<Target> &defaultTargets,
                            std::string *nameWhere,
                            const ProblemSize *problem) {
  const fs::path manifest = absoluteNormal(manifestIn);
  TomlFile file(manifest);
  toml::table root;
  KB_RETURN_IF_ERROR(file.load(root));
  KB_RETURN_IF_ERROR(file.checkKeys(root, "kernel.toml", kKernelFileKeys));

  KB_ASSIGN_OR_RETURN(const toml::table *kt, file.table(root, "kernel"));
  if (!kt)
    return invalidArgument(displayPath(manifest) +
                           ": missing [kernel] table (name, sources, entry, "
                           "...); see kernels/README.md");
  KB_RETURN_IF_ERROR(file.checkKeys(*kt, "[kernel]", kKernelKeys));
  KB_ASSIGN_OR_RETURN(const toml::table *abiTable, file.table(root, "abi"));
  if (!abiTable)
    return invalidArgument(
        displayPath(manifest) +
        ": missing [abi] table: every kernel declares the slot it fits "
        "(workgroup_size, bindings, constants); see kernels/README.md");

  Kernel kernel;
  kernel.manifest = manifest;
  KB_RETURN_IF_ERROR(readKernelName(file, *kt, kernel, nameWhere));
  KB_ASSIGN_OR_RETURN(NamedNodes sources, readSourceNames(file, *kt));
  KB_ASSIGN_OR_RETURN(auto entry, file.string(*kt, "entry"));
  KB_ASSIGN_OR_RETURN(auto substitutes, file.string(*kt, "substitutes"));
  kernel.substitutes = substitutes.value_or("");
  kernel.entry = entry.value_or("");
  KB_ASSIGN_OR_RETURN(KernelSpec common, readCommonSpec(file, *kt, kernel));
  KB_RETURN_IF_ERROR(parseAbi(file, *abiTable, common.abi));

  KB_ASSIGN_OR_RETURN(auto declared, file.targets(*kt));
  kernel.declaresTargets = declared.has_value();
  kernel.targets = declared ? *declared : defaultTargets;

  KB_RETURN_IF_ERROR(addSources(file, sources, common, entry, kernel));
  KB_RETURN_IF_ERROR(checkDefinesSettable(file, *kt, kernel));
  KB_RETURN_IF_ERROR(checkParametersHaveCuda(file, *abiTable, kernel));
  KB_ASSIGN_OR_RETURN(const toml::table *benchTable, file.table(root, "bench"));
  KB_RETURN_IF_ERROR(readLaunch(file, *abiTable, benchTable, kernel));
  if (declared)
    KB_RETURN_IF_ERROR(checkDeclaredTargets(file, *kt, *declared, kernel));
  KB_RETURN_IF_ERROR(readPipelineSettings(file, root, *kt, *abiTable, kernel));
  KB_RETURN_IF_ERROR(readTune(file, root, *kt, kernel));
  if (const toml::node *entryNode = kt->get("entry"))
    KB_RETURN_IF_ERROR(checkTemplateEntry(file, *entryNode, kernel));
  KB_RETURN_IF_ERROR(readBench(file, root, entry, common.abi, kernel, problem));
  KB_RETURN_IF_ERROR(checkStructBindings(file, *abiTable, common.abi, kernel));
  KB_RETURN_IF_ERROR(checkAggregateConstants(file, *abiTable, kernel));
  KB_RETURN_IF_ERROR(checkLaunchCoversWorkload(kernel));
  KB_RETURN_IF_ERROR(
      readDeclared(file, root, common.abi, common.defines, kernel));
  applyTuneDefaults(kernel);
  KB_RETURN_IF_ERROR(applyTunedFile(kernel));
  if (Status launch = resolveLaunch(kernel); !launch.ok()) {
    fs::path tuned = manifest.parent_path() / "tuned.toml";
    std::error_code ec;
    if (!fs::exists(tuned, ec))
      return launch;
    return invalidArgument(launch.message() + "; the tuned values are " +
                           displayPath(tuned) +
                           "'s, where it has an entry for the source's "
                           "backend, else [tune]'s defaults");
  }
  KB_RETURN_IF_ERROR(makeReferenceSpecs(kernel));
  return kernel;
}

const std::vector<std::string> &knownToolNames() {
  static const std::vector<std::string> names = {"nvcc", "ptxas", "glslc",
                                                 "spirv-val", "spirv-opt"};
  return names;
}

} // namespace kb::workbench

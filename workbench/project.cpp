//===- workbench/project.cpp - workbench.toml + kernel.toml model ---------===//
#include "workbench/project.h"

#include "workbench/spelling.h"

#include "toolchains/toolchains.h"

#include <toml++/toml.h>

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace kb::workbench {

using toolchains::KernelSpec;
using toolchains::Language;
using toolchains::Target;

namespace {

const char *typeName(const toml::node &node) {
  switch (node.type()) {
  case toml::node_type::table:
    return "a table";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a float";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::date:
    return "a date";
  case toml::node_type::time:
    return "a time";
  case toml::node_type::date_time:
    return "a date-time";
  case toml::node_type::none:
    break;
  }
  return "nothing";
}

/// Describes a found value for "expected X, found Y" messages: the type and,
/// for short scalars, the value itself.
std::string describe(const toml::node &node) {
  std::ostringstream out;
  out << typeName(node);
  if (const auto *s = node.as_string())
    out << " \"" << s->get() << "\"";
  else if (const auto *i = node.as_integer())
    out << " (" << i->get() << ")";
  else if (const auto *a = node.as_array())
    out << " of " << a->size() << " element" << (a->size() == 1 ? "" : "s");
  return out.str();
}

std::string joinQuoted(const std::vector<std::string> &words) {
  std::string out;
  for (const std::string &w : words) {
    if (!out.empty())
      out += ", ";
    out += "`" + w + "`";
  }
  return out;
}

/// Reads one TOML file and produces located errors for it. Messages start
/// with `file:line:col:` so editors can jump to them.
class TomlFile {
public:
  explicit TomlFile(fs::path path) : path_(std::move(path)) {}

  const fs::path &path() const { return path_; }
  fs::path dir() const { return path_.parent_path(); }

  Status load(toml::table &out) {
    std::ifstream in(path_, std::ios::binary);
    if (!in)
      return notFound(displayPath(path_) +
                      ": cannot read the file: " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    try {
      out = toml::parse(text.str(), displayPath(path_));
    } catch (const toml::parse_error &e) {
      return invalidArgument(where(e.source()) + ": malformed TOML: " +
                             std::string(e.description()));
    }
    return okStatus();
  }

  std::string where(const toml::source_region &region) const {
    std::string out = displayPath(path_);
    if (region.begin.line != 0)
      out += ":" + std::to_string(region.begin.line) + ":" +
             std::to_string(region.begin.column);
    return out;
  }

  Status error(const toml::node &node, const std::string &message) const {
    return invalidArgument(where(node.source()) + ": " + message);
  }

  /// "expected X, found Y" at |node| for key |key|.
  Status expected(const toml::node &node, const std::string &key,
                  const std::string &what) const {
    return error(node, "`" + key + "`: expected " + what + ", found " +
                           describe(node));
  }

  /// Every key of |table| must be in |valid|.
  Status checkKeys(const toml::table &table, const std::string &tableName,
                   const std::vector<std::string> &valid) const {
    for (auto &&[key, node] : table) {
      std::string k(key.str());
      if (std::find(valid.begin(), valid.end(), k) != valid.end())
        continue;
      std::string message =
          where(key.source()) + ": unknown key `" + k + "` in " + tableName;
      if (auto near = nearestSpelling(k, valid))
        message += "; did you mean `" + *near + "`?";
      else
        message += "; valid keys: " + joinQuoted(valid);
      return invalidArgument(message);
    }
    return okStatus();
  }

  /// The table at |key| of |parent|, or nullptr when absent.
  StatusOr<const toml::table *> table(const toml::table &parent,
                                      const std::string &key) const {
    const toml::node *node = parent.get(key);
    if (!node)
      return static_cast<const toml::table *>(nullptr);
    if (!node->is_table())
      return expected(*node, key, "a table");
    return node->as_table();
  }

  StatusOr<std::optional<std::string>> string(const toml::table &table,
                                              const std::string &key) const {
    const toml::node *node = table.get(key);
    if (!node)
      return std::optional<std::string>();
    if (!node->is_string())
      return expected(*node, key, "a string");
    return std::optional<std::string>(node->as_string()->get());
  }

  StatusOr<std::optional<bool>> boolean(const toml::table &table,
                                        const std::string &key) const {
    const toml::node *node = table.get(key);
    if (!node)
      return std::optional<bool>();
    if (!node->is_boolean())
      return expected(*node, key, "true or false");
    return std::optional<bool>(node->as_boolean()->get());
  }

  /// An integer in [min, max].
  StatusOr<std::optional<int64_t>> integer(const toml::table &table,
                                           const std::string &key, int64_t min,
                                           int64_t max,
                                           const std::string &what) const {
    const toml::node *node = table.get(key);
    if (!node)
      return std::optional<int64_t>();
    if (!node->is_integer() || node->as_integer()->get() < min ||
        node->as_integer()->get() > max)
      return expected(*node, key, what);
    return std::optional<int64_t>(node->as_integer()->get());
  }

  /// An array of strings; each element is returned with its node for
  /// located errors about individual elements.
  StatusOr<std::vector<std::pair<std::string, const toml::node *>>>
  strings(const toml::table &table, const std::string &key) const {
    std::vector<std::pair<std::string, const toml::node *>> out;
    const toml::node *node = table.get(key);
    if (!node)
      return out;
    const toml::array *array = node->as_array();
    if (!array)
      return expected(*node, key, "an array of strings");
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node &element = *array->get(i);
      if (!element.is_string())
        return expected(element, key + "[" + std::to_string(i) + "]",
                        "a string");
      out.emplace_back(element.as_string()->get(), &element);
    }
    return out;
  }

  /// `targets = [...]`, each parsed by Target::parse.
  StatusOr<std::optional<std::vector<Target>>>
  targets(const toml::table &table) const {
    if (!table.get("targets"))
      return std::optional<std::vector<Target>>();
    KB_ASSIGN_OR_RETURN(auto texts, strings(table, "targets"));
    std::vector<Target> out;
    for (size_t i = 0; i < texts.size(); ++i) {
      StatusOr<Target> target = Target::parse(texts[i].first);
      if (!target.ok())
        return error(*texts[i].second, "`targets[" + std::to_string(i) +
                                           "]`: " + target.status().message());
      if (std::find(out.begin(), out.end(), *target) == out.end())
        out.push_back(*target);
    }
    return std::optional<std::vector<Target>>(std::move(out));
  }

private:
  fs::path path_;
};

fs::path absoluteNormal(const fs::path &path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  return (ec ? path : abs).lexically_normal();
}

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

std::optional<Language> languageOf(const fs::path &source) {
  std::string ext = source.extension().string();
  if (ext == ".cu")
    return Language::Cuda;
  if (ext == ".glsl" || ext == ".comp")
    return Language::Glsl;
  return std::nullopt;
}

bool covers(Language language, const Target &target) {
  return (language == Language::Cuda) == (target.kind == Target::Kind::Cuda);
}

const std::vector<std::string> kKernelKeys = {
    "name",           "source",      "sources",
    "entry",          "targets",     "defines",
    "include_dirs",   "substitutes", "spills_are_errors",
    "optimize_spirv", "flags"};
const std::vector<std::string> kKernelFileKeys = {"kernel", "abi", "bench"};
const std::vector<std::string> kBenchKeys = {
    "workload", "workload_per_workgroup", "constants", "elements", "reference"};
const std::vector<std::string> kAbiKeys = {
    "workgroup_size", "dynamic_shared_memory", "bindings", "constants"};
const std::vector<std::string> kBindingKeys = {"name", "type", "access"};
const std::vector<std::string> kConstantKeys = {"name", "type"};
const std::vector<std::string> kProjectFileKeys = {"project", "build",
                                                   "toolchains"};
const std::vector<std::string> kProjectKeys = {"name", "program", "kernels",
                                               "targets", "output_dir"};
const std::vector<std::string> kBuildKeys = {"jobs", "timeout", "cache_dir"};

Status parseAbi(const TomlFile &file, const toml::table &abiTable,
                KernelAbi &abi) {
  KB_RETURN_IF_ERROR(file.checkKeys(abiTable, "[abi]", kAbiKeys));

  const toml::node *wg = abiTable.get("workgroup_size");
  if (!wg)
    return invalidArgument(
        file.where(abiTable.source()) +
        ": [abi] is missing `workgroup_size`: expected an array of 3 positive "
        "integers, e.g. workgroup_size = [256, 1, 1]");
  const toml::array *dims = wg->as_array();
  const char *wgExpected = "an array of 3 positive integers (x, y, z)";
  if (!dims || dims->size() != 3)
    return file.expected(*wg, "workgroup_size", wgExpected);
  for (size_t i = 0; i < 3; ++i) {
    const toml::node &d = *dims->get(i);
    if (!d.is_integer() || d.as_integer()->get() <= 0 ||
        d.as_integer()->get() > std::numeric_limits<uint32_t>::max())
      return file.expected(d, "workgroup_size[" + std::to_string(i) + "]",
                           "a positive integer");
    abi.workgroupSize[i] = static_cast<uint32_t>(d.as_integer()->get());
  }

  KB_ASSIGN_OR_RETURN(auto shared,
                      file.integer(abiTable, "dynamic_shared_memory", 0,
                                   std::numeric_limits<uint32_t>::max(),
                                   "a byte count (a non-negative integer)"));
  abi.dynamicSharedMemoryBytes = static_cast<uint32_t>(shared.value_or(0));

  auto tableArray =
      [&](const std::string &key) -> StatusOr<const toml::array *> {
    const toml::node *node = abiTable.get(key);
    if (!node)
      return static_cast<const toml::array *>(nullptr);
    const toml::array *array = node->as_array();
    if (!array)
      return file.expected(*node, key, "an array of tables");
    for (size_t i = 0; i < array->size(); ++i)
      if (!array->get(i)->is_table())
        return file.expected(*array->get(i),
                             key + "[" + std::to_string(i) + "]",
                             "a table like { name = \"x\", type = \"f32\" }");
    return array;
  };

  KB_ASSIGN_OR_RETURN(const toml::array *bindings, tableArray("bindings"));
  for (size_t i = 0; bindings && i < bindings->size(); ++i) {
    const toml::table &t = *bindings->get(i)->as_table();
    std::string key = "bindings[" + std::to_string(i) + "]";
    KB_RETURN_IF_ERROR(file.checkKeys(t, key, kBindingKeys));
    Binding binding;
    KB_ASSIGN_OR_RETURN(auto name, file.string(t, "name"));
    binding.name = name.value_or("");
    const toml::node *type = t.get("type");
    if (!type)
      return file.error(*bindings->get(i),
                        "`" + key + "` is missing `type`: expected one of " +
                            validElementTypes());
    std::optional<ElementType> elementType;
    if (type->is_string())
      elementType = parseElementType(type->as_string()->get());
    if (!elementType)
      return file.expected(*type, key + ".type",
                           std::string("one of ") + validElementTypes());
    binding.elementType = *elementType;
    const toml::node *access = t.get("access");
    if (!access)
      return file.error(*bindings->get(i),
                        "`" + key + "` is missing `access`: expected one of " +
                            validAccesses());
    std::optional<Access> parsedAccess;
    if (access->is_string())
      parsedAccess = parseAccess(access->as_string()->get());
    if (!parsedAccess)
      return file.expected(*access, key + ".access",
                           std::string("one of ") + validAccesses());
    binding.access = *parsedAccess;
    abi.bindings.push_back(std::move(binding));
  }

  KB_ASSIGN_OR_RETURN(const toml::array *constants, tableArray("constants"));
  for (size_t i = 0; constants && i < constants->size(); ++i) {
    const toml::table &t = *constants->get(i)->as_table();
    std::string key = "constants[" + std::to_string(i) + "]";
    KB_RETURN_IF_ERROR(file.checkKeys(t, key, kConstantKeys));
    Constant constant;
    KB_ASSIGN_OR_RETURN(auto name, file.string(t, "name"));
    constant.name = name.value_or("");
    const toml::node *type = t.get("type");
    if (!type)
      return file.error(*constants->get(i),
                        "`" + key + "` is missing `type`: expected one of " +
                            validScalarTypes());
    std::optional<ScalarType> scalar;
    if (type->is_string())
      scalar = parseScalarType(type->as_string()->get());
    if (!scalar)
      return file.expected(*type, key + ".type",
                           std::string("one of ") + validScalarTypes());
    constant.type = *scalar;
    abi.constants.push_back(std::move(constant));
  }
  return okStatus();
}

/// Loads a kernel.toml; |nameWhere| receives the location that defines the
/// kernel's name (for duplicate-name errors).
/// A size in [bench]: a positive integer, or a string that multiplies
/// positive integers and integer constants by name ("M*K", "n").
StatusOr<int64_t> evaluateSize(const TomlFile &file, const toml::node &node,
                               const std::string &key,
                               const std::map<std::string, int64_t> &values) {
  const char *what = "a positive integer, or a product of integers and "
                     "integer [bench] constants such as \"M*K\"";
  if (const auto *i = node.as_integer()) {
    if (i->get() < 1)
      return file.expected(node, key, what);
    return i->get();
  }
  const auto *text = node.as_string();
  if (!text)
    return file.expected(node, key, what);
  const std::string &expression = text->get();
  int64_t product = 1;
  size_t start = 0;
  while (true) {
    size_t star = expression.find('*', start);
    std::string term = expression.substr(
        start, star == std::string::npos ? std::string::npos : star - start);
    size_t first = term.find_first_not_of(" \t");
    term = first == std::string::npos
               ? std::string()
               : term.substr(first, term.find_last_not_of(" \t") - first + 1);
    int64_t factor = 0;
    bool digits =
        !term.empty() && std::all_of(term.begin(), term.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
    if (digits) {
      factor = term.size() > 18 ? 0 : std::stoll(term);
    } else if (auto it = values.find(term); it != values.end()) {
      factor = it->second;
    } else {
      std::string known;
      for (const auto &[name, value] : values)
        known += (known.empty() ? "" : ", ") + name;
      return file.error(node, "`" + key + "`: `" + term +
                                  "` is neither a positive integer nor an "
                                  "integer constant of [bench] constants" +
                                  (known.empty() ? "" : " (" + known + ")"));
    }
    if (factor < 1 || product > std::numeric_limits<int64_t>::max() / factor)
      return file.expected(node, key, what);
    product *= factor;
    if (star == std::string::npos)
      break;
    start = star + 1;
  }
  return product;
}

/// `[bench]` (BenchSettings) against the kernel's parsed [abi].
Status parseBench(const TomlFile &file, const toml::table &table,
                  const KernelAbi &abi, BenchSettings &bench) {
  KB_RETURN_IF_ERROR(file.checkKeys(table, "[bench]", kBenchKeys));

  // Constants first: sizes may name them.
  std::map<std::string, int64_t> integerValues;
  KB_ASSIGN_OR_RETURN(const toml::table *constants,
                      file.table(table, "constants"));
  std::vector<std::string> constantNames;
  for (const Constant &c : abi.constants)
    constantNames.push_back(c.name);
  if (constants)
    KB_RETURN_IF_ERROR(
        file.checkKeys(*constants, "[bench] constants", constantNames));
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    const Constant &c = abi.constants[i];
    const toml::node *node =
        constants && !c.name.empty() ? constants->get(c.name) : nullptr;
    if (!node)
      return file.error(constants ? static_cast<const toml::node &>(*constants)
                                  : static_cast<const toml::node &>(table),
                        "[bench] constants: no value for constant " +
                            std::to_string(i) + " `" + c.name + "` (" +
                            toString(c.type) +
                            "); give every [abi] constant a value");
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
    const auto *n = node->as_integer();
    bool isUnsigned = c.type == ScalarType::U32 || c.type == ScalarType::U64;
    bool is32 = c.type == ScalarType::I32 || c.type == ScalarType::U32;
    int64_t min = isUnsigned ? 0 : (is32 ? INT32_MIN : INT64_MIN);
    int64_t max =
        is32 ? (isUnsigned ? int64_t(UINT32_MAX) : INT32_MAX) : INT64_MAX;
    if (!n || n->get() < min || n->get() > max)
      return file.expected(
          *node, key, std::string("an integer that fits ") + toString(c.type));
    bench.constantValues.push_back(std::to_string(n->get()));
    integerValues[c.name] = n->get();
  }

  // One element count per binding.
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

  for (const std::string key : {"workload", "workload_per_workgroup"}) {
    const toml::node *node = table.get(key);
    if (!node) {
      if (key == "workload")
        return file.error(table, "[bench] needs `workload = [...]`: 1 to 3 "
                                 "sizes, integers or products of integer "
                                 "constants such as \"n\"");
      continue;
    }
    const toml::array *array = node->as_array();
    if (!array || array->empty() || array->size() > 3)
      return file.expected(*node, key, "an array of 1 to 3 sizes");
    std::vector<int64_t> &out =
        key == "workload" ? bench.workload : bench.workloadPerWorkgroup;
    for (size_t i = 0; i < array->size(); ++i) {
      KB_ASSIGN_OR_RETURN(int64_t size,
                          evaluateSize(file, *array->get(i),
                                       key + "[" + std::to_string(i) + "]",
                                       integerValues));
      out.push_back(size);
    }
  }

  KB_ASSIGN_OR_RETURN(auto reference, file.string(table, "reference"));
  if (reference) {
    fs::path path = (file.dir() / *reference).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      return file.error(*table.get("reference"),
                        "`reference`: file `" + *reference +
                            "` not found (looked for " + displayPath(path) +
                            "); expected a .mlir holding the kb.executable "
                            "the kernel is checked against");
    bench.reference = path;
  }
  return okStatus();
}

StatusOr<Kernel> loadKernelImpl(const fs::path &manifestIn,
                                const std::vector<Target> &defaultTargets,
                                std::string *nameWhere) {
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

  KB_ASSIGN_OR_RETURN(auto name, file.string(*kt, "name"));
  kernel.name = name.value_or(manifest.parent_path().filename().string());
  if (nameWhere)
    *nameWhere = kt->get("name") ? file.where(kt->get("name")->source())
                                 : displayPath(manifest);
  if (!isValidKernelName(kernel.name)) {
    std::string message =
        "kernel name `" + kernel.name +
        "` is not valid: expected letters, digits, `_`, `-` or `.` "
        "(it names the output directory)";
    if (const toml::node *n = kt->get("name"))
      return file.error(*n, message);
    return invalidArgument(displayPath(manifest) + ": " + message +
                           "; set [kernel] name");
  }

  // Sources: `source = "x.cu"` or `sources = [...]`, never both.
  std::vector<std::pair<std::string, const toml::node *>> sources;
  if (kt->get("source") && kt->get("sources"))
    return file.error(*kt->get("sources"),
                      "[kernel] has both `source` and `sources`: use one");
  if (const toml::node *s = kt->get("source")) {
    if (!s->is_string())
      return file.expected(*s, "source", "a file name (a string)");
    sources.emplace_back(s->as_string()->get(), s);
  } else {
    KB_ASSIGN_OR_RETURN(sources, file.strings(*kt, "sources"));
  }
  if (sources.empty())
    return invalidArgument(file.where(kt->source()) +
                           ": [kernel] names no source: expected `source = "
                           "\"k.cu\"` or `sources = [\"k.cu\", \"k.comp\"]`");

  KB_ASSIGN_OR_RETURN(auto entry, file.string(*kt, "entry"));
  KB_ASSIGN_OR_RETURN(auto substitutes, file.string(*kt, "substitutes"));
  kernel.substitutes = substitutes.value_or("");
  KB_ASSIGN_OR_RETURN(auto spills, file.boolean(*kt, "spills_are_errors"));
  KB_ASSIGN_OR_RETURN(auto optimize, file.boolean(*kt, "optimize_spirv"));

  std::vector<std::pair<std::string, std::string>> defines;
  KB_ASSIGN_OR_RETURN(const toml::table *defineTable,
                      file.table(*kt, "defines"));
  if (defineTable) {
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
  }

  std::vector<fs::path> includeDirs;
  KB_ASSIGN_OR_RETURN(auto includes, file.strings(*kt, "include_dirs"));
  for (const auto &[text, node] : includes) {
    fs::path dir = (file.dir() / text).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      return file.error(*node, "`include_dirs`: directory `" + text +
                                   "` not found (looked for " +
                                   displayPath(dir) + ")");
    includeDirs.push_back(dir);
  }

  std::map<std::string, std::vector<std::string>> flags;
  KB_ASSIGN_OR_RETURN(const toml::table *flagTable, file.table(*kt, "flags"));
  if (flagTable) {
    KB_RETURN_IF_ERROR(
        file.checkKeys(*flagTable, "[kernel.flags]", knownToolNames()));
    for (auto &&[key, value] : *flagTable) {
      KB_ASSIGN_OR_RETURN(auto list,
                          file.strings(*flagTable, std::string(key.str())));
      for (auto &item : list)
        flags[std::string(key.str())].push_back(item.first);
    }
  }

  KernelAbi abi;
  KB_RETURN_IF_ERROR(parseAbi(file, *abiTable, abi));

  KB_ASSIGN_OR_RETURN(auto declared, file.targets(*kt));
  kernel.declaresTargets = declared.has_value();
  kernel.targets = declared ? *declared : defaultTargets;

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
    KernelSpec spec;
    spec.name = kernel.name;
    spec.source = source;
    spec.language = *language;
    spec.entry =
        *language == Language::Glsl ? "main" : entry.value_or(kernel.name);
    spec.defines = defines;
    spec.includeDirs = includeDirs;
    spec.extraFlags = flags;
    spec.spillsAreErrors = spills.value_or(false);
    spec.optimizeSpirv = optimize.value_or(false);
    spec.abi = abi;
    spec.abi.entry = spec.entry;
    spec.manifest = manifest;
    kernel.specs.push_back(std::move(spec));
  }

  // A target the kernel itself asks for must have a source that builds it.
  if (declared) {
    for (size_t i = 0; i < declared->size(); ++i) {
      const Target &target = (*declared)[i];
      if (!kernel.specFor(target))
        return file.error(
            *kt->get("targets")->as_array()->get(i),
            "target " + target.toString() + " needs a " +
                (target.kind == Target::Kind::Cuda ? "CUDA (.cu)"
                                                   : "GLSL (.glsl/.comp)") +
                " source, but `sources` has none; add one or drop the target");
    }
  }
  KB_ASSIGN_OR_RETURN(const toml::table *benchTable, file.table(root, "bench"));
  if (benchTable) {
    if (!kernel.substitutes.empty())
      return file.error(*benchTable,
                        "[bench] is for a standalone kernel, but this one "
                        "`substitutes` `" +
                            kernel.substitutes +
                            "`: the program's dispatches give its "
                            "benchmarks; remove one of the two");
    BenchSettings bench;
    bench.exportName = entry.value_or(kernel.name);
    KB_RETURN_IF_ERROR(parseBench(file, *benchTable, abi, bench));
    kernel.bench = std::move(bench);
  }
  return kernel;
}

/// Escapes glob metacharacters in a literal path prefix.
std::string escapeGlob(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

bool hasGlobChars(const std::string &text) {
  return text.find_first_of("*?[") != std::string::npos;
}

/// Every kernel.toml below |dir| (the default when `kernels` is absent),
/// skipping hidden directories and the output directory.
std::vector<fs::path> findKernelManifests(const fs::path &dir,
                                          const fs::path &outputDir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path &p = it->path();
    if (it->is_directory(ec) &&
        (p.filename().string().rfind('.', 0) == 0 || p == outputDir)) {
      it.disable_recursion_pending();
      continue;
    }
    if (p.filename() == "kernel.toml" && it->is_regular_file(ec))
      out.push_back(p.lexically_normal());
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

const KernelSpec *Kernel::specFor(const Target &target) const {
  for (const KernelSpec &spec : specs)
    if (covers(spec.language, target))
      return &spec;
  return nullptr;
}

const std::vector<std::string> &knownToolNames() {
  static const std::vector<std::string> names = {"nvcc", "ptxas", "glslc",
                                                 "spirv-val", "spirv-opt"};
  return names;
}

std::string displayPath(const fs::path &path) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec || path.is_relative())
    return path.string();
  fs::path rel = path.lexically_normal().lexically_relative(cwd);
  if (rel.empty() || *rel.begin() == "..")
    return path.lexically_normal().string();
  return rel.string();
}

StatusOr<Kernel> loadKernel(const fs::path &manifest,
                            const std::vector<Target> &defaultTargets) {
  return loadKernelImpl(manifest, defaultTargets, nullptr);
}

StatusOr<Project> loadProject(const fs::path &directoryIn) {
  Project project;
  project.directory = absoluteNormal(directoryIn);
  project.manifest = project.directory / "workbench.toml";
  std::error_code ec;
  if (!fs::is_directory(project.directory, ec))
    return notFound(displayPath(project.directory) +
                    ": project directory not found; pass the directory that "
                    "holds workbench.toml");
  if (!fs::exists(project.manifest, ec))
    return notFound(displayPath(project.manifest) +
                    ": no workbench.toml in the project directory; create one "
                    "(see kernels/README.md) or pass the right directory");

  TomlFile file(project.manifest);
  toml::table root;
  KB_RETURN_IF_ERROR(file.load(root));
  KB_RETURN_IF_ERROR(file.checkKeys(root, "workbench.toml", kProjectFileKeys));

  toml::table empty;
  KB_ASSIGN_OR_RETURN(const toml::table *pt, file.table(root, "project"));
  if (!pt)
    return invalidArgument(displayPath(project.manifest) +
                           ": missing [project] table (name, kernels, "
                           "targets); see kernels/README.md");
  KB_RETURN_IF_ERROR(file.checkKeys(*pt, "[project]", kProjectKeys));

  KB_ASSIGN_OR_RETURN(auto name, file.string(*pt, "name"));
  project.name = name.value_or(project.directory.filename().string());

  KB_ASSIGN_OR_RETURN(auto program, file.string(*pt, "program"));
  if (program) {
    fs::path path = (project.directory / *program).lexically_normal();
    if (!fs::is_regular_file(path, ec))
      return file.error(*pt->get("program"), "`program`: file `" + *program +
                                                 "` not found (looked for " +
                                                 displayPath(path) + ")");
    project.program = path;
  }

  KB_ASSIGN_OR_RETURN(auto targets, file.targets(*pt));
  project.targets = targets.value_or(std::vector<Target>());

  KB_ASSIGN_OR_RETURN(auto outputDir, file.string(*pt, "output_dir"));
  project.outputDir =
      (project.directory / outputDir.value_or("kb-out")).lexically_normal();

  KB_ASSIGN_OR_RETURN(const toml::table *bt, file.table(root, "build"));
  if (bt) {
    KB_RETURN_IF_ERROR(file.checkKeys(*bt, "[build]", kBuildKeys));
    KB_ASSIGN_OR_RETURN(auto jobs, file.integer(*bt, "jobs", 0, 1024,
                                                "a job count from 0 (all "
                                                "cores) to 1024"));
    project.build.jobs = static_cast<unsigned>(jobs.value_or(0));
    if (const toml::node *t = bt->get("timeout")) {
      std::optional<double> seconds;
      if (t->is_integer())
        seconds = static_cast<double>(t->as_integer()->get());
      else if (t->is_floating_point())
        seconds = t->as_floating_point()->get();
      if (!seconds || !(*seconds > 0))
        return file.expected(*t, "timeout", "a positive number of seconds");
      project.build.timeoutSeconds = seconds;
    }
    KB_ASSIGN_OR_RETURN(auto cacheDir, file.string(*bt, "cache_dir"));
    if (cacheDir && !cacheDir->empty())
      project.build.cacheDir =
          (project.directory / *cacheDir).lexically_normal();
  }

  KB_ASSIGN_OR_RETURN(const toml::table *tt, file.table(root, "toolchains"));
  if (tt) {
    KB_RETURN_IF_ERROR(file.checkKeys(*tt, "[toolchains]",
                                      toolchains::Toolchains::knownTools()));
    for (auto &&[key, value] : *tt) {
      if (!value.is_string() || value.as_string()->get().empty())
        return file.expected(value, std::string(key.str()),
                             "the path of the executable (a string)");
      // Relative to the project, like every other path in workbench.toml.
      fs::path path =
          (project.directory / value.as_string()->get()).lexically_normal();
      project.toolOverrides[std::string(key.str())] = path;
    }
  }

  // Kernel manifests: the `kernels` globs, else every kernel.toml below.
  std::vector<fs::path> manifests;
  if (pt->get("kernels")) {
    KB_ASSIGN_OR_RETURN(auto patterns, file.strings(*pt, "kernels"));
    std::set<fs::path> seen;
    for (const auto &[pattern, node] : patterns) {
      std::string full = escapeGlob(project.directory.string() + "/") + pattern;
      glob_t matches{};
      int rc = ::glob(full.c_str(), 0, nullptr, &matches);
      size_t found = 0;
      for (size_t i = 0; rc == 0 && i < matches.gl_pathc; ++i) {
        fs::path match = fs::path(matches.gl_pathv[i]).lexically_normal();
        fs::path manifest =
            fs::is_directory(match, ec) ? match / "kernel.toml" : match;
        if (manifest.filename() != "kernel.toml" ||
            !fs::is_regular_file(manifest, ec))
          continue;
        ++found;
        if (seen.insert(manifest).second)
          manifests.push_back(manifest);
      }
      ::globfree(&matches);
      if (found == 0)
        return file.error(*node,
                          "`kernels`: `" + pattern + "` " +
                              (hasGlobChars(pattern) ? "matches no directory"
                                                     : "is not a directory") +
                              " with a kernel.toml (looked in " +
                              displayPath(project.directory) + ")");
    }
  } else {
    manifests = findKernelManifests(project.directory, project.outputDir);
    if (manifests.empty())
      return invalidArgument(
          displayPath(project.manifest) +
          ": no kernel.toml found below the project directory; add kernel "
          "directories or set [project] kernels = [\"path/*\"]");
  }

  std::map<std::string, std::string> nameWhere;
  for (const fs::path &manifest : manifests) {
    std::string where;
    KB_ASSIGN_OR_RETURN(Kernel kernel,
                        loadKernelImpl(manifest, project.targets, &where));
    auto [it, inserted] = nameWhere.emplace(kernel.name, where);
    if (!inserted)
      return invalidArgument(where + ": duplicate kernel name `" + kernel.name +
                             "`: already defined at " + it->second +
                             "; kernel names must be unique (set [kernel] "
                             "name in one of them)");
    project.kernels.push_back(std::move(kernel));
  }
  std::sort(project.kernels.begin(), project.kernels.end(),
            [](const Kernel &a, const Kernel &b) { return a.name < b.name; });
  return project;
}

StatusOr<std::vector<PlannedJob>>
planJobs(const Project &project, const std::vector<Target> &requested) {
  std::vector<PlannedJob> jobs;
  std::set<Target> requestedUsed;
  for (const Kernel &kernel : project.kernels) {
    std::vector<Target> targets;
    if (requested.empty()) {
      targets = kernel.targets;
    } else if (kernel.declaresTargets) {
      for (const Target &t : kernel.targets)
        if (std::find(requested.begin(), requested.end(), t) != requested.end())
          targets.push_back(t);
    } else {
      targets = requested;
    }
    if (requested.empty() && targets.empty())
      return invalidArgument(
          displayPath(kernel.manifest) + ": kernel `" + kernel.name +
          "` has no targets: set `targets` in [project] of " +
          displayPath(project.manifest) + " or in [kernel], or pass --target");
    size_t before = jobs.size();
    for (const Target &target : targets) {
      if (const KernelSpec *spec = kernel.specFor(target)) {
        jobs.push_back({&kernel, spec, target});
        requestedUsed.insert(target);
      }
    }
    if (requested.empty() && jobs.size() == before)
      return invalidArgument(
          displayPath(kernel.manifest) + ": kernel `" + kernel.name +
          "` has no source for any of its targets; a .cu source builds "
          "cuda:* targets and a .glsl/.comp source builds vulkan:* targets");
  }
  for (const Target &target : requested)
    if (!requestedUsed.count(target))
      return invalidArgument(
          "--target " + target.toString() +
          ": no kernel of the project builds for it (a kernel needs a " +
          (target.kind == Target::Kind::Cuda ? "CUDA .cu" : "GLSL") +
          " source, and a kernel that lists its own `targets` must list it)");
  return jobs;
}

} // namespace kb::workbench

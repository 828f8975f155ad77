//===- workbench/project/kernel_toml_declared.cpp - [roofline] and --------===//
#include "workbench/project/kernel_toml_declared.h"

#include "workbench/project/declared_expression.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

namespace kb::workbench {

namespace {

const std::vector<std::string> kRooflineKeys = {"flops", "bytes_moved"};
const std::vector<std::string> kToleranceKeys = {"abs", "rel", "ulp",
                                                 "reduction_length"};

/// The names an expression may use: integer `defines`, numeric [bench]
/// constants and the workload's sizes.
std::map<std::string, double>
expressionNames(const KernelAbi &abi,
                const std::vector<std::pair<std::string, std::string>> &defines,
                const Kernel &kernel) {
  std::map<std::string, double> names;
  for (const auto &[name, value] : defines) {
    int64_t v = 0;
    auto [ptr, ec] =
        std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec == std::errc() && ptr == value.data() + value.size())
      names[name] = static_cast<double>(v);
  }
  if (!kernel.bench)
    return names;
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    const std::string &text = kernel.bench->constantValues[i];
    char *end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (!abi.constants[i].name.empty() && end && *end == '\0')
      names[abi.constants[i].name] = value;
  }
  const char *axes[] = {"workload_x", "workload_y", "workload_z"};
  for (size_t i = 0; i < 3; ++i)
    names[axes[i]] = i < kernel.bench->workload.size()
                         ? static_cast<double>(kernel.bench->workload[i])
                         : 1.0;
  return names;
}

/// A number, or a string expression over |names|, at least |min|.
StatusOr<double> readFigure(const TomlFile &file, const toml::node &node,
                            const std::string &key, double min,
                            const std::map<std::string, double> &names) {
  std::string what = std::string("a number >= ") + (min == 0 ? "0" : "1") +
                     ", or an expression such as \"2*M*N*K\"";
  double value = 0;
  if (const auto *i = node.as_integer()) {
    value = static_cast<double>(i->get());
  } else if (const auto *f = node.as_floating_point()) {
    value = f->get();
  } else if (const auto *s = node.as_string()) {
    auto evaluated = evaluateExpression(s->get(), names);
    if (!evaluated.ok())
      return file.error(node, "`" + key + "`: " + evaluated.status().message());
    value = *evaluated;
  } else {
    return file.expected(node, key, what);
  }
  if (!std::isfinite(value) || value < min) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.17g", value);
    return file.error(node, "`" + key + "` is " + shown + ": expected " + what);
  }
  return value;
}

/// `abs`, `rel`, `ulp`, `reduction_length` of one tolerance table.
StatusOr<module::ToleranceOverride>
readTolerance(const TomlFile &file, const toml::table &table,
              const std::string &name,
              const std::map<std::string, double> &names) {
  module::ToleranceOverride out;
  for (const std::string key : {"abs", "rel"}) {
    const toml::node *node = table.get(key);
    if (!node)
      continue;
    double value = -1;
    if (const auto *i = node->as_integer())
      value = static_cast<double>(i->get());
    else if (const auto *f = node->as_floating_point())
      value = f->get();
    else
      return file.expected(*node, name + "." + key,
                           "a non-negative number, e.g. 1e-4");
    if (!std::isfinite(value) || value < 0)
      return file.expected(*node, name + "." + key,
                           "a non-negative finite number, e.g. 1e-4");
    (key == "abs" ? out.abs : out.rel) = value;
  }
  KB_ASSIGN_OR_RETURN(auto ulp,
                      file.integer(table, "ulp", 0,
                                   std::numeric_limits<uint32_t>::max(),
                                   "a non-negative integer (units in the "
                                   "last place)"));
  if (ulp)
    out.ulp = static_cast<uint32_t>(*ulp);
  if (const toml::node *node = table.get("reduction_length")) {
    KB_ASSIGN_OR_RETURN(
        double length,
        readFigure(file, *node, name + ".reduction_length", 1, names));
    out.reductionLength = length;
  }
  return out;
}

/// `[tolerance.outputs]`: one table per written binding, by name.
Status readOutputTolerances(const TomlFile &file, const toml::table &outputs,
                            const KernelAbi &abi,
                            const std::map<std::string, double> &names,
                            bench::KernelDeclared &declared) {
  std::vector<std::string> written;
  for (const Binding &b : abi.bindings)
    if (b.access != Access::ReadOnly && !b.name.empty())
      written.push_back(b.name);
  KB_RETURN_IF_ERROR(
      file.checkKeys(outputs,
                     "[tolerance.outputs] (the bindings the kernel "
                     "writes)",
                     written));
  for (auto &&[key, value] : outputs) {
    std::string name(key.str());
    std::string where = "[tolerance.outputs." + name + "]";
    const toml::table *table = value.as_table();
    if (!table)
      return file.expected(value, "tolerance.outputs." + name,
                           "a table such as { abs = 1e-3, rel = 1e-2 }");
    KB_RETURN_IF_ERROR(file.checkKeys(*table, where, kToleranceKeys));
    bench::OutputTolerance out;
    out.name = name;
    for (size_t i = 0; i < abi.bindings.size(); ++i)
      if (abi.bindings[i].name == name)
        out.binding = static_cast<uint32_t>(i);
    KB_ASSIGN_OR_RETURN(out.tolerance,
                        readTolerance(file, *table, where, names));
    declared.outputTolerances.push_back(std::move(out));
  }
  return okStatus();
}

/// One `shape` of an [abi] binding: 1 to 4 whole numbers >= 1, each an
/// integer or an expression, whose product a standalone kernel's element
/// count must equal.
StatusOr<std::vector<uint64_t>>
readShape(const TomlFile &file, const toml::node &node, const std::string &key,
          const std::map<std::string, double> &names,
          std::optional<uint64_t> elements) {
  const toml::array *dims = node.as_array();
  if (!dims || dims->empty() || dims->size() > 4)
    return file.expected(node, key,
                         "1 to 4 dimensions, the last the fastest, e.g. "
                         "[\"M\", \"N\"]");
  std::vector<uint64_t> shape;
  double product = 1;
  for (const toml::node &dim : *dims) {
    KB_ASSIGN_OR_RETURN(double value, readFigure(file, dim, key, 1, names));
    if (value != std::floor(value) || value > 1e15)
      return file.error(dim, "`" + key +
                                 "`: a dimension must be a whole "
                                 "number of elements");
    shape.push_back(static_cast<uint64_t>(value));
    product *= value;
  }
  if (elements && product != static_cast<double>(*elements))
    return file.error(node, "`" + key + "` holds " +
                                std::to_string(static_cast<uint64_t>(
                                    std::min(product, 1e18))) +
                                " elements and [bench] elements gives the "
                                "binding " +
                                std::to_string(*elements) +
                                ": make the dimensions multiply to the "
                                "element count");
  return shape;
}

/// `shape` of each [abi] binding that has one.
Status readOutputShapes(const TomlFile &file, const toml::table &root,
                        const KernelAbi &abi, const Kernel &kernel,
                        const std::map<std::string, double> &names,
                        bench::KernelDeclared &declared) {
  const toml::node *bindings = root.at_path("abi.bindings").node();
  const toml::array *list = bindings ? bindings->as_array() : nullptr;
  for (size_t i = 0; list && i < list->size() && i < abi.bindings.size(); ++i) {
    const toml::table *t = list->get(i)->as_table();
    const toml::node *node = t ? t->get("shape") : nullptr;
    if (!node)
      continue;
    std::optional<uint64_t> elements;
    if (kernel.bench && i < kernel.bench->elementCounts.size())
      elements = kernel.bench->elementCounts[i];
    bench::OutputShape shape{
        abi.bindings[i].name, static_cast<uint32_t>(i), {}};
    KB_ASSIGN_OR_RETURN(shape.dims,
                        readShape(file, *node,
                                  "bindings[" + std::to_string(i) + "].shape",
                                  names, elements));
    declared.outputShapes.push_back(std::move(shape));
  }
  return okStatus();
}

/// One [roofline] figure: its value now, or — for a kernel without [bench]
/// (one that substitutes a program's dispatch) whose expression names the
/// [abi] constants or the workload — the expression, which the bench
/// worker evaluates with each dispatch's values.
Status readRooflineFigure(const TomlFile &file, const toml::node &node,
                          const std::string &key, const KernelAbi &abi,
                          const Kernel &kernel,
                          const std::map<std::string, double> &names,
                          std::optional<double> &value, std::string &expression,
                          std::map<std::string, double> &expressionNames) {
  const auto *text = node.as_string();
  if (text && !kernel.bench) {
    // A stand-in for the dispatch's values that is not 1 (which would
    // refuse `M*N/(K-1)`) and large enough for `2*n-4` to be a count.
    constexpr double kStandIn = 4099;
    std::map<std::string, double> perDispatch = names;
    for (const Constant &c : abi.constants)
      perDispatch.emplace(c.name, kStandIn);
    for (const char *axis : {"workload_x", "workload_y", "workload_z"})
      perDispatch.emplace(axis, kStandIn);
    std::string unknown;
    bool dispatchName =
        !evaluateExpression(text->get(), names, &unknown).ok() &&
        !unknown.empty() && !names.count(unknown);
    if (dispatchName) {
      // Checked here with every dispatch name at the stand-in: errors stay
      // located.
      KB_RETURN_IF_ERROR(readFigure(file, node, key, 0, perDispatch).status());
      expression = text->get();
      expressionNames = names;
      return okStatus();
    }
  }
  KB_ASSIGN_OR_RETURN(value, readFigure(file, node, key, 0, names));
  return okStatus();
}

Status readRoofline(const TomlFile &file, const toml::table &roofline,
                    const KernelAbi &abi, const Kernel &kernel,
                    const std::map<std::string, double> &names,
                    bench::KernelDeclared &declared) {
  KB_RETURN_IF_ERROR(file.checkKeys(roofline, "[roofline]", kRooflineKeys));
  if (const toml::node *node = roofline.get("flops"))
    KB_RETURN_IF_ERROR(readRooflineFigure(
        file, *node, "flops", abi, kernel, names, declared.flops,
        declared.flopsExpression, declared.expressionNames));
  if (const toml::node *node = roofline.get("bytes_moved"))
    KB_RETURN_IF_ERROR(readRooflineFigure(
        file, *node, "bytes_moved", abi, kernel, names, declared.bytesMoved,
        declared.bytesMovedExpression, declared.expressionNames));
  return okStatus();
}

/// `[bench] special_values = ["nan", "inf"]`.
Status readSpecialValues(const TomlFile &file, const toml::table &root,
                         bench::KernelDeclared &declared) {
  const toml::node *bench = root.get("bench");
  if (!bench || !bench->is_table())
    return okStatus();
  KB_ASSIGN_OR_RETURN(auto values,
                      file.strings(*bench->as_table(), "special_values"));
  if (!values.empty() && !declared.fixedInputs.empty())
    return file.error(*values.front().second,
                      "`special_values`: binding `" +
                          declared.fixedInputs.front().name +
                          "` has fixed inputs (`init = { file = ... }`), "
                          "and special values would change them; remove "
                          "`special_values` (fixed inputs are checked as "
                          "they are)");
  for (const auto &[value, node] : values) {
    if (value == "nan")
      declared.nanInputs = true;
    else if (value == "inf")
      declared.infInputs = true;
    else
      return file.expected(*node, "special_values",
                           "\"nan\" or \"inf\" (the special values the "
                           "kernel propagates; large magnitudes are always "
                           "checked)");
  }
  return okStatus();
}

} // namespace

Status
readDeclared(const TomlFile &file, const toml::table &root,
             const KernelAbi &abi,
             const std::vector<std::pair<std::string, std::string>> &defines,
             Kernel &kernel) {
  std::map<std::string, double> names = expressionNames(abi, defines, kernel);
  bench::KernelDeclared &declared = kernel.declared;
  KB_RETURN_IF_ERROR(readSpecialValues(file, root, declared));
  KB_RETURN_IF_ERROR(
      readOutputShapes(file, root, abi, kernel, names, declared));
  KB_ASSIGN_OR_RETURN(const toml::table *roofline,
                      file.table(root, "roofline"));
  if (roofline)
    KB_RETURN_IF_ERROR(
        readRoofline(file, *roofline, abi, kernel, names, declared));
  KB_ASSIGN_OR_RETURN(const toml::table *tolerance,
                      file.table(root, "tolerance"));
  if (!tolerance)
    return okStatus();
  std::vector<std::string> keys = kToleranceKeys;
  keys.push_back("outputs");
  KB_RETURN_IF_ERROR(file.checkKeys(*tolerance, "[tolerance]", keys));
  KB_ASSIGN_OR_RETURN(declared.tolerance,
                      readTolerance(file, *tolerance, "[tolerance]", names));
  KB_ASSIGN_OR_RETURN(const toml::table *outputs,
                      file.table(*tolerance, "outputs"));
  if (outputs)
    KB_RETURN_IF_ERROR(
        readOutputTolerances(file, *outputs, abi, names, declared));
  return okStatus();
}

} // namespace kb::workbench

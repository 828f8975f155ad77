//===- workbench/project/kernel_toml_launch.cpp - A kernel's launch shape -===//
#include "workbench/project/kernel_toml_launch.h"

#include "workbench/project/declared_expression.h"
#include "workbench/project/kernel_toml_entry.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kb::workbench {

using toolchains::KernelSpec;

namespace {

/// What the compiler and every device accept (kb.export's bounds).
constexpr int64_t kMaxWorkgroupX = 1024, kMaxWorkgroupY = 1024,
                  kMaxWorkgroupZ = 64, kMaxWorkgroupInvocations = 1024;

const char *const kNumberForms =
    "a string expression of integers, integer `defines` and tuned names "
    "(with [bench], integer [bench] constants), such as \"TILE / WPT\"";

/// One entry: an integer in [min, max] or a non-empty string expression.
StatusOr<LaunchValue> readValue(const TomlFile &file, const toml::node &node,
                                const std::string &key, int64_t min,
                                int64_t max, const std::string &what) {
  LaunchValue v;
  v.key = key;
  v.where = file.where(node.source());
  if (const auto *text = node.as_string()) {
    if (text->get().find_first_not_of(" \t") == std::string::npos)
      return file.expected(node, key, what);
    v.expression = text->get();
    return v;
  }
  const auto *integer = node.as_integer();
  if (!integer || integer->get() < min || integer->get() > max)
    return file.expected(node, key, what);
  v.value = integer->get();
  return v;
}

/// `key = [...]`: |min| to 3 entries (readValue), or none when absent.
StatusOr<std::vector<LaunchValue>> readDims(const TomlFile &file,
                                            const toml::table &table,
                                            const std::string &key, size_t min,
                                            const std::string &what) {
  std::vector<LaunchValue> out;
  const toml::node *node = table.get(key);
  if (!node)
    return out;
  const toml::array *dims = node->as_array();
  if (!dims || dims->size() < min || dims->size() > 3)
    return file.expected(*node, key, what);
  for (size_t i = 0; i < dims->size(); ++i) {
    KB_ASSIGN_OR_RETURN(
        LaunchValue v,
        readValue(file, *dims->get(i), key + "[" + std::to_string(i) + "]", 1,
                  std::numeric_limits<uint32_t>::max(),
                  std::string("a positive integer, or ") + kNumberForms));
    out.push_back(std::move(v));
  }
  return out;
}

bool isInteger(const std::string &text, int64_t &value) {
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

/// The names |spec|'s expressions see: its integer defines (tuned values
/// applied as defines among them), its integer specialization settings
/// (tuned ones applied that way) and, for a standalone kernel, the integer
/// [bench] constants.
std::map<std::string, double> namesFor(const Kernel &kernel,
                                       const KernelSpec &spec) {
  std::map<std::string, double> names;
  int64_t v = 0;
  for (const auto &[name, value] : spec.defines)
    if (isInteger(value, v))
      names[name] = static_cast<double>(v);
  for (const SpecializationSetting &s : spec.specialization)
    if (isInteger(s.value, v))
      names[s.key] = static_cast<double>(v);
  if (kernel.bench)
    for (size_t i = 0; i < spec.abi.constants.size(); ++i) {
      ScalarType type = spec.abi.constants[i].type;
      if (type != ScalarType::F32 && type != ScalarType::F64 &&
          i < kernel.bench->constantValues.size() &&
          isInteger(kernel.bench->constantValues[i], v))
        names.emplace(spec.abi.constants[i].name, static_cast<double>(v));
    }
  return names;
}

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  // Every digit when the short form would print a value that just missed
  // an integer (1/49*49) as that integer.
  if (value != std::floor(value) &&
      std::string(text).find_first_of(".e") == std::string::npos)
    std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// Why |unknown|, a name of an expression that has no value, has none,
/// where "unknown name" alone would mislead: a tuned name without a default
/// or tuned value, or a define whose value is not an integer; otherwise
/// |error| with the names a launch value may use. Empty when no name was
/// unknown (another error).
std::string whyNoValue(const Kernel &kernel, const KernelSpec &spec,
                       const std::string &unknown, const std::string &error) {
  if (unknown.empty())
    return "";
  for (const TuneParameter &p : kernel.tune.parameters)
    if (p.name == unknown)
      // `tune` loads the kernel too, so only a default makes it loadable.
      return "`" + p.name +
             "` is tuned and has no value here: a tuned name the launch "
             "shape uses needs a default in [tune] (`" +
             p.name + " = { values = [...], default = N }`)";
  for (const auto &[name, value] : spec.defines)
    if (name == unknown)
      return "the define `" + name + "` is \"" + value +
             "\", not an integer: a launch value uses integer names only";
  return error +
         " (a launch value may use integer `defines`, integer "
         "[specialization] values and tuned names" +
         (kernel.bench ? std::string(", and integer [bench] constants)")
                       : std::string("; [bench] constants only when the "
                                     "kernel is standalone)"));
}

/// |v| evaluated with |names|: an integer in [min, max].
StatusOr<int64_t> evaluate(const Kernel &kernel, const KernelSpec &spec,
                           const LaunchValue &v,
                           const std::map<std::string, double> &names,
                           int64_t min, int64_t max) {
  if (v.expression.empty())
    return v.value;
  std::string at = v.where + ": `" + v.key + "`: ";
  std::string unknown;
  StatusOr<double> value = evaluateExpression(v.expression, names, &unknown);
  if (!value.ok()) {
    std::string why =
        whyNoValue(kernel, spec, unknown, value.status().message());
    return invalidArgument(at + (why.empty() ? value.status().message() : why));
  }
  if (*value != std::floor(*value) || *value < static_cast<double>(min) ||
      *value > static_cast<double>(max))
    return invalidArgument(at + "`" + v.expression + "` is " +
                           formatNumber(*value) +
                           "; expected an integer from " + std::to_string(min) +
                           " to " + std::to_string(max));
  return static_cast<int64_t>(*value);
}

/// The workgroup size's limits, named with the values that break them.
Status checkWorkgroupSize(const Kernel &kernel, const KernelAbi &abi) {
  const auto &wg = abi.workgroupSize;
  uint64_t invocations = uint64_t(wg[0]) * wg[1] * wg[2];
  if (wg[0] <= kMaxWorkgroupX && wg[1] <= kMaxWorkgroupY &&
      wg[2] <= kMaxWorkgroupZ && invocations <= kMaxWorkgroupInvocations)
    return okStatus();
  return invalidArgument(
      kernel.launch.workgroupSize[0].where + ": `workgroup_size` is " +
      std::to_string(wg[0]) + "x" + std::to_string(wg[1]) + "x" +
      std::to_string(wg[2]) + " (" + std::to_string(invocations) +
      " invocations); a workgroup has at most 1024 invocations, x and y at "
      "most 1024, z at most 64");
}

Status resolveSpec(const Kernel &kernel, KernelSpec &spec) {
  const DeclaredLaunch &launch = kernel.launch;
  std::map<std::string, double> names = namesFor(kernel, spec);
  KernelAbi &abi = spec.abi;
  for (size_t i = 0; i < 3; ++i) {
    KB_ASSIGN_OR_RETURN(int64_t size,
                        evaluate(kernel, spec, launch.workgroupSize[i], names,
                                 1, kMaxWorkgroupX));
    abi.workgroupSize[i] = static_cast<uint32_t>(size);
  }
  KB_RETURN_IF_ERROR(checkWorkgroupSize(kernel, abi));
  abi.workloadPerWorkgroup = {0, 0, 0};
  if (!launch.workloadPerWorkgroup.empty()) {
    abi.workloadPerWorkgroup = {1, 1, 1};
    for (size_t i = 0; i < launch.workloadPerWorkgroup.size(); ++i) {
      KB_ASSIGN_OR_RETURN(int64_t per,
                          evaluate(kernel, spec, launch.workloadPerWorkgroup[i],
                                   names, 1, UINT32_MAX));
      abi.workloadPerWorkgroup[i] = static_cast<uint32_t>(per);
    }
  }
  abi.dynamicSharedMemoryBytes = 0;
  if (launch.sharedMemory) {
    KB_ASSIGN_OR_RETURN(
        int64_t bytes,
        evaluate(kernel, spec, *launch.sharedMemory, names, 0, UINT32_MAX));
    abi.dynamicSharedMemoryBytes = static_cast<uint32_t>(bytes);
  }
  if (abi.fullSubgroups && abi.workgroupSize[0] % abi.subgroupSize)
    return invalidArgument(launch.workgroupSize[0].where +
                           ": `full_subgroups` needs workgroup_size x (" +
                           std::to_string(abi.workgroupSize[0]) +
                           ") to be a multiple of subgroup_size (" +
                           std::to_string(abi.subgroupSize) +
                           "): change one, or drop full_subgroups");
  return okStatus();
}

/// " (matmul_tiled.comp with TILE=8, WPT=0)": which source and which tuned
/// values an error is about, since the values differ per source and per
/// configuration.
std::string valuesNote(const Kernel &kernel, const KernelSpec &spec) {
  std::map<std::string, double> names = namesFor(kernel, spec);
  std::string values;
  for (const TuneParameter &p : kernel.tune.parameters)
    if (auto it = names.find(p.name); it != names.end())
      values += (values.empty() ? " with " : ", ") + p.name + "=" +
                formatNumber(it->second);
  return " (" + spec.source.filename().string() + values +
         (spec.tunedFor.empty() ? "" : ", tuned for " + spec.tunedFor) + ")";
}

} // namespace

Status readLaunch(const TomlFile &file, const toml::table &abiTable,
                  const toml::table *benchTable, Kernel &kernel) {
  DeclaredLaunch &launch = kernel.launch;
  if (!abiTable.get("workgroup_size"))
    return invalidArgument(
        file.where(abiTable.source()) +
        ": [abi] is missing `workgroup_size`: expected an array of 3 positive "
        "integers, e.g. workgroup_size = [256, 1, 1]");
  KB_ASSIGN_OR_RETURN(
      launch.workgroupSize,
      readDims(file, abiTable, "workgroup_size", 3,
               "an array of 3 positive integers or expressions (x, y, z)"));
  KB_ASSIGN_OR_RETURN(
      launch.workloadPerWorkgroup,
      readDims(file, abiTable, "workload_per_workgroup", 1,
               "an array of 1 to 3 positive integers or expressions: the "
               "workload items one workgroup covers per dimension"));
  if (const toml::node *shared = abiTable.get("dynamic_shared_memory")) {
    KB_ASSIGN_OR_RETURN(
        launch.sharedMemory,
        readValue(file, *shared, "dynamic_shared_memory", 0,
                  std::numeric_limits<uint32_t>::max(),
                  std::string("a byte count: a non-negative integer, or ") +
                      kNumberForms));
  }
  if (benchTable)
    if (const toml::node *old = benchTable->get("workload_per_workgroup"))
      return file.error(*old, "`workload_per_workgroup` belongs in [abi] "
                              "(it is the kernel's workgroup count rule, "
                              "also when it substitutes a program's "
                              "dispatch): move it there");
  return okStatus();
}

Status checkLaunchCoversWorkload(const Kernel &kernel) {
  const DeclaredLaunch &launch = kernel.launch;
  const DeclaredBench *bench =
      kernel.bench ? &*kernel.bench
                   : (kernel.tuneBench ? &*kernel.tuneBench : nullptr);
  if (!bench || launch.workloadPerWorkgroup.empty())
    return okStatus();
  for (size_t d = launch.workloadPerWorkgroup.size();
       d < bench->workload.size(); ++d)
    if (bench->workload[d] != 1)
      return invalidArgument(
          launch.workloadPerWorkgroup[0].where +
          ": `workload_per_workgroup` has " +
          std::to_string(launch.workloadPerWorkgroup.size()) +
          (launch.workloadPerWorkgroup.size() == 1 ? " entry" : " entries") +
          ", but [bench] workload has " +
          std::to_string(bench->workload.size()) +
          " dimensions: give one per workload dimension (a missing one "
          "would be 1, a workgroup per workload item)");
  return okStatus();
}

Status resolveSpecLaunch(const Kernel &kernel, KernelSpec &spec) {
  // The values that shape the launch also name a template entry's
  // instance: both follow every change of them.
  Status status = resolveSpec(kernel, spec);
  if (status.ok())
    status = instantiateEntry(kernel, spec);
  if (!status.ok())
    return invalidArgument(status.message() + valuesNote(kernel, spec));
  return okStatus();
}

Status resolveLaunch(Kernel &kernel) {
  // Kernel::tunedSpecs are resolved where they are made (applyTunedFile),
  // so an error names its tuned.toml entry.
  for (KernelSpec &spec : kernel.specs)
    KB_RETURN_IF_ERROR(resolveSpecLaunch(kernel, spec));
  return okStatus();
}

} // namespace kb::workbench

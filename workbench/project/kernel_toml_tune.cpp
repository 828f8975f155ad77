//===- workbench/project/kernel_toml_tune.cpp - kernel.toml's [tune] ------===//
#include "workbench/project/kernel_toml_tune.h"

#include "workbench/project/hardcoded_define.h"
#include "workbench/project/kernel_toml_launch.h"
#include "workbench/project/tuned_toml.h"

#include "common/file_util.h"
#include "common/paths.h"
#include "common/sha256.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace fs = std::filesystem;

namespace kb::workbench {

using toolchains::Language;

namespace {

/// No configuration list is longer: a range with a tiny step is a typo.
constexpr size_t kMaxValuesPerParameter = 4096;

const char *const kValueForms =
    "a list of integers, { range = [lo, hi] }, { range = [lo, hi, step] }, "
    "{ pow2 = [lo, hi] } or { values = [...] }";

bool isIdentifier(const std::string &text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// An array of integers at |node| (|key| for messages).
StatusOr<std::vector<int64_t>>
integers(const TomlFile &file, const toml::node &node, const std::string &key) {
  const toml::array *array = node.as_array();
  if (!array || array->empty())
    return file.expected(node, key, "a non-empty array of integers");
  std::vector<int64_t> out;
  for (const toml::node &item : *array) {
    const auto *i = item.as_integer();
    if (!i)
      return file.expected(item, key, "an integer");
    out.push_back(i->get());
  }
  return out;
}

/// `{ range = [lo, hi] }` / `[lo, hi, step]`: lo, lo + step, ... <= hi.
StatusOr<std::vector<int64_t>> rangeValues(const TomlFile &file,
                                           const toml::node &node,
                                           const std::string &key) {
  KB_ASSIGN_OR_RETURN(std::vector<int64_t> r, integers(file, node, key));
  if (r.size() != 2 && r.size() != 3)
    return file.expected(node, key, "[lo, hi] or [lo, hi, step]");
  int64_t step = r.size() == 3 ? r[2] : 1;
  if (step <= 0 || r[0] > r[1])
    return file.expected(
        node, key,
        "lo <= hi and a positive step (found [" + std::to_string(r[0]) + ", " +
            std::to_string(r[1]) + ", step " + std::to_string(step) + "])");
  if (static_cast<uint64_t>((r[1] - r[0]) / step) >= kMaxValuesPerParameter)
    return file.error(node, "`" + key + "`: more than " +
                                std::to_string(kMaxValuesPerParameter) +
                                " values; use a larger step");
  std::vector<int64_t> out;
  for (int64_t v = r[0]; v <= r[1]; v += step)
    out.push_back(v);
  return out;
}

/// `{ pow2 = [lo, hi] }`: the powers of two from lo to hi.
StatusOr<std::vector<int64_t>> pow2Values(const TomlFile &file,
                                          const toml::node &node,
                                          const std::string &key) {
  KB_ASSIGN_OR_RETURN(std::vector<int64_t> r, integers(file, node, key));
  auto isPow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  if (r.size() != 2 || !isPow2(r[0]) || !isPow2(r[1]) || r[0] > r[1])
    return file.expected(node, key,
                         "[lo, hi], two powers of two with lo <= hi");
  std::vector<int64_t> out;
  for (int64_t v = r[0]; v <= r[1] && v > 0; v *= 2)
    out.push_back(v);
  return out;
}

/// The table form's one of values/range/pow2 (|key| for messages).
StatusOr<std::vector<int64_t>> tableValues(const TomlFile &file,
                                           const toml::table &table,
                                           const std::string &key) {
  std::vector<int64_t> values;
  int forms = 0;
  for (const char *form : {"values", "range", "pow2"}) {
    const toml::node *node = table.get(form);
    if (!node)
      continue;
    ++forms;
    std::string formKey = key + "." + form;
    std::string f(form);
    KB_ASSIGN_OR_RETURN(values, f == "values" ? integers(file, *node, formKey)
                                : f == "range"
                                    ? rangeValues(file, *node, formKey)
                                    : pow2Values(file, *node, formKey));
  }
  if (forms != 1)
    return file.expected(table, key,
                         std::string("exactly one of `values`, `range`, "
                                     "`pow2` (") +
                             kValueForms + ")");
  return values;
}

/// The table form's other keys: `as` and `default`.
Status readParameterTable(const TomlFile &file, const toml::table &table,
                          TuneParameter &p) {
  KB_ASSIGN_OR_RETURN(auto as, file.string(table, "as"));
  if (as && *as != "define" && *as != "specialization")
    return file.expected(*table.get("as"), "tune." + p.name + ".as",
                         "\"define\" (the default: -D for CUDA and GLSL) or "
                         "\"specialization\" (a GLSL specialization constant)");
  p.apply = as && *as == "specialization" ? TuneApply::Specialization
                                          : TuneApply::Define;
  if (const toml::node *d = table.get("default")) {
    const auto *value = d->as_integer();
    if (!value || std::find(p.values.begin(), p.values.end(), value->get()) ==
                      p.values.end())
      return file.expected(*d, "tune." + p.name + ".default",
                           "one of the parameter's values");
    p.defaultValue = value->get();
  }
  return okStatus();
}

StatusOr<TuneParameter> readParameter(const TomlFile &file,
                                      const std::string &name,
                                      const toml::node &node) {
  TuneParameter p;
  p.name = name;
  p.where = file.where(node.source());
  if (!isIdentifier(name))
    return file.error(node, "[tune]: `" + name +
                                "` is not an identifier (a define or a "
                                "specialization constant's name)");
  KB_ASSIGN_OR_RETURN(p.values,
                      readValueForm(file, node, "tune." + name,
                                    "[tune] " + name, {"as", "default"}));
  if (const toml::table *table = node.as_table())
    KB_RETURN_IF_ERROR(readParameterTable(file, *table, p));
  return p;
}

/// The conflict rule: a name is tuned or fixed, not both.
Status checkNotFixed(const TomlFile &file, const toml::table &root,
                     const toml::table &kernelTable, const TuneParameter &p) {
  auto fixedIn = [&](const toml::node *table) -> const toml::node * {
    return table && table->is_table() ? table->as_table()->get(p.name)
                                      : nullptr;
  };
  const toml::node *define = fixedIn(kernelTable.get("defines"));
  const toml::node *spec = fixedIn(root.get("specialization"));
  if (!define && !spec)
    return okStatus();
  const toml::node *fixed = define ? define : spec;
  return invalidArgument(
      p.where + ": `" + p.name + "` is tuned ([tune]) and also fixed in " +
      (define ? "[kernel.defines]" : "[specialization]") + " (" +
      file.where(fixed->source()) +
      "): a name is tuned or fixed, not both; remove one (tuned.toml "
      "gives `build` the value `tune` chose)");
}

/// A define `tune` sets must be settable: a source that #defines it itself,
/// unguarded, would override -DNAME=VALUE (nvcc warns, glslang errors) and
/// build another configuration than the one named.
Status checkSettable(const TuneParameter &p, const Kernel &kernel) {
  for (const toolchains::KernelSpec &spec : kernel.specs) {
    StatusOr<std::string> text = readFile(spec.source);
    if (!text.ok())
      continue; // a missing source is reported where sources are read
    if (std::optional<size_t> line = unguardedDefineLine(*text, p.name))
      return invalidArgument(
          p.where + ": [tune] `" + p.name + "` cannot be tuned: " +
          displayPath(spec.source) + ":" + std::to_string(*line) +
          " #defines it itself, which would override the value tune passes "
          "(-D" +
          p.name +
          "=...), so the kernel built would not be the "
          "configuration named; wrap that #define in `#ifndef " +
          p.name + "` ... `#endif` (its value stays the default), or leave `" +
          p.name + "` out of [tune]");
  }
  return okStatus();
}

Status readConstraints(const TomlFile &file, const toml::table &tune,
                       TuneSpace &space) {
  KB_ASSIGN_OR_RETURN(auto texts, file.strings(tune, "constraints"));
  for (const auto &[text, node] : texts)
    space.constraints.push_back({text, file.where(node->source())});
  // Every constraint must parse and name only tuned parameters: checked on
  // the first configuration, so a typo fails at load, not mid-tune.
  if (space.empty() || space.constraints.empty())
    return okStatus();
  TuneValues first;
  for (const TuneParameter &p : space.parameters)
    first[p.name] = p.values.front();
  return satisfiesConstraints(space, first).status();
}

const char *backendOf(Language language) {
  return language == Language::Cuda ? "cuda" : "vulkan";
}

/// A device model as a file name: lowercase letters and digits, the rest
/// one `-` ("NVIDIA H200" -> "nvidia-h200"); a long one is cut and ends
/// with a hash of the whole name, so names stay distinct and fit a path.
std::string deviceSlug(const std::string &device) {
  std::string slug;
  for (unsigned char c : device) {
    if (std::isalnum(c) && c < 0x80)
      slug += static_cast<char>(std::tolower(c));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-')
    slug.pop_back();
  constexpr size_t kMaxSlug = 64;
  if (slug.size() > kMaxSlug)
    slug =
        slug.substr(0, kMaxSlug - 13) + "-" + sha256Hex(device).substr(0, 12);
  return slug.empty() ? "device" : slug;
}

} // namespace

StatusOr<std::vector<int64_t>>
readValueForm(const TomlFile &file, const toml::node &node,
              const std::string &key, const std::string &context,
              const std::vector<std::string> &otherKeys) {
  std::vector<int64_t> values;
  if (node.is_array()) {
    KB_ASSIGN_OR_RETURN(values, integers(file, node, key));
  } else if (const toml::table *table = node.as_table()) {
    std::vector<std::string> keys = {"values", "range", "pow2"};
    keys.insert(keys.end(), otherKeys.begin(), otherKeys.end());
    KB_RETURN_IF_ERROR(file.checkKeys(*table, context, keys));
    KB_ASSIGN_OR_RETURN(values, tableValues(file, *table, key));
  } else {
    return file.expected(node, key, kValueForms);
  }
  std::vector<int64_t> unique;
  for (int64_t v : values)
    if (std::find(unique.begin(), unique.end(), v) == unique.end())
      unique.push_back(v);
  return unique;
}

Status readTune(const TomlFile &file, const toml::table &root,
                const toml::table &kernelTable, Kernel &kernel) {
  KB_ASSIGN_OR_RETURN(const toml::table *tune, file.table(root, "tune"));
  if (!tune)
    return okStatus();
  bool hasGlsl = std::any_of(kernel.specs.begin(), kernel.specs.end(),
                             [](const toolchains::KernelSpec &s) {
                               return s.language == Language::Glsl;
                             });
  for (auto &&[key, node] : *tune) {
    std::string name(key.str());
    if (name == "constraints")
      continue;
    KB_ASSIGN_OR_RETURN(TuneParameter p, readParameter(file, name, node));
    KB_RETURN_IF_ERROR(checkNotFixed(file, root, kernelTable, p));
    if (p.apply == TuneApply::Define)
      KB_RETURN_IF_ERROR(checkSettable(p, kernel));
    if (p.apply == TuneApply::Specialization && !hasGlsl)
      return file.error(node, "[tune] `" + name +
                                  "` is a specialization constant, but the "
                                  "kernel has no GLSL source; use a define");
    kernel.tune.parameters.push_back(std::move(p));
  }
  if (kernel.tune.empty())
    return file.error(*tune, "[tune] declares no parameter; add one "
                             "(`TILE = [8, 16, 32]`) or remove [tune]");
  std::sort(kernel.tune.parameters.begin(), kernel.tune.parameters.end(),
            [](const TuneParameter &a, const TuneParameter &b) {
              return a.name < b.name;
            });
  return readConstraints(file, *tune, kernel.tune);
}

void applyTuneValues(const TuneSpace &space, const TuneValues &values,
                     toolchains::KernelSpec &spec) {
  for (const auto &[name, value] : values) {
    const TuneParameter *p = space.find(name);
    if (!p)
      continue;
    std::string text = std::to_string(value);
    if (p->apply == TuneApply::Define) {
      auto &defines = spec.defines;
      defines.erase(
          std::remove_if(defines.begin(), defines.end(),
                         [&](const auto &d) { return d.first == name; }),
          defines.end());
      defines.emplace_back(name, text);
    } else if (spec.language == Language::Glsl) {
      auto &settings = spec.specialization;
      settings.erase(std::remove_if(settings.begin(), settings.end(),
                                    [&](const SpecializationSetting &s) {
                                      return s.key == name;
                                    }),
                     settings.end());
      settings.push_back({name, text});
    }
  }
}

Status applyTunedFile(Kernel &kernel) {
  const fs::path path = kernel.manifest.parent_path() / "tuned.toml";
  std::error_code ec;
  if (!fs::exists(path, ec))
    return okStatus();
  if (!fs::is_regular_file(path, ec))
    return invalidArgument(displayPath(path) +
                           " is not a file: tuned.toml holds `tune`'s "
                           "winners beside the kernel.toml; remove it");
  if (kernel.tune.empty())
    return invalidArgument(displayPath(path) + ": a tuned.toml, but " +
                           displayPath(kernel.manifest) +
                           " has no [tune]: it sets the values of tuned names "
                           "only; remove it or add [tune]");
  KB_ASSIGN_OR_RETURN(std::vector<TunedEntry> entries,
                      readTunedToml(path, kernel.tune));
  // An entry without a device sets the source's values for every device.
  for (toolchains::KernelSpec &spec : kernel.specs)
    for (const TunedEntry &entry : entries)
      if (entry.device.empty() && entry.backend == backendOf(spec.language)) {
        applyTuneValues(kernel.tune, entry.values, spec);
        break;
      }
  // One with a device is a spec of its own beside it, for that model. Its
  // outputs go to kernels/<kernel>@<model>/, one directory per model (a
  // model's CUDA and Vulkan files differ by name); two models of one file
  // name and backend are numbered.
  kernel.tunedSpecs.clear();
  // A launch shape an entry's values break is that entry's error; one the
  // source's own values break already is the source's (resolveLaunch).
  std::vector<bool> launchable;
  for (const toolchains::KernelSpec &spec : kernel.specs) {
    toolchains::KernelSpec source = spec;
    launchable.push_back(resolveSpecLaunch(kernel, source).ok());
  }
  std::set<std::pair<std::string, std::string>> taken; // backend, name
  for (const TunedEntry &entry : entries) {
    if (entry.device.empty())
      continue;
    for (size_t i = 0; i < kernel.specs.size(); ++i) {
      const toolchains::KernelSpec &spec = kernel.specs[i];
      if (entry.backend != backendOf(spec.language) || !launchable[i])
        continue;
      toolchains::KernelSpec tuned = spec;
      applyTuneValues(kernel.tune, entry.values, tuned);
      tuned.tunedFor = entry.device;
      const std::string base = kernel.name + "@" + deviceSlug(entry.device);
      tuned.name = base;
      for (int n = 2; !taken.insert({entry.backend, tuned.name}).second; ++n)
        tuned.name = base + "-" + std::to_string(n);
      if (Status launch = resolveSpecLaunch(kernel, tuned); !launch.ok())
        return invalidArgument(
            entry.where + ": the values tuned for `" + entry.device +
            "` give an invalid launch shape: " + launch.message() +
            "; change or remove this entry");
      kernel.tunedSpecs.push_back(std::move(tuned));
    }
  }
  return okStatus();
}

void applyTuneDefaults(Kernel &kernel) {
  TuneValues defaults;
  for (const TuneParameter &p : kernel.tune.parameters)
    if (p.defaultValue)
      defaults[p.name] = *p.defaultValue;
  for (toolchains::KernelSpec &spec : kernel.specs)
    applyTuneValues(kernel.tune, defaults, spec);
}

} // namespace kb::workbench

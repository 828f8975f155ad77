//===- workbench/project/kernel_toml_pipeline.cpp - Subgroup size, --------===//
#include "workbench/project/kernel_toml_pipeline.h"

#include "common/paths.h"

#include <cstdio>

namespace kb::workbench {

using toolchains::Language;

namespace {

/// A [specialization] value as text (common/specialization.h): integers,
/// floats (shortest round-trip form) and booleans.
StatusOr<std::string> valueText(const TomlFile &file, const toml::node &node,
                                const std::string &key) {
  if (const auto *i = node.as_integer())
    return std::to_string(i->get());
  if (const auto *b = node.as_boolean())
    return std::string(b->get() ? "true" : "false");
  if (const auto *f = node.as_floating_point()) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", f->get());
    return std::string(buf);
  }
  return file.expected(node, "specialization." + key,
                       "an integer, a float or a boolean (the constant's "
                       "type comes from the shader)");
}

StatusOr<std::vector<SpecializationSetting>>
readSettings(const TomlFile &file, const toml::table &table) {
  std::vector<SpecializationSetting> settings;
  for (auto &&[key, value] : table) {
    std::string k(key.str());
    KB_ASSIGN_OR_RETURN(std::string text, valueText(file, value, k));
    settings.push_back({k, text});
  }
  return settings;
}

/// A [specialization] key that is also a [kernel.defines] macro.
Status checkDefines(const TomlFile &file, const toml::table &spec,
                    const toml::table &kernelTable) {
  const toml::node *defines = kernelTable.get("defines");
  if (!defines || !defines->is_table())
    return okStatus();
  for (auto &&[key, value] : *defines->as_table()) {
    const toml::node *both = spec.get(key.str());
    if (!both)
      continue;
    return invalidArgument(
        file.where(spec.source()) + ": `" + std::string(key.str()) +
        "` is both a define (" + file.where(key.source()) +
        ", [kernel.defines]) and a specialization constant ([specialization]): "
        "a name is one or the other; keep `layout(constant_id = N) const` in "
        "the shader and drop the define, or the reverse");
  }
  return okStatus();
}

bool hasLanguage(const Kernel &kernel, Language language) {
  for (const toolchains::KernelSpec &spec : kernel.specs)
    if (spec.language == language)
      return true;
  return false;
}

} // namespace

Status readSubgroupSize(const TomlFile &file, const toml::table &abiTable,
                        KernelAbi &abi) {
  KB_ASSIGN_OR_RETURN(
      auto size,
      file.integer(abiTable, "subgroup_size", 1, 128,
                   "the subgroup size the kernel was written for: a power of "
                   "two from 1 to 128 (32 on CUDA)"));
  if (size && (*size & (*size - 1)))
    return file.expected(*abiTable.get("subgroup_size"), "subgroup_size",
                         "a power of two from 1 to 128 (32 on CUDA)");
  abi.subgroupSize = static_cast<uint32_t>(size.value_or(0));
  KB_ASSIGN_OR_RETURN(auto full, file.boolean(abiTable, "full_subgroups"));
  abi.fullSubgroups = full.value_or(false);
  if (abi.fullSubgroups && !abi.subgroupSize)
    return file.error(*abiTable.get("full_subgroups"),
                      "`full_subgroups` needs `subgroup_size`: full "
                      "subgroups of which size? add subgroup_size = N to "
                      "[abi]");
  // That workgroup_size x is a multiple of the size is checked once the
  // size is evaluated (resolveLaunch).
  return okStatus();
}

Status readPipelineSettings(const TomlFile &file, const toml::table &root,
                            const toml::table &kernelTable,
                            const toml::table &abiTable, Kernel &kernel) {
  if (const toml::node *size = abiTable.get("subgroup_size");
      size && hasLanguage(kernel, Language::Cuda) &&
      size->value_or(int64_t{0}) != 32)
    return file.error(*size, "`subgroup_size` = " +
                                 std::to_string(size->value_or(int64_t{0})) +
                                 ", but the kernel has a CUDA source, whose "
                                 "warps are always 32 wide: use 32, or build "
                                 "this size from a GLSL source only");
  KB_ASSIGN_OR_RETURN(const toml::table *table,
                      file.table(root, "specialization"));
  if (!table)
    return okStatus();
  if (!hasLanguage(kernel, Language::Glsl))
    return file.error(*table,
                      "[specialization] sets SPIR-V specialization constants, "
                      "but this kernel has no GLSL source: CUDA has none; use "
                      "[kernel.defines] instead");
  KB_RETURN_IF_ERROR(checkDefines(file, *table, kernelTable));
  KB_ASSIGN_OR_RETURN(auto settings, readSettings(file, *table));
  for (toolchains::KernelSpec &spec : kernel.specs)
    if (spec.language == Language::Glsl)
      spec.specialization = settings;
  return okStatus();
}

} // namespace kb::workbench

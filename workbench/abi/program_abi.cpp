//===- workbench/abi/program_abi.cpp - The dispatch ABIs of a built -------===//
#include "workbench/abi/program_abi.h"

#include "common/paths.h"
#include "runtime/module/module.h"
#include "workbench/support/spelling.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {

/// |build| as the module file to read, or why it is not a build output.
StatusOr<std::string> modulePath(const std::string &build) {
  std::error_code ec;
  if (!fs::exists(build, ec))
    return notFound(build + " does not exist; pass the output directory of "
                            "`kernel-bench build` (its -o) or a .kbm file");
  if (!fs::is_directory(build, ec))
    return build;
  fs::path program = fs::path(build) / "program.kbm";
  if (fs::exists(program, ec))
    return program.string();
  if (fs::exists(fs::path(build) / "build.json", ec))
    return notFound(build +
                    " is a build without a program (no program.kbm: a "
                    "--kernels-only build, a failed program step, or a "
                    "project without `program`); build the project with its "
                    "program first");
  return notFound(build + " is not a kernel-bench build output (no "
                          "program.kbm, no build.json); pass the output "
                          "directory of `kernel-bench build` (its -o)");
}

/// The build target a variant was compiled for; nullopt for an architecture
/// no build target names (an sm_XX older than any nvcc still compiles for),
/// which the loader accepts: such a variant is listed under no target.
std::optional<Target> variantTarget(const module::Variant &variant) {
  Target::Kind kind = variant.format == hal::ExecutableFormat::Spirv
                          ? Target::Kind::Vulkan
                          : Target::Kind::Cuda;
  StatusOr<Target> target = Target::fromArch(kind, variant.target);
  return target.ok() ? std::optional<Target>(*target) : std::nullopt;
}

ExecutableAbi executableAbi(const module::Executable &exe) {
  ExecutableAbi abi;
  abi.name = exe.name;
  bool haveReference = std::any_of(
      exe.variants.begin(), exe.variants.end(), [](const module::Variant &v) {
        return v.role == module::VariantRole::Reference;
      });
  module::VariantRole source = haveReference ? module::VariantRole::Reference
                                             : module::VariantRole::Candidate;
  for (const module::Variant &v : exe.variants) {
    std::optional<Target> target = variantTarget(v);
    if (v.role == module::VariantRole::Candidate && target)
      abi.substitutedTargets.push_back(*target);
    if (v.role == module::VariantRole::Candidate && haveReference)
      for (uint32_t i = 0; i < v.exports.size(); ++i)
        if (v.exports[i].workloadPerWorkgroup[0] ||
            v.exports[i].uniformConstants)
          abi.ownLaunches.push_back({target, v.device, i, v.exports[i]});
    if (v.role != source)
      continue;
    // The loader checked that every variant has the same layouts; the
    // first one's exports stand for all.
    if (abi.exports.empty())
      abi.exports = v.exports;
    if (target)
      abi.targets.push_back(*target);
  }
  if (!haveReference)
    abi.substitutedTargets.clear(); // nothing generated to substitute
  for (std::vector<Target> *list : {&abi.targets, &abi.substitutedTargets}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return abi;
}

/// Adds every dispatch of |module|'s functions to its executable's sites.
void addDispatchSites(const module::Module &module, ProgramAbi &program) {
  for (const module::Function &function : module.functions) {
    for (size_t i = 0; i < function.ops.size(); ++i) {
      const module::Op &op = function.ops[i];
      if (op.kind != module::Op::Kind::Dispatch)
        continue;
      ExecutableAbi &exe = program.executables[op.executable];
      if (op.exportIndex >= exe.exports.size())
        continue; // the loader checked it; nothing to describe otherwise
      const KernelAbi &abi = exe.exports[op.exportIndex];
      DispatchSite site{function.name,  static_cast<uint32_t>(i),
                        op.exportIndex, op.workgroupCount,
                        op.workload,    {}};
      for (size_t b = 0; b < op.bindings.size() && b < abi.bindings.size();
           ++b) {
        const module::BindingRef &ref = op.bindings[b];
        uint64_t bufferBytes = function.buffers[ref.buffer].byteSize();
        uint64_t bytes = ref.length
                             ? ref.length
                             : bufferBytes - std::min(ref.offset, bufferBytes);
        site.bindingElements.push_back(bytes /
                                       byteSize(abi.bindings[b].elementType));
      }
      exe.sites.push_back(std::move(site));
    }
  }
}

/// Drops the own launches that run what the export runs (its workgroup
/// size and, at every site, its count): nothing to tell apart. One that
/// takes its constants in a uniform block stays for that, without a shape
/// of its own (workloadPerWorkgroup cleared).
void dropExportLaunches(ExecutableAbi &exe) {
  auto same = [&](const OwnLaunch &l) {
    if (l.abi.workgroupSize != exe.exports[l.exportIndex].workgroupSize)
      return false;
    for (const DispatchSite &site : exe.sites) {
      if (site.exportIndex != l.exportIndex)
        continue;
      auto count = site.workload ? workgroupCountFor(l.abi, *site.workload)
                                 : std::nullopt;
      if (!count || *count != site.workgroupCount)
        return false;
    }
    return true;
  };
  for (OwnLaunch &l : exe.ownLaunches)
    if (l.abi.uniformConstants && same(l))
      l.abi.workloadPerWorkgroup = {0, 0, 0};
  exe.ownLaunches.erase(
      std::remove_if(exe.ownLaunches.begin(), exe.ownLaunches.end(),
                     [&](const OwnLaunch &l) {
                       return !l.abi.uniformConstants && same(l);
                     }),
      exe.ownLaunches.end());
}

} // namespace

StatusOr<ProgramAbi> loadProgramAbi(const std::string &build) {
  KB_ASSIGN_OR_RETURN(std::string path, modulePath(build));
  KB_ASSIGN_OR_RETURN(module::Module module, module::loadModuleFile(path));
  ProgramAbi program;
  program.modulePath = path;
  for (const module::Executable &exe : module.executables)
    program.executables.push_back(executableAbi(exe));
  if (program.executables.empty())
    return invalidArgument(path + ": the module has no executable");
  addDispatchSites(module, program);
  for (ExecutableAbi &exe : program.executables)
    dropExportLaunches(exe);
  return program;
}

StatusOr<const ExecutableAbi *> findExecutable(const ProgramAbi &program,
                                               const std::string &name) {
  std::vector<std::string> names;
  for (const ExecutableAbi &exe : program.executables) {
    if (exe.name == name)
      return &exe;
    names.push_back(exe.name);
  }
  std::string list;
  for (const std::string &n : names)
    list += (list.empty() ? "" : ", ") + n;
  std::optional<std::string> nearest = nearestSpelling(name, names);
  return invalidArgument(displayPath(program.modulePath) +
                         " has no executable `" + name + "`" +
                         (nearest ? "; did you mean `" + *nearest + "`?" : "") +
                         " (executables: " + list + ")");
}

std::string describeSite(const KernelAbi &abi, const DispatchSite &site) {
  const auto &wg = site.workgroupCount;
  std::string text = "`" + site.function + "` op " + std::to_string(site.op) +
                     ": " + std::to_string(wg[0]) + "x" +
                     std::to_string(wg[1]) + "x" + std::to_string(wg[2]) +
                     " workgroups";
  if (const auto &w = site.workload)
    text += " (workload " + std::to_string((*w)[0]) + "x" +
            std::to_string((*w)[1]) + "x" + std::to_string((*w)[2]) + ")";
  for (size_t b = 0; b < site.bindingElements.size(); ++b) {
    const std::string &name = abi.bindings[b].name;
    text += (b ? ", " : "; elements: ") +
            (name.empty() ? "binding " + std::to_string(b) : name) + " " +
            std::to_string(site.bindingElements[b]);
    // A binding of structs counts bytes: say how many structs they hold.
    if (const auto &layout = abi.bindings[b].structLayout;
        layout && layout->stride)
      text += " bytes (" +
              std::to_string(site.bindingElements[b] / layout->stride) + " " +
              (layout->name.empty() ? "structs" : layout->name) + ")";
  }
  return text;
}

namespace {
/// The items (sites, own launches) of export |exportIndex|, in order.
template <typename T>
std::vector<const T *> ofExport(const std::vector<T> &items,
                                uint32_t exportIndex) {
  std::vector<const T *> out;
  for (const T &item : items)
    if (item.exportIndex == exportIndex)
      out.push_back(&item);
  return out;
}
} // namespace

std::vector<const DispatchSite *> exportSites(const ExecutableAbi &exe,
                                              uint32_t exportIndex) {
  return ofExport(exe.sites, exportIndex);
}

std::vector<const OwnLaunch *> exportLaunches(const ExecutableAbi &exe,
                                              uint32_t exportIndex) {
  return ofExport(exe.ownLaunches, exportIndex);
}

std::string joinTargets(const std::vector<Target> &targets) {
  std::string text;
  for (const Target &t : targets)
    text += (text.empty() ? "" : ", ") + t.toString();
  return text;
}

} // namespace kb::workbench

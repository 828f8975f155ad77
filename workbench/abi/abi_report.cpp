//===- workbench/abi/abi_report.cpp - What `kernel-bench abi` prints ------===//
#include "workbench/abi/abi_report.h"

#include "common/paths.h"
#include "workbench/abi/abi_source.h"

#include <algorithm>
#include <set>

namespace kb::workbench {

using json = nlohmann::ordered_json;

namespace {

// A buffer of structs is laid out by a GLSL kernel's SPIR-V, and
// kernel.toml refuses it for CUDA sources: a CUDA declaration with
// `unsigned char *` would be a signature no build accepts.
constexpr const char *kNoCudaForStructs =
    "a binding of structs is for Vulkan kernels only";

bool holdsStructs(const KernelAbi &abi) {
  for (const Binding &b : abi.bindings)
    if (b.structLayout)
      return true;
  return false;
}

std::string dims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

/// Rows of cells as columns aligned to their widest cell, each line
/// starting with |indent|.
std::string alignColumns(const std::vector<std::vector<std::string>> &rows,
                         const std::string &indent) {
  std::vector<size_t> widths;
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      widths.resize(std::max(widths.size(), row.size()));
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string text;
  for (const auto &row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i)
      line += i + 1 < row.size()
                  ? row[i] + std::string(widths[i] - row[i].size() + 2, ' ')
                  : row[i];
    text += line + "\n";
  }
  return text;
}

std::string orDash(const std::string &name) {
  return name.empty() ? "-" : name;
}

std::string indentLines(const std::string &text, const std::string &indent) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    out += indent + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string targetText(const OwnLaunch &l) {
  return (l.target ? l.target->toString() : "another architecture") +
         (l.device.empty() ? "" : ", tuned for " + l.device);
}

/// "128x1x1 on vulkan:1.2, ceil(workload / 128x1x1) workgroups".
std::string describeOwnLaunch(const OwnLaunch &l) {
  return dims(l.abi.workgroupSize) + " on " + targetText(l) +
         ", ceil(workload / " + dims(l.abi.workloadPerWorkgroup) +
         ") workgroups";
}

/// Whether |l| brings a launch shape of its own (not only its constants).
bool ownShape(const OwnLaunch &l) { return l.abi.workloadPerWorkgroup[0]; }

/// "uniform buffer at set 0 binding 2 on vulkan:1.2 (std140 offsets 0, 4;
/// 8 bytes)": where a handwritten kernel takes its constants instead of
/// push constants.
std::string describeOwnConstants(const OwnLaunch &l) {
  std::string block = describeUniformConstants(l.abi);
  size_t paren = block.find(" (");
  return block.substr(0, paren) + " on " + targetText(l) + block.substr(paren);
}

/// What each own launch runs at |site|: "; handwritten (vulkan:1.2):
/// 79x1x1 workgroups of 128x1x1".
std::string ownSiteText(const std::vector<const OwnLaunch *> &launches,
                        const DispatchSite &site) {
  std::string text;
  for (const OwnLaunch *l : launches) {
    auto count = site.workload && ownShape(*l)
                     ? workgroupCountFor(l->abi, *site.workload)
                     : std::nullopt;
    if (count)
      text += "; handwritten (" + targetText(*l) + "): " + dims(*count) +
              " workgroups of " + dims(l->abi.workgroupSize);
  }
  return text;
}

/// "f32", or "struct Particle" for a binding of structs.
std::string bindingTypeText(const Binding &b) {
  if (!b.structLayout)
    return toString(b.elementType);
  return "struct" +
         (b.structLayout->name.empty() ? "" : " " + b.structLayout->name);
}

/// One line per struct binding: its layout as the kernel's SPIR-V declares
/// it ("binding 0 (`particles`): Particle, 32 bytes: pos vec2 at 0, ...").
std::string structLayoutLines(const KernelAbi &abi) {
  std::string text;
  for (size_t i = 0; i < abi.bindings.size(); ++i)
    if (abi.bindings[i].structLayout)
      text += "    " + describeBinding(abi, i) + ": " +
              describeStructLayout(*abi.bindings[i].structLayout) + "\n";
  return text.empty() ? text
                      : "  struct elements (standalone only; the buffer "
                        "holds count x stride bytes):\n" +
                            text;
}

/// A struct binding's layout for JSON: {name, stride, members}.
json structJson(const Binding &b) {
  json members = json::array();
  for (const StructMember &m : b.structLayout->members)
    members.push_back({{"name", m.name},
                       {"type", toString(m.type)},
                       {"glsl", structMemberTypeName(m)},
                       {"offset", m.offset},
                       {"components", m.components},
                       {"count", m.count},
                       {"array_stride", m.arrayStride}});
  return {{"name", b.structLayout->name},
          {"stride", b.structLayout->stride},
          {"members", std::move(members)}};
}

std::string renderExport(const KernelAbi &abi,
                         const std::vector<const DispatchSite *> &sites,
                         const std::vector<const OwnLaunch *> &launches) {
  std::vector<ParamSlot> cuda = cudaParamLayout(abi);
  std::vector<ParamSlot> push = pushConstantLayout(abi);
  std::string text = "export `" + abi.entry + "`\n";
  bool shaped = std::any_of(launches.begin(), launches.end(),
                            [](const OwnLaunch *l) { return ownShape(*l); });
  std::vector<std::vector<std::string>> head = {
      {"workgroup size:",
       dims(abi.workgroupSize) + (shaped ? " (the generated kernel's)" : "")}};
  // The handwritten kernel's own launch and constants: what actually runs.
  for (const OwnLaunch *l : launches) {
    if (ownShape(*l))
      head.push_back({"handwritten kernel:", describeOwnLaunch(*l)});
    if (l->abi.uniformConstants)
      head.push_back({"handwritten constants:", describeOwnConstants(*l)});
  }
  head.push_back({"dynamic shared memory:",
                  std::to_string(abi.dynamicSharedMemoryBytes) + " bytes"});
  text += alignColumns(head, "  ");
  text += "  bindings (CUDA: pointer parameters; Vulkan: storage buffers at "
          "set 0, binding = index):\n";
  std::vector<std::vector<std::string>> rows = {
      {"index", "name", "type", "access", "CUDA param offset"}};
  for (size_t i = 0; i < abi.bindings.size(); ++i)
    rows.push_back({std::to_string(i), orDash(abi.bindings[i].name),
                    bindingTypeText(abi.bindings[i]),
                    toString(abi.bindings[i].access),
                    std::to_string(cuda[i].offset)});
  text += abi.bindings.empty() ? "    (none)\n" : alignColumns(rows, "    ");
  text += structLayoutLines(abi);
  text += "  constants (CUDA: scalar parameters after the bindings; Vulkan: "
          "one push-constant block of " +
          std::to_string(pushConstantSize(abi)) +
          " bytes, or one uniform block of scalars at set 0 binding " +
          std::to_string(abi.bindings.size()) + " or later, std140):\n";
  rows = {{"index", "name", "type", "bytes", "CUDA param offset",
           "push-constant offset"}};
  for (size_t i = 0; i < abi.constants.size(); ++i)
    rows.push_back({std::to_string(i), orDash(abi.constants[i].name),
                    toString(abi.constants[i].type),
                    std::to_string(push[i].size),
                    std::to_string(cuda[abi.bindings.size() + i].offset),
                    std::to_string(push[i].offset)});
  text += abi.constants.empty() ? "    (none)\n" : alignColumns(rows, "    ");
  text += "  dispatched (the sizes a kernel is launched with" +
          std::string(abi.constants.empty() ? "; with no constants, its "
                                              "only sizes"
                                            : "") +
          "):\n";
  for (const DispatchSite *site : sites)
    text +=
        "    " + describeSite(abi, *site) + ownSiteText(launches, *site) + "\n";
  if (sites.empty())
    text += "    (not dispatched by the program)\n";
  text += holdsStructs(abi)
              ? "  CUDA: none (" + std::string(kNoCudaForStructs) + ")\n"
              : "  CUDA:\n" + indentLines(cudaIncludes(abi), "    ") +
                    indentLines(cudaDeclaration(abi, false), "    ");
  text += "  GLSL:\n    #version 450\n" +
          indentLines(glslExtensions(abi), "    ") +
          indentLines(glslInterface(abi, false), "    ");
  return text;
}

/// {target, workgroup_size, workload_per_workgroup, workgroup_counts: one
/// per site, null where the site records no workload}.
json ownLaunchJson(const OwnLaunch &l,
                   const std::vector<const DispatchSite *> &sites) {
  json counts = json::array();
  for (const DispatchSite *site : sites) {
    auto count = site->workload ? workgroupCountFor(l.abi, *site->workload)
                                : std::nullopt;
    counts.push_back(count ? json(*count) : json(nullptr));
  }
  json uniform = nullptr;
  if (const auto &u = l.abi.uniformConstants)
    uniform = {
        {"binding", u->binding}, {"offsets", u->offsets}, {"size", u->size}};
  return {{"target", l.target ? json(l.target->toString()) : json(nullptr)},
          {"device", l.device.empty() ? json(nullptr) : json(l.device)},
          {"workgroup_size", l.abi.workgroupSize},
          {"workload_per_workgroup", l.abi.workloadPerWorkgroup},
          {"workgroup_counts", counts},
          {"uniform_constants", uniform}};
}

json exportJson(const KernelAbi &abi,
                const std::vector<const DispatchSite *> &sites,
                const std::vector<const OwnLaunch *> &launches) {
  std::vector<ParamSlot> cuda = cudaParamLayout(abi);
  std::vector<ParamSlot> push = pushConstantLayout(abi);
  json bindings = json::array();
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    json binding = {{"index", i},
                    {"name", abi.bindings[i].name},
                    {"type", abi.bindings[i].structLayout
                                 ? std::string("struct")
                                 : toString(abi.bindings[i].elementType)},
                    {"access", toString(abi.bindings[i].access)},
                    {"cuda_param_offset", cuda[i].offset}};
    // Only a binding of structs says how they are laid out.
    if (abi.bindings[i].structLayout)
      binding["struct"] = structJson(abi.bindings[i]);
    bindings.push_back(std::move(binding));
  }
  json constants = json::array();
  for (size_t i = 0; i < abi.constants.size(); ++i)
    constants.push_back(
        {{"index", i},
         {"name", abi.constants[i].name},
         {"type", toString(abi.constants[i].type)},
         {"bytes", push[i].size},
         {"cuda_param_offset", cuda[abi.bindings.size() + i].offset},
         {"push_constant_offset", push[i].offset}});
  json dispatched = json::array();
  for (const DispatchSite *site : sites)
    dispatched.push_back({{"function", site->function},
                          {"op", site->op},
                          {"workgroup_count", site->workgroupCount},
                          {"binding_elements", site->bindingElements}});
  json own = json::array();
  for (const OwnLaunch *l : launches)
    own.push_back(ownLaunchJson(*l, sites));
  return {{"entry", abi.entry},
          {"workgroup_size", abi.workgroupSize},
          {"dynamic_shared_memory", abi.dynamicSharedMemoryBytes},
          {"bindings", bindings},
          {"constants", constants},
          {"push_constant_size", pushConstantSize(abi)},
          {"sites", dispatched},
          {"own_launches", own},
          {"cuda", holdsStructs(abi)
                       ? json(nullptr)
                       : json(cudaIncludes(abi) + cudaDeclaration(abi, false))},
          {"glsl",
           "#version 450\n" + glslExtensions(abi) + glslInterface(abi, false)}};
}

json executableJson(const ExecutableAbi &exe) {
  json targets = json::array(), substituted = json::array();
  for (const Target &t : exe.targets)
    targets.push_back(t.toString());
  for (const Target &t : exe.substitutedTargets)
    substituted.push_back(t.toString());
  json exports = json::array();
  for (uint32_t i = 0; i < exe.exports.size(); ++i)
    exports.push_back(exportJson(exe.exports[i], exportSites(exe, i),
                                 exportLaunches(exe, i)));
  return {{"name", exe.name},
          {"targets", targets},
          {"substituted_targets", substituted},
          {"exports", exports}};
}

std::string substitutedText(const ExecutableAbi &exe) {
  return exe.substitutedTargets.empty()
             ? "generated only"
             : "handwritten for " + joinTargets(exe.substitutedTargets);
}

} // namespace

std::string renderExecutableList(const ProgramAbi &program) {
  std::string text = displayPath(program.modulePath) + ": " +
                     std::to_string(program.executables.size()) +
                     " executable(s)\n";
  std::vector<std::vector<std::string>> rows;
  for (const ExecutableAbi &exe : program.executables) {
    std::string sig, wg;
    for (uint32_t i = 0; i < exe.exports.size(); ++i) {
      const KernelAbi &abi = exe.exports[i];
      sig += (sig.empty() ? "" : " | ") + formatSignature(abi);
      wg += (wg.empty() ? "" : " | ") + dims(abi.workgroupSize);
      std::set<std::string> sizes;
      std::string own;
      for (const OwnLaunch *l : exportLaunches(exe, i))
        if (ownShape(*l) && sizes.insert(dims(l->abi.workgroupSize)).second)
          own += (own.empty() ? "" : ", ") + dims(l->abi.workgroupSize);
      if (!own.empty())
        wg += " (handwritten: " + own + ")";
    }
    rows.push_back(
        {exe.name, sig, wg, joinTargets(exe.targets), substitutedText(exe)});
  }
  text += alignColumns(rows, "  ");
  return text + "`kernel-bench abi OUT_DIR EXECUTABLE` prints one's layout; "
                "`kernel-bench new-kernel OUT_DIR EXECUTABLE` starts a kernel "
                "for it\n";
}

std::string renderExecutableAbi(const ProgramAbi &program,
                                const ExecutableAbi &exe) {
  std::string text = "executable `" + exe.name + "` of " +
                     displayPath(program.modulePath) + "\n";
  text += alignColumns({{"compiled for:", joinTargets(exe.targets)},
                        {"substituted:", substitutedText(exe)}},
                       "  ");
  for (uint32_t i = 0; i < exe.exports.size(); ++i)
    text += renderExport(exe.exports[i], exportSites(exe, i),
                         exportLaunches(exe, i));
  return text;
}

json programAbiJson(const ProgramAbi &program) {
  json executables = json::array();
  for (const ExecutableAbi &exe : program.executables)
    executables.push_back(executableJson(exe));
  return {{"module", displayPath(program.modulePath)},
          {"executables", executables}};
}

json executableAbiJson(const ProgramAbi &program, const ExecutableAbi &exe) {
  return {{"module", displayPath(program.modulePath)},
          {"executable", executableJson(exe)}};
}

} // namespace kb::workbench

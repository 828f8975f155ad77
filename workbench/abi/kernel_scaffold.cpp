//===- workbench/abi/kernel_scaffold.cpp - A kernel directory for a -------===//
#include "workbench/abi/kernel_scaffold.h"
#include "workbench/abi/toml_text.h"

#include "common/paths.h"
#include "common/file_util.h"
#include "workbench/abi/abi_source.h"
#include "workbench/project/kernel_toml.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {

/// Whether |name| is a valid kernel name (kernel.toml's rule: it names the
/// output directory).
bool isValidKernelName(const std::string &name) {
  if (name.empty() || name[0] == '.' || name[0] == '-')
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.')
      return false;
  return true;
}

std::string renderAbiToml(const KernelAbi &abi) {
  const auto &wg = abi.workgroupSize;
  std::string text = "[abi]\n"
                     "workgroup_size = [" +
                     std::to_string(wg[0]) + ", " + std::to_string(wg[1]) +
                     ", " + std::to_string(wg[2]) +
                     "]\n"
                     "dynamic_shared_memory = " +
                     std::to_string(abi.dynamicSharedMemoryBytes) +
                     "  # the generated kernel's; yours may differ\n";
  auto nameField = [](const std::string &name) {
    return name.empty() ? std::string() : "name = " + tomlString(name) + ", ";
  };
  text += "bindings = [";
  for (const Binding &b : abi.bindings)
    text += "\n  { " + nameField(b.name) + "type = \"" +
            toString(b.elementType) + "\", access = \"" + toString(b.access) +
            "\" },";
  text += abi.bindings.empty() ? "]\n" : "\n]\n";
  text += "constants = [";
  for (const Constant &c : abi.constants)
    text +=
        "\n  { " + nameField(c.name) + "type = \"" + toString(c.type) + "\" },";
  text += abi.constants.empty() ? "]\n" : "\n]\n";
  return text;
}

std::string renderKernelToml(const ScaffoldRequest &request,
                             const std::string &name,
                             const std::vector<std::string> &sources,
                             const std::vector<Target> &targets) {
  const KernelAbi &abi = request.executable->exports.front();
  std::vector<std::string> targetNames;
  for (const Target &t : targets)
    targetNames.push_back(t.toString());
  return "# A handwritten kernel for executable `" + request.executable->name +
         "` of " + displayPath(request.program->modulePath) +
         ",\n# written by `kernel-bench new-kernel`. Format: "
         "kernels/README.md. The [abi] is the\n# dispatch's "
         "(docs/kernel-abi.md): the build checks your kernel against it.\n"
         "[kernel]\n"
         "name = " +
         tomlString(name) + "\nsources = " + tomlList(sources) +
         "\nentry = " + tomlString(abi.entry) +
         "\nsubstitutes = " + tomlString(request.executable->name) +
         "\ntargets = " + tomlList(targetNames) + "\n\n" + renderAbiToml(abi);
}

std::string dims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

/// The comment both sources start with: what the file is for, then
/// |abiLines| (each a comment line's text) and the workgroup size.
std::string sourceHeader(const ScaffoldRequest &request,
                         const std::string &name,
                         const std::vector<std::string> &abiLines) {
  const KernelAbi &abi = request.executable->exports.front();
  std::string text = "// " + name + ": a handwritten kernel for executable `" +
                     request.executable->name + "` of\n// " +
                     displayPath(request.program->modulePath) +
                     ", written by\n// `kernel-bench new-kernel`. The body "
                     "is yours to write.\n//\n";
  for (const std::string &line : abiLines)
    text += "// " + line + "\n";
  text += "// Workgroup " + dims(abi.workgroupSize) +
          "; the runtime dispatches the generated kernel's\n// workgroup "
          "count";
  std::vector<const DispatchSite *> sites = exportSites(*request.executable, 0);
  text += sites.empty() ? ".\n" : " (`kernel-bench abi`):\n";
  for (const DispatchSite *site : sites)
    text += "//   " + describeSite(abi, *site) + "\n";
  // A dispatch formed from a model has no constants: the sizes above are
  // all there is, fixed by the model's static shapes.
  return text + (abi.constants.empty()
                     ? "// No constants: the sizes are fixed (the model's "
                       "shapes); write them into the kernel.\n"
                     : "// Buffers carry no sizes: bound-check against the "
                       "constants.\n");
}

std::string renderCuda(const ScaffoldRequest &request,
                       const std::string &name) {
  const KernelAbi &abi = request.executable->exports.front();
  std::string text = sourceHeader(
      request, name,
      {"ABI (kernel.toml [abi], docs/kernel-abi.md): the parameters are the",
       "dispatch's bindings, one pointer each (const where readonly), then",
       "its constants, in this order."});
  std::string includes = cudaIncludes(abi);
  text += includes.empty() ? "" : "\n" + includes;
  text += "\n" + cudaDeclaration(abi, true);
  if (abi.dynamicSharedMemoryBytes)
    text += "  // Dynamic shared memory: " +
            std::to_string(abi.dynamicSharedMemoryBytes) +
            " bytes (kernel.toml dynamic_shared_memory):\n"
            "  // extern __shared__ unsigned char smem[];\n";
  return text + "  // TODO: your kernel\n}\n";
}

std::string renderGlsl(const ScaffoldRequest &request,
                       const std::string &name) {
  const KernelAbi &abi = request.executable->exports.front();
  std::string text = "#version 450\n" + glslExtensions(abi);
  text += sourceHeader(
      request, name,
      {"ABI (kernel.toml [abi], docs/kernel-abi.md): binding i is the",
       "storage buffer at set 0, binding i; the constants are one",
       "push-constant block, in order."});
  text += "\n" + glslInterface(abi, true) + "\nvoid main() {\n";
  if (!abi.constants.empty()) {
    std::string access;
    for (size_t i = 0; i < abi.constants.size(); ++i)
      access += (i ? ", " : "") + glslConstantAccess(abi, i);
    text += "  // The constants: " + access + ".\n";
  }
  return text + "  // TODO: your kernel\n}\n";
}

/// The program's targets of the languages requested; an error when none is
/// left.
StatusOr<std::vector<Target>> scaffoldTargets(const ScaffoldRequest &r) {
  std::vector<Target> targets;
  for (const Target &t : r.executable->targets)
    if ((t.isCuda() && r.cuda) || (t.isVulkan() && r.glsl))
      targets.push_back(t);
  if (targets.empty())
    return invalidArgument("executable `" + r.executable->name +
                           "` was compiled for " +
                           joinTargets(r.executable->targets) + " only: a " +
                           (r.cuda ? "CUDA" : "GLSL") +
                           " kernel would substitute nothing; pass --lang " +
                           (r.cuda ? "glsl" : "cuda"));
  return targets;
}

Status checkRequest(const ScaffoldRequest &r, const std::string &name) {
  const ExecutableAbi &exe = *r.executable;
  if (exe.exports.size() != 1) {
    std::string entries;
    for (const KernelAbi &abi : exe.exports)
      entries += (entries.empty() ? "" : ", ") + abi.entry;
    return invalidArgument(
        "executable `" + exe.name + "` has " +
        std::to_string(exe.exports.size()) + " exports (" + entries +
        "); a kernel.toml declares one entry and one [abi], so new-kernel "
        "writes kernels for single-export executables only (`kernel-bench "
        "abi` prints every export's layout)");
  }
  if (r.cuda && !isCudaEntryName(exe.exports.front().entry))
    return invalidArgument("export `" + exe.exports.front().entry +
                           "` of executable `" + exe.name +
                           "` cannot be the name of a CUDA extern \"C\" "
                           "kernel; pass --lang glsl");
  if (!isValidKernelName(name))
    return invalidArgument(
        "`" + name +
        "` (the directory's name, which names the kernel) is "
        "not a valid kernel name: expected letters, digits, `_`, `-` or `.`, "
        "not starting with `.` or `-`; pass another -o");
  return okStatus();
}

bool sameAbi(const KernelAbi &a, const KernelAbi &b) {
  if (a.bindings.size() != b.bindings.size() ||
      a.constants.size() != b.constants.size() ||
      a.workgroupSize != b.workgroupSize ||
      a.dynamicSharedMemoryBytes != b.dynamicSharedMemoryBytes)
    return false;
  for (size_t i = 0; i < a.bindings.size(); ++i)
    if (a.bindings[i].name != b.bindings[i].name ||
        a.bindings[i].elementType != b.bindings[i].elementType ||
        a.bindings[i].access != b.bindings[i].access)
      return false;
  for (size_t i = 0; i < a.constants.size(); ++i)
    if (a.constants[i].name != b.constants[i].name ||
        a.constants[i].type != b.constants[i].type)
      return false;
  return true;
}

/// Reads the written kernel.toml back with the project's reader: what a
/// build will see must be the dispatch's ABI and substitution.
Status checkWrittenKernel(const ScaffoldRequest &r, const fs::path &dir) {
  KB_ASSIGN_OR_RETURN(Kernel kernel,
                      loadKernel(dir / "kernel.toml", r.executable->targets));
  const KernelAbi &want = r.executable->exports.front();
  for (const toolchains::KernelSpec &spec : kernel.specs)
    if (!sameAbi(spec.abi, want))
      return internalError("the kernel.toml written for `" +
                           r.executable->name +
                           "` reads back with another ABI (a kernel-bench "
                           "bug; please report it)");
  if (kernel.substitutes != r.executable->name)
    return internalError("the kernel.toml written reads back substituting `" +
                         kernel.substitutes + "` (a kernel-bench bug)");
  return okStatus();
}

Status writeText(const fs::path &path, const std::string &text) {
  FILE *f = std::fopen(path.c_str(), "wbx");
  if (!f)
    return internalError("cannot create " + path.string() + ": " +
                         std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  ok = ::fsync(fileno(f)) == 0 && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    return internalError("cannot write " + path.string() + ": " +
                         std::strerror(errno));
  return okStatus();
}

Status existsError(const fs::path &dir) {
  return failedPrecondition(
      displayPath(dir) +
      " already exists; new-kernel never writes into an existing directory "
      "or over a file: pass another -o DIR, or remove it");
}

} // namespace

StatusOr<std::vector<ScaffoldFile>>
renderScaffold(const ScaffoldRequest &request) {
  std::string name = request.directory.lexically_normal().filename().string();
  if (name.empty()) // "dir/" normalizes to "dir/" with an empty filename
    name = request.directory.lexically_normal().parent_path().filename();
  KB_RETURN_IF_ERROR(checkRequest(request, name));
  KB_ASSIGN_OR_RETURN(std::vector<Target> targets, scaffoldTargets(request));
  std::vector<std::string> sources;
  if (request.cuda)
    sources.push_back(name + ".cu");
  if (request.glsl)
    sources.push_back(name + ".comp");
  std::vector<ScaffoldFile> files;
  files.push_back(
      {"kernel.toml", renderKernelToml(request, name, sources, targets)});
  if (request.cuda)
    files.push_back({name + ".cu", renderCuda(request, name)});
  if (request.glsl)
    files.push_back({name + ".comp", renderGlsl(request, name)});
  return files;
}

StatusOr<std::vector<ScaffoldFile>>
writeScaffold(const ScaffoldRequest &request) {
  fs::path dir = absoluteNormal(request.directory);
  if (dir.filename().empty())
    dir = dir.parent_path();
  std::error_code ec;
  if (fs::symlink_status(dir, ec).type() != fs::file_type::not_found)
    return existsError(dir);
  KB_ASSIGN_OR_RETURN(std::vector<ScaffoldFile> files, renderScaffold(request));
  KB_ASSIGN_OR_RETURN(TempDir temp,
                      TempDir::create(dir.parent_path(),
                                      "." + dir.filename().string() + ".new-"));
  for (const ScaffoldFile &file : files)
    KB_RETURN_IF_ERROR(writeText(temp.path() / file.name, file.text));
  KB_RETURN_IF_ERROR(checkWrittenKernel(request, temp.path()));
  // mkdtemp made it 0700; a kernel directory is an ordinary one.
  mode_t mask = ::umask(0);
  ::umask(mask);
  fs::permissions(temp.path(), static_cast<fs::perms>(0777 & ~mask), ec);
  // Never over anything that appeared meanwhile: RENAME_NOREPLACE.
  if (::renameat2(AT_FDCWD, temp.path().c_str(), AT_FDCWD, dir.c_str(),
                  RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST)
      return existsError(dir);
    return internalError("cannot create " + displayPath(dir) + ": " +
                         std::strerror(errno));
  }
  return files;
}

} // namespace kb::workbench

//===- workbench/cli/import_command.cpp - `kernel-bench import` -----------===//
//
//   kernel-bench import SOURCE... [-o DIR] [--entry NAME] [--define K=V]...
//                       [-I DIR]... [--target T]... [--force]
//
// Writes DIR/kernel.toml (default: the first source's directory) from what
// the compiled sources declare (kernel_import.h). Exit codes: 0 written;
// 1 a source does not build, its interface is outside the kernel ABI, the
// sources disagree, or kernel.toml exists (without --force) or cannot be
// written (nothing is left half-written); 2 usage (a source of no known
// language, a bad --define or --target).
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "common/paths.h"
#include "toolchains/tool_reaper.h"
#include "toolchains/toolchains.h"
#include "workbench/abi/kernel_import.h"
#include "workbench/cli/command.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::workbench {

namespace {

namespace fs = std::filesystem;

struct ImportArgs {
  std::vector<std::string> sources;
  std::string output;
  std::string entry;
  std::vector<std::string> defines;
  std::vector<std::string> includes;
  std::vector<std::string> targets;
  bool force = false;
};

int fail(const Status &status, int code = kExitUserError) {
  std::fprintf(stderr, "kernel-bench import: error: %s\n",
               status.message().c_str());
  return code;
}

/// The flags as a request; InvalidArgument for a usage error.
StatusOr<ImportRequest> makeRequest(const ImportArgs &args) {
  ImportRequest request;
  for (const std::string &s : args.sources) {
    fs::path source = absoluteNormal(s);
    std::error_code ec;
    if (!fs::is_regular_file(source, ec))
      return notFound("source `" + s + "` is not a file (looked for " +
                      displayPath(source) + ")");
    std::string ext = source.extension().string();
    if (ext != ".cu" && ext != ".comp" && ext != ".glsl")
      return invalidArgument("`" + s +
                             "`: expected a CUDA (.cu) or GLSL compute "
                             "(.comp, .glsl) source");
    request.sources.push_back(source);
  }
  for (const std::string &d : args.defines) {
    size_t eq = d.find('=');
    std::string name = d.substr(0, eq);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                               "TUVWXYZ0123456789_") != std::string::npos)
      return invalidArgument("--define `" + d +
                             "`: expected NAME=VALUE or NAME, NAME a macro "
                             "name");
    request.defines.emplace_back(
        name, eq == std::string::npos ? "" : d.substr(eq + 1));
  }
  for (const std::string &dir : args.includes)
    request.includeDirs.push_back(absoluteNormal(dir));
  for (const std::string &t : args.targets) {
    KB_ASSIGN_OR_RETURN(Target target, Target::parse(t));
    request.targets.push_back(target);
  }
  request.entry = args.entry;
  request.directory = args.output.empty()
                          ? request.sources.front().parent_path()
                          : absoluteNormal(args.output);
  return request;
}

/// Writes |text| to |path| whole or not at all; never over an existing
/// file unless |force|.
Status writeKernelToml(const fs::path &path, const std::string &text,
                       bool force) {
  std::error_code ec;
  if (!force && fs::symlink_status(path, ec).type() != fs::file_type::not_found)
    return failedPrecondition(displayPath(path) +
                              " exists; import never overwrites a file: pass "
                              "--force to replace it, or -o another DIR");
  fs::create_directories(path.parent_path(), ec);
  std::string temp = (path.parent_path() / ".kernel.toml.import-XXXXXX");
  int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return internalError("cannot create a file in " +
                         displayPath(path.parent_path()) + ": " +
                         std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) ==
            static_cast<ssize_t>(text.size());
  // mkstemp made it 0600; a kernel.toml is an ordinary file.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ok = ::fchmod(fd, 0666 & ~mask) == 0 && ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  int flags = force ? 0 : RENAME_NOREPLACE;
  if (ok &&
      ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), flags) == 0)
    return okStatus();
  int error = errno;
  ::unlink(temp.c_str());
  if (error == EEXIST)
    return failedPrecondition(displayPath(path) +
                              " appeared while importing; pass --force to "
                              "replace it");
  return internalError("cannot write " + displayPath(path) + ": " +
                       std::strerror(error));
}

int runImport(const ImportArgs &args) {
  StatusOr<ImportRequest> request = makeRequest(args);
  if (!request.ok())
    return fail(request.status(),
                request.status().code() == StatusCode::NotFound ? kExitUserError
                                                                : kExitUsage);
  fs::path manifest = request->directory / "kernel.toml";
  std::error_code ec;
  if (!args.force &&
      fs::symlink_status(manifest, ec).type() != fs::file_type::not_found)
    return fail(failedPrecondition(displayPath(manifest) +
                                   " exists; import never overwrites a file: "
                                   "pass --force to replace it, or -o "
                                   "another DIR"));
  // Every tool leads a process group the reaper kills if we die.
  StatusOr<std::unique_ptr<toolchains::ToolReaper>> reaper =
      toolchains::ToolReaper::start();
  if (!reaper.ok())
    return fail(reaper.status());
  toolchains::Toolchains tools;
  StatusOr<ImportedKernel> kernel = importKernel(*request, tools);
  if (!kernel.ok())
    return fail(kernel.status());
  std::string text = renderImportedToml(*kernel, request->directory);
  if (Status written = writeKernelToml(manifest, text, args.force);
      !written.ok())
    return fail(written);
  size_t todos = 0;
  for (size_t pos = text.find(kImportPlaceholder); pos != std::string::npos;
       pos = text.find(kImportPlaceholder, pos + 1))
    ++todos;
  // The header's own mention of the placeholder is not one.
  todos = todos > 0 ? todos - 1 : 0;
  std::printf("wrote %s: %zu binding(s), %zu constant(s)%s\n",
              displayPath(manifest).c_str(), kernel->bindings.size(),
              kernel->constants.size(),
              kernel->specialization.empty()
                  ? ""
                  : (", " + std::to_string(kernel->specialization.size()) +
                     " specialization constant(s)")
                        .c_str());
  std::printf("next: replace the %zu \"TODO:\" value(s) (sizes, constant "
              "values, what the binary cannot say), add the directory to "
              "[project] kernels, then `kernel-bench build`\n",
              todos);
  return kExitOk;
}

} // namespace

CommandRegistration addImportCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "import", "Write a kernel.toml from what a CUDA or GLSL kernel's "
                "compiled binary declares: bindings, constants, "
                "specialization constants, workgroup size");
  auto args = std::make_shared<ImportArgs>();
  app->add_option("SOURCE", args->sources,
                  "The kernel's sources: at most one .cu and one .comp/.glsl")
      ->required();
  app->add_option("-o,--output", args->output,
                  "Directory of the kernel.toml (default: the first "
                  "source's); sources are written relative to it");
  app->add_option("--entry", args->entry,
                  "CUDA: the kernel's function name, or the mangled name of "
                  "one template instance (default: the only kernel)");
  app->add_option("-D,--define", args->defines,
                  "NAME=VALUE for the preprocessor (repeatable); written to "
                  "[kernel] defines");
  app->add_option("-I,--include", args->includes,
                  "An include directory (repeatable); written to [kernel] "
                  "include_dirs");
  app->add_option("--target", args->targets,
                  "What to compile for, one per language (default cuda:sm_90, "
                  "vulkan:1.2)");
  app->add_flag("--force", args->force, "Replace an existing kernel.toml");
  return {app, [args]() { return runImport(*args); }};
}

} // namespace kb::workbench

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

#include <cctype>
#include <cstdio>
#include <memory>

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

Status existsError(const fs::path &manifest) {
  return failedPrecondition(displayPath(manifest) +
                            " exists; import never overwrites a file: pass "
                            "--force to replace it, or -o another DIR");
}

/// The placeholders in |text|: every value that starts with "TODO:".
size_t countPlaceholders(const std::string &text) {
  const std::string value = std::string("= \"") + kImportPlaceholder;
  size_t count = 0;
  for (size_t pos = text.find(value); pos != std::string::npos;
       pos = text.find(value, pos + 1))
    ++count;
  return count;
}

int runImport(const ImportArgs &args) {
  StatusOr<ImportRequest> request = makeRequest(args);
  if (!request.ok())
    return fail(request.status(),
                request.status().code() == StatusCode::NotFound ? kExitUserError
                                                                : kExitUsage);
  fs::path manifest = request->directory / "kernel.toml";
  // Checked before compiling too, so a refusal costs no tool run.
  std::error_code ec;
  if (!args.force &&
      fs::symlink_status(manifest, ec).type() != fs::file_type::not_found)
    return fail(existsError(manifest));
  // Every tool leads a process group the reaper kills if we die.
  StatusOr<std::unique_ptr<toolchains::ToolReaper>> reaper =
      toolchains::ToolReaper::start([](const std::string &why) {
        std::fprintf(stderr, "kernel-bench: warning: %s\n", why.c_str());
      });
  if (!reaper.ok())
    return fail(reaper.status());
  toolchains::Toolchains tools;
  StatusOr<ImportedKernel> kernel = importKernel(*request, tools);
  if (!kernel.ok())
    return fail(kernel.status());
  std::string text = renderImportedToml(*kernel, request->directory);
  if (Status written = writeFileAtomic(manifest, text, args.force);
      !written.ok())
    return fail(written.code() == StatusCode::AlreadyExists
                    ? existsError(manifest)
                    : written);
  size_t todos = countPlaceholders(text);
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
      ->type_name("FILE")
      ->required();
  app->add_option("-o,--output", args->output,
                  "Directory of the kernel.toml (default: the first "
                  "source's); sources are written relative to it")
      ->type_name("DIR");
  app->add_option("--entry", args->entry,
                  "CUDA: the kernel's function name, or the mangled name of "
                  "one template instance (default: the only kernel)");
  app->add_option("-D,--define", args->defines,
                  "NAME=VALUE for the preprocessor (repeatable); written to "
                  "[kernel] defines");
  app->add_option("-I,--include", args->includes,
                  "An include directory (repeatable); written to [kernel] "
                  "include_dirs")
      ->type_name("DIR");
  app->add_option("--target", args->targets,
                  "What to compile for, one per language (default cuda:sm_90, "
                  "vulkan:1.2)");
  app->add_flag("--force", args->force, "Replace an existing kernel.toml");
  return {app, [args]() { return runImport(*args); }};
}

} // namespace kb::workbench

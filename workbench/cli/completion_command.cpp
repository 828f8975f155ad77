//===- workbench/cli/completion_command.cpp - `kernel-bench completion` ---===//
//
// `kernel-bench completion bash|zsh|fish [-o FILE]`: the completion script
// for that shell, generated from the root app this binary parses with (the
// convention of gh, kubectl and rustup). The build installs all three
// (workbench/CMakeLists.txt); this is for a kernel-bench not installed.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/cli_model.h"
#include "workbench/cli/command.h"
#include "workbench/cli/completion_script.h"
#include "workbench/cli/generated_output.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace kb::workbench {

namespace {

struct CompletionArgs {
  std::string shell;
  std::string output;
};

} // namespace

CommandRegistration addCompletionCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "completion", "Print the shell completion script for bash, zsh or "
                    "fish: eval \"$(kernel-bench completion bash)\"");
  auto args = std::make_shared<CompletionArgs>();
  app->add_option("SHELL", args->shell, "The shell: bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  app->add_option("-o,--output", args->output,
                  "Write the script to this file instead of standard output")
      ->type_name("FILE");
  // |root| is complete when the command runs: every command registered.
  const CLI::App *tree = &root;
  return {app, [args, tree]() {
            CliModel model = describeCli(*tree);
            std::string script =
                args->shell == "bash"  ? bashCompletionScript(model)
                : args->shell == "zsh" ? zshCompletionScript(model)
                                       : fishCompletionScript(model);
            return emitGeneratedText("completion", script, args->output);
          }};
}

} // namespace kb::workbench

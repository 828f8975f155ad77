//===- workbench/cli/cli_model.h - The CLI definition as data ---*- C++ -*-===//
//
// What `kernel-bench --help` shows, read from the live CLI11 app tree into
// plain structs, so the completion scripts and the man page are generated
// from the one definition the parser uses and cannot list a flag it lacks.
// Hidden subcommands and options (group "", like `__worker`) are left out:
// they are for kernel-bench itself, not for people.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_CLI_CLI_MODEL_H_
#define KB_WORKBENCH_CLI_CLI_MODEL_H_

#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace kb::workbench {

/// What a shell should offer for an argument's value.
enum class ValueKind {
  kNone,      // A flag: no value.
  kText,      // A number, a target, a URL...: nothing to offer.
  kPath,      // Any file or directory (FILE, PATH, a TEXT positional).
  kDirectory, // Directories only (a type name with DIR in it).
  kChoice,    // One of |choices| (a CLI::IsMember check).
};

struct CliArgument {
  /// "-o", "--output" for an option; the placeholder ("PROJECT_DIR") for a
  /// positional.
  std::vector<std::string> names;
  std::string valueName; // "DIR", "N"; empty for a flag.
  std::string help;
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;
  bool required = false;
  bool repeatable = false; // Given more than once, or a list of values.
};

struct CliCommand {
  std::string name;
  std::string description;
  std::vector<CliArgument> options; // In definition order, --help first.
  std::vector<CliArgument> positionals;
};

struct CliModel {
  std::string name; // "kernel-bench".
  std::string description;
  std::vector<CliArgument> options; // --help, --version.
  std::vector<CliCommand> commands; // Visible ones, in definition order.
};

/// Reads |root| and its visible subcommands (one level: kernel-bench has no
/// visible nested commands).
CliModel describeCli(const CLI::App &root);

} // namespace kb::workbench

#endif // KB_WORKBENCH_CLI_CLI_MODEL_H_

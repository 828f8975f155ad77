//===- workbench/cli/cli_model.cpp - The CLI definition as data -----------===//
//
// CLI11 keeps what completion needs in its help strings: an option's type
// name ("DIR", "TEXT") and its validators' descriptions ("{bash,zsh,fish}"
// for IsMember) are joined by ':' in get_type_name(). The kind of value is
// read from those (DIR, FILE, PATH, a set of choices), so annotating an
// option for --help annotates it for the shells too.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/cli_model.h"

#include <CLI/CLI.hpp>

#include <sstream>

namespace kb::workbench {

namespace {

std::vector<std::string> splitOn(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    parts.push_back(part);
  return parts;
}

/// The choices of an IsMember check: the "{a,b,c}" part of the type name.
std::vector<std::string> choicesOf(const std::vector<std::string> &parts) {
  for (const std::string &part : parts)
    if (part.size() > 2 && part.front() == '{' && part.back() == '}')
      return splitOn(part.substr(1, part.size() - 2), ',');
  return {};
}

ValueKind kindOf(const CliArgument &argument, bool positional) {
  const std::string &type = argument.valueName;
  if (type.empty())
    return ValueKind::kNone;
  if (!argument.choices.empty())
    return ValueKind::kChoice;
  if (type.find("DIR") != std::string::npos)
    return ValueKind::kDirectory;
  if (type == "FILE" || type == "PATH")
    return ValueKind::kPath;
  // An unannotated positional is a project, a build, a report or a source
  // here; an unannotated flag value is as often a regex or a number as a
  // path, and a wrong offer is worse than none. Path-valued flags say so
  // with type_name("FILE"/"DIR"/"PATH"), which --help shows too.
  if (positional && type == "TEXT")
    return ValueKind::kPath;
  return ValueKind::kText;
}

CliArgument describeOption(const CLI::Option &option) {
  CliArgument argument;
  const bool positional = !option.nonpositional();
  if (positional)
    argument.names.push_back(option.get_name(true, false));
  for (const std::string &name : option.get_snames())
    argument.names.push_back("-" + name);
  for (const std::string &name : option.get_lnames())
    argument.names.push_back("--" + name);
  argument.help = option.get_description();
  argument.required = option.get_required();
  if (option.get_items_expected_max() > 0) {
    std::vector<std::string> parts = splitOn(option.get_type_name(), ':');
    argument.valueName = parts.empty() ? "VALUE" : parts.front();
    argument.choices = choicesOf(parts);
  }
  argument.repeatable =
      option.get_items_expected_max() > 1 ||
      option.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  argument.kind = kindOf(argument, positional);
  return argument;
}

/// Fills |options| and |positionals| from |app|'s visible arguments.
void describeArguments(const CLI::App &app, std::vector<CliArgument> &options,
                       std::vector<CliArgument> &positionals) {
  for (const CLI::Option *option : app.get_options()) {
    if (option->get_group().empty())
      continue;
    (option->nonpositional() ? options : positionals)
        .push_back(describeOption(*option));
  }
}

} // namespace

CliModel describeCli(const CLI::App &root) {
  CliModel model;
  model.name = root.get_name();
  model.description = root.get_description();
  std::vector<CliArgument> rootPositionals;
  describeArguments(root, model.options, rootPositionals);
  for (const CLI::App *sub :
       root.get_subcommands([](const CLI::App *) { return true; })) {
    if (sub->get_group().empty())
      continue;
    CliCommand command;
    command.name = sub->get_name();
    command.description = sub->get_description();
    describeArguments(*sub, command.options, command.positionals);
    model.commands.push_back(std::move(command));
  }
  return model;
}

} // namespace kb::workbench

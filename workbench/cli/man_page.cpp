//===- workbench/cli/man_page.cpp - kernel-bench.1 ------------------------===//
//
// man(7) rather than mdoc(7): groff, mandoc and every man(1) read it, and
// each command's flags map onto .TP paragraphs one to one. Flag names are
// written with \- so that they render (and can be searched for) as ASCII
// hyphens.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/man_page.h"

#include "workbench/support/exit_codes.h"

#include <algorithm>
#include <cctype>

namespace kb::workbench {

namespace {

std::string hyphens(const std::string &text) {
  std::string escaped;
  for (char c : text)
    escaped += c == '-' ? std::string("\\-") : std::string(1, c);
  return escaped;
}

/// `\fB\-o\fR, \fB\-\-output\fR \fIDIR\fR`: a .TP tag.
std::string argumentTag(const CliArgument &argument, bool positional) {
  if (positional)
    return "\\fI" + roffText(argument.names.front()) + "\\fR" +
           (argument.repeatable ? "..." : "");
  std::string tag;
  for (const std::string &name : argument.names)
    tag += (tag.empty() ? "" : ", ") + ("\\fB" + hyphens(name) + "\\fR");
  if (!argument.valueName.empty())
    tag += " \\fI" + roffText(argument.valueName) + "\\fR";
  return tag;
}

std::string argumentParagraph(const CliArgument &argument, bool positional) {
  std::string help = argument.help;
  if (argument.kind == ValueKind::kChoice && !argument.choices.empty()) {
    std::string choices;
    for (const std::string &choice : argument.choices)
      choices += (choices.empty() ? "" : ", ") + choice;
    help += (help.empty() ? "" : " ") + ("(one of: " + choices + ")");
  }
  if (argument.repeatable && !positional &&
      help.find("repeatable") == std::string::npos)
    help += " (repeatable)";
  return ".TP\n" + argumentTag(argument, positional) + "\n" + roffText(help) +
         "\n";
}

/// `kernel-bench build [options] [PROJECT_DIR]`, as a .SS heading.
std::string commandHeading(const std::string &program,
                           const CliCommand &command) {
  std::string heading = program + " " + command.name;
  if (!command.options.empty())
    heading += " [options]";
  for (const CliArgument &positional : command.positionals) {
    std::string name =
        positional.names.front() + (positional.repeatable ? "..." : "");
    heading += " " + (positional.required ? name : "[" + name + "]");
  }
  return ".SS \"" + hyphens(roffText(heading)) + "\"\n";
}

/// --help is said once, in DESCRIPTION, not under every command.
bool isHelpFlag(const CliArgument &option) {
  for (const std::string &name : option.names)
    if (name == "--help")
      return true;
  return false;
}

std::string commandSection(const std::string &program, CliCommand command) {
  command.options.erase(std::remove_if(command.options.begin(),
                                       command.options.end(), isHelpFlag),
                        command.options.end());
  std::string text = commandHeading(program, command);
  std::string description = roffText(command.description);
  if (!description.empty() && description.back() != '.')
    description += '.';
  text += description + "\n";
  for (const CliArgument &positional : command.positionals)
    text += argumentParagraph(positional, true);
  for (const CliArgument &option : command.options)
    text += argumentParagraph(option, false);
  return text;
}

std::string header(const CliModel &model, const std::string &version) {
  std::string summary = model.description;
  if (summary.rfind(model.name + ": ", 0) == 0)
    summary = summary.substr(model.name.size() + 2);
  std::string upper;
  for (char c : model.name)
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string sentence = summary; // DESCRIPTION's starts with a capital.
  if (!sentence.empty())
    sentence[0] = static_cast<char>(
        std::toupper(static_cast<unsigned char>(sentence[0])));
  std::string text = ".TH " + hyphens(upper) + " 1 \"\" \"" + model.name + " " +
                     version + "\" \"User Commands\"\n";
  text += ".SH NAME\n" + hyphens(model.name) + " \\- " + roffText(summary) +
          "\n.SH SYNOPSIS\n.B " + hyphens(model.name) + "\n";
  for (const CliArgument &option : model.options)
    text += ".RB [ " + hyphens(option.names.back()) + " ]\n";
  text += ".I COMMAND\n.RI [ options ]\n.RI [ arguments ]\n";
  text += ".SH DESCRIPTION\n" + roffText(sentence) +
          ".\nEach command has its own flags; \\fB" + hyphens(model.name) +
          " \\fICOMMAND\\fB \\-\\-help\\fR lists them.\n"
          "Every error is one line on standard error, \\fB" +
          hyphens(model.name) + " \\fICOMMAND\\fB: error:\\fR \\fIWHAT\\fR.\n";
  return text;
}

} // namespace

std::string roffText(const std::string &text) {
  std::string escaped;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\''))
      escaped += "\\&";
    escaped += c == '\\' ? std::string("\\e") : std::string(1, c);
    lineStart = c == '\n';
  }
  return escaped;
}

std::string manPage(const CliModel &model, const std::string &version) {
  std::string page = header(model, version);
  page += ".SH OPTIONS\n";
  for (const CliArgument &option : model.options)
    page += argumentParagraph(option, false);
  page += ".SH COMMANDS\n";
  for (const CliCommand &command : model.commands)
    page += commandSection(model.name, command);
  page += ".SH \"EXIT STATUS\"\nThe same codes for every command:\n";
  for (const ExitCodeDoc &row : kExitCodeDocs)
    page +=
        ".TP\n.B " + roffText(row.code) + "\n" + roffText(row.meaning) + "\n";
  page += ".SH \"SEE ALSO\"\n"
          "\\fIdocs/cli.md\\fR in the kernel-bench source tree: every "
          "command's inputs, outputs and exit codes in full.\n";
  return page;
}

} // namespace kb::workbench

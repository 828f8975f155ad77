//===- workbench/cli/cli_model_test.cpp - The CLI definition as data ------===//
#include "workbench/cli/cli_model.h"

#include "workbench/cli/completion_script.h"
#include "workbench/cli/man_page.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kb::workbench {
namespace {

/// A small tree with what kernel-bench's has: a path positional, typed and
/// untyped values, a repeatable flag, choices, a hidden option and a hidden
/// command.
struct TestCli {
  CLI::App root{"tool: does things", "tool"};
  std::string dir, out, device, mode;
  std::vector<std::string> targets;
  bool quick = false;

  TestCli() {
    CLI::App *build = root.add_subcommand("build", "Build a project");
    build->add_option("PROJECT_DIR", dir, "The project")->type_name("DIR");
    build->add_option("-o,--output", out, "Where outputs go")
        ->type_name("FILE");
    build->add_option("--device", device, "Which device");
    build->add_option("--target", targets, "A target; repeatable");
    build->add_option("--mode", mode, "How")
        ->check(CLI::IsMember({"fast", "slow"}));
    build->add_flag("--quick", quick, "Fewer samples");
    build->add_option("--secret", mode, "Internal")->group("");
    CLI::App *worker = root.add_subcommand("__worker", "");
    worker->group("");
    worker->add_flag("--peak-only", quick, "Internal");
  }

  const CliArgument &option(const std::string &name) {
    model = describeCli(root);
    for (const CliArgument &argument : model.commands.at(0).options)
      for (const std::string &spelling : argument.names)
        if (spelling == name)
          return argument;
    throw std::runtime_error("no option " + name);
  }

  CliModel model;
};

TEST(CliModelTest, ListsOnlyVisibleCommandsAndOptions) {
  TestCli cli;
  CliModel model = describeCli(cli.root);
  EXPECT_EQ(model.name, "tool");
  ASSERT_EQ(model.commands.size(), 1u);
  EXPECT_EQ(model.commands[0].name, "build");
  for (const CliArgument &option : model.commands[0].options)
    EXPECT_NE(option.names.back(), "--secret");
  ASSERT_EQ(model.commands[0].positionals.size(), 1u);
  EXPECT_EQ(model.commands[0].positionals[0].names,
            std::vector<std::string>{"PROJECT_DIR"});
}

TEST(CliModelTest, KindsComeFromTypeNamesAndChecks) {
  TestCli cli;
  EXPECT_EQ(describeCli(cli.root).commands[0].positionals[0].kind,
            ValueKind::kDirectory);
  EXPECT_EQ(cli.option("--output").kind, ValueKind::kPath);
  EXPECT_EQ(cli.option("--output").names,
            (std::vector<std::string>{"-o", "--output"}));
  // An untyped flag value may be anything: no path offered.
  EXPECT_EQ(cli.option("--device").kind, ValueKind::kText);
  EXPECT_EQ(cli.option("--mode").kind, ValueKind::kChoice);
  EXPECT_EQ(cli.option("--mode").choices,
            (std::vector<std::string>{"fast", "slow"}));
  EXPECT_EQ(cli.option("--quick").kind, ValueKind::kNone);
  EXPECT_TRUE(cli.option("--target").repeatable);
  EXPECT_FALSE(cli.option("--device").repeatable);
}

TEST(CliModelTest, NothingHiddenReachesTheGeneratedFiles) {
  TestCli cli;
  CliModel model = describeCli(cli.root);
  for (const std::string &text :
       {bashCompletionScript(model), zshCompletionScript(model),
        fishCompletionScript(model), manPage(model, "1.0")}) {
    EXPECT_EQ(text.find("__worker"), std::string::npos) << text;
    EXPECT_EQ(text.find("peak"), std::string::npos) << text;
    EXPECT_EQ(text.find("secret"), std::string::npos) << text;
    EXPECT_NE(text.find("quick"), std::string::npos) << text;
  }
}

TEST(CompletionScriptTest, QuotesAndShortens) {
  EXPECT_EQ(singleQuoted("it's"), "'it'\\''s'");
  EXPECT_EQ(shellIdentifier("new-kernel"), "new_kernel");
  EXPECT_EQ(shortHelp("Only benchmarks whose name matches (a regex)"),
            "Only benchmarks whose name matches");
  // A stop right at the start would leave a label, not a description.
  EXPECT_EQ(shortHelp("slower: exit 1 on a regression; never: report"),
            "slower: exit 1 on a regression");
}

TEST(ManPageTest, EscapesRoff) {
  EXPECT_EQ(roffText(".x\n'y a\\b"), "\\&.x\n\\&'y a\\eb");
  TestCli cli;
  std::string page = manPage(describeCli(cli.root), "1.0");
  EXPECT_EQ(page.rfind(".TH TOOL 1 \"\" \"tool 1.0\"", 0), 0u) << page;
  EXPECT_NE(page.find(".SS \"tool build [options] [PROJECT_DIR]\""),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFILE\\fR"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(".SH \"EXIT STATUS\"\n"), std::string::npos);
  EXPECT_NE(page.find(".B 77\n"), std::string::npos);
}

} // namespace
} // namespace kb::workbench

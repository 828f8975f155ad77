//===- workbench/cli/worker_command.cpp - The hidden `__worker` -----------===//
//
// `kernel-bench __worker bench MODULE ...` and `kernel-bench __worker run
// BUILD ...`: what `bench` and `run` start in a child process (worker.h).
// In the group "" so that --help does not list it: it is not for people.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

namespace kb::workbench {

CommandRegistration addWorkerCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand("__worker", "");
  app->group("");
  app->require_subcommand(1);
  auto parts = std::make_shared<std::vector<CommandRegistration>>();
  parts->push_back(addBenchWorkerCommand(*app));
  parts->push_back(addRunWorkerCommand(*app));
  return {app, [parts]() {
            for (const CommandRegistration &part : *parts)
              if (part.app->parsed())
                return part.run();
            return static_cast<int>(kExitUsage);
          }};
}

} // namespace kb::workbench

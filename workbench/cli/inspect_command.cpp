//===- workbench/cli/inspect_command.cpp - `kernel-bench inspect` ---------===//
//
//   kernel-bench inspect BUILD [BENCHMARK] [--json]
//
// Every variant of each benchmarked executable side by side, read from its
// code (workbench/inspect/): the PTX or SPIR-V mix, ptxas's figures and
// occupancy, SASS where a disassembler is installed, why the candidate
// differs from the reference; listings and diffs in BUILD/inspect/. Exit
// codes: 0 inspected; 1 BUILD is not a build with benchmarks, no such
// benchmark, a module that does not load, a file that cannot be written;
// 2 usage.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"
#include "runtime/hal/driver_registry.h"
#include "workbench/inspect/inspect_engine.h"
#include "workbench/inspect/inspect_json.h"
#include "workbench/inspect/inspect_render.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

struct InspectArgs {
  InspectRequest request;
  bool json = false;
};

int runInspectCommand(const InspectArgs &args) {
  StatusOr<InspectReport> report = runInspect(args.request);
  if (!report.ok()) {
    std::fprintf(stderr, "kernel-bench inspect: error: %s\n",
                 report.status().message().c_str());
    return kExitUserError;
  }
  std::string text = args.json ? inspectJson(*report).dump(2) + "\n"
                               : renderInspectText(*report);
  std::fputs(text.c_str(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitUserError;
}

} // namespace

CommandRegistration addInspectCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "inspect",
      "Show each benchmark's variants side by side from their code (PTX or "
      "SPIR-V instruction mix, registers, occupancy) and why the handwritten "
      "kernel differs from the generated one; listings and diffs in "
      "BUILD/inspect/");
  auto args = std::make_shared<InspectArgs>();
  app->add_option("BUILD", args->request.buildDir,
                  "Output directory of `kernel-bench build`")
      ->type_name("PATH")
      ->required();
  app->add_option("BENCHMARK", args->request.benchmark,
                  "One benchmark (as `bench` names it, e.g. "
                  "saxpy_1048576x1x1); without it, every benchmark")
      ->type_name("NAME");
  app->add_flag("--json", args->json,
                "Print JSON (schema in docs/cli.md) instead of text");
  app->add_option("--device", args->request.device,
                  "Where the Vulkan driver's own statistics of each SPIR-V "
                  "variant come from (VK_KHR_pipeline_executable_properties: "
                  "registers, spills, instructions by the driver's names): "
                  "auto (a Vulkan GPU, else any Vulkan device), vulkan, "
                  "vulkan:N, or none (default auto)")
      ->type_name("D")
      ->check([](const std::string &spec) -> std::string {
        if (spec == "none" || spec == "auto")
          return "";
        StatusOr<hal::DeviceSpec> parsed = hal::parseDeviceSpec(spec);
        if (parsed.ok() && parsed->driver == "vulkan")
          return "";
        return "expected auto, vulkan, vulkan:N or none (driver statistics "
               "come from Vulkan), found `" +
               spec + "`";
      });
  return {app, [args]() { return runInspectCommand(*args); }};
}

} // namespace kb::workbench

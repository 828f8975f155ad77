//===- workbench/cli/bundle_command.cpp - `kernel-bench bundle` -----------===//
//
//   kernel-bench bundle [BUILD] -o OUT.tar
//
// Packs what a GPU runner needs to bench a build (bundle.h) into one file.
// Exit codes: 0 written; 1 BUILD is not a build with benchmarks, or OUT
// cannot be written (nothing half-written is left); 2 usage.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/bundle.h"
#include "workbench/cli/command.h"

#include <CLI/CLI.hpp>

#include <filesystem>

#include <cstdio>
#include <memory>

namespace kb::workbench {

namespace {

struct BundleArgs {
  std::string build = "kb-out";
  std::string output;
};

int runBundle(const BundleArgs &args) {
  StatusOr<BundleSummary> summary = createBundle(args.build, args.output);
  if (!summary.ok()) {
    std::fprintf(stderr, "kernel-bench bundle: error: %s\n",
                 summary.status().message().c_str());
    return kExitUserError;
  }
  uint64_t payload = 0;
  size_t arrays = 0;    // kernels' fixed inputs and expected outputs
  size_t libraries = 0; // host references: native code bench will load
  for (const BundleMember &m : summary->members) {
    payload += m.bytes;
    std::string extension = std::filesystem::path(m.name).extension();
    arrays += extension == ".npy";
    libraries += extension == ".so";
  }
  std::string data =
      arrays ? " + " + std::to_string(arrays) + " .npy arrays" : "";
  if (libraries)
    data += " + " + std::to_string(libraries) + " host reference librar" +
            (libraries == 1 ? "y" : "ies") + " (native code)";
  std::printf("bundled %zu files (build.json + %zu modules%s, %.1f KiB) into "
              "%s: %.1f KiB\n",
              summary->members.size(),
              summary->members.size() - 1 - arrays - libraries, data.c_str(),
              payload / 1024.0, args.output.c_str(),
              summary->archiveBytes / 1024.0);
  return kExitOk;
}

} // namespace

CommandRegistration addBundleCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "bundle", "Pack a build's benchmark modules and build.json into one "
                "tar file for GPU runners (bench it with `kernel-bench bench "
                "OUT.tar`)");
  auto args = std::make_shared<BundleArgs>();
  app->add_option("BUILD", args->build,
                  "Build directory written by `kernel-bench build` "
                  "(default: kb-out)")
      ->type_name("DIR");
  app->add_option("-o,--output", args->output,
                  "The bundle to write, e.g. bundle.tar")
      ->type_name("FILE")
      ->required();
  return {app, [args]() { return runBundle(*args); }};
}

} // namespace kb::workbench

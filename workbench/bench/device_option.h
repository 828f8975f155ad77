//===- workbench/bench/device_option.h - The --device flag ----------------===//
//
// `run` and `bench` pick their device with the same flag, help and
// validation: a malformed spec is a usage error (exit 2), caught while the
// command line is parsed, before any driver is loaded.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_DEVICE_OPTION_H_
#define KB_WORKBENCH_BENCH_DEVICE_OPTION_H_

#include <string>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace kb::workbench {

/// Adds `--device auto|cuda[:N]|vulkan[:N]` to |app|, stored in |device|;
/// |autoMeans| says in the help what `auto` picks for this command.
CLI::Option *addDeviceOption(CLI::App &app, std::string &device,
                             const std::string &autoMeans);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_DEVICE_OPTION_H_

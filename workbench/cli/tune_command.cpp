//===- workbench/cli/tune_command.cpp - `kernel-bench tune` ---------------===//
//
//   kernel-bench tune KERNEL_DIR [-o DIR] [--device D] [--target T]
//                    [--strategy exhaustive|random|halving] [--budget N|TIME]
//                    [--max-configurations N] [--seed N] [--top N] [-j N]
//                    [--cache-dir DIR] [-v]
//
// Searches the parameter space a kernel.toml's [tune] declares
// (tune_space.h) with one strategy (tune_search.h), measuring each
// configuration through `build` and `bench` (tune_measure.h) on one device,
// with every result kept in a resumable cache (tune_cache.h); writes
// OUT/tune.json and OUT/tune.html (tune_html.h), the best configuration into
// tuned.toml beside the kernel, and prints the top configurations
// (tune_report.h).
//
// Exit codes: 0 a best configuration was found; 1 a bad kernel.toml or
// [tune], a constraint nothing satisfies, a space over the limit without a
// budget, every configuration failed; 2 usage; 77 no usable device;
// 128+N interrupted (the cache keeps what was measured).
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"
#include "workbench/bench/device_option.h"
#include "workbench/project/kernel_toml.h"
#include "workbench/tune/tune_html.h"
#include "workbench/tune/tune_measure.h"
#include "workbench/tune/tune_progress.h"
#include "workbench/tune/tune_report.h"

#include "common/file_util.h"
#include "common/paths.h"
#include "common/sha256.h"
#include "common/terminal_text.h"
#include "runtime/hal/driver_registry.h"
#include "runtime/hal/drivers/registration.h"
#include "toolchains/build_cache.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

struct TuneFlags {
  std::string kernelDir;
  std::string outDir;
  std::string device = "auto";
  std::string target;
  std::string strategy = "exhaustive";
  std::string budgetText;
  size_t budget = 0;        // from budgetText: a count
  double budgetSeconds = 0; // or a time (random, halving)
  uint64_t maxConfigurations = 1000;
  uint64_t seed = 1;
  size_t top = 10;
  double watchdogS = 0;
  unsigned jobs = 0;
  std::string cacheDir;
  bool verbose = false;
  bool quiet = false;            // nothing but errors and warnings (stderr)
  std::string pipeline = "auto"; // auto: on unless the device is a CPU
};

void printError(const std::string &message) {
  std::fprintf(stderr, "kernel-bench tune: error: %s\n",
               terminalText(message).c_str());
}

/// A kernel's file as text for a hash or a search; one that cannot be read
/// reads as empty here, and the build that follows says why.
std::string readText(const fs::path &path) {
  StatusOr<std::string> text = readFile(path, kSourceInput);
  return text.ok() ? *text : std::string();
}

/// The kernel, with a [tune] and something to benchmark it with.
StatusOr<Kernel> loadTuneKernel(const TuneFlags &flags) {
  fs::path manifest = fs::path(flags.kernelDir) / "kernel.toml";
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec))
    return invalidArgument(displayPath(fs::path(flags.kernelDir)) +
                           " is not a kernel directory (no kernel.toml)");
  KB_ASSIGN_OR_RETURN(Kernel kernel, loadKernel(manifest, {}));
  if (kernel.tune.empty())
    return invalidArgument(displayPath(kernel.manifest) +
                           ": no [tune] table: declare the parameters to "
                           "tune (docs/tuning.md)");
  if (!kernel.bench && !kernel.tuneBench)
    return invalidArgument(
        displayPath(kernel.manifest) +
        ": no [bench] table: `tune` measures the kernel standalone with "
        "its [bench] (the problem size, constants and reference)");
  return kernel;
}

/// A tuned name that no source mentions is probably a typo.
void warnUnusedNames(const Kernel &kernel) {
  std::string sources;
  for (const toolchains::KernelSpec &spec : kernel.specs)
    sources += readText(spec.source) + "\n";
  for (const TuneParameter &p : kernel.tune.parameters)
    if (!std::regex_search(sources, std::regex("\\b" + p.name + "\\b")))
      std::fprintf(stderr,
                   "kernel-bench tune: warning: %s: [tune] `%s` is not used "
                   "by any source of the kernel: every value builds the same "
                   "code\n",
                   p.where.c_str(), p.name.c_str());
}

struct DeviceChoice {
  std::string spec;     // "vulkan:0": what bench is given
  std::string name;     // the model
  std::string identity; // driver, name, driver and API versions
  std::string backend;
  Target target;
  bool cpu = false; // lavapipe: compiling would take the measured cores
};

/// Opens the device once, here, to know what to build for and to key the
/// cache; `auto` considers only devices the kernel has a source for.
StatusOr<DeviceChoice> chooseDevice(const TuneFlags &flags,
                                    const Kernel &kernel) {
  auto hasFamily = [&](bool cuda) {
    for (const toolchains::KernelSpec &s : kernel.specs)
      if ((s.language == toolchains::Language::Cuda) == cuda)
        return true;
    return false;
  };
  hal::DeviceFilter filter = [&](const hal::DeviceProperties &p) {
    return hasFamily(p.driver == "cuda") ? std::string()
                                         : "the kernel has no source for it";
  };
  KB_ASSIGN_OR_RETURN(
      hal::SelectedDevice selected,
      hal::selectDevice(hal::builtinDrivers(), flags.device, {}, {}, filter));
  const hal::DeviceProperties &p = selected.device->properties();
  DeviceChoice choice;
  choice.spec = p.driver + ":" + std::to_string(p.index);
  choice.name = p.name;
  choice.identity = p.driver + " | " + p.name + " | driver " + p.driverVersion +
                    " | api " + p.apiVersion;
  choice.backend = p.driver;
  choice.cpu = p.type == hal::DeviceType::Cpu;
  std::string target = flags.target;
  for (const Target &t : kernel.targets)
    if (target.empty() && t.isCuda() == (p.driver == "cuda"))
      target = t.toString();
  if (target.empty())
    target = p.driver == "cuda"
                 ? "cuda:sm_" + std::to_string(p.ccMajor * 10 + p.ccMinor)
                 : "vulkan:1.2";
  KB_ASSIGN_OR_RETURN(choice.target, Target::parse(target));
  if (choice.target.isCuda() != (p.driver == "cuda"))
    return invalidArgument("--target " + target + " cannot run on " +
                           choice.spec + " (" + p.name + ")");
  return choice;
}

/// The configurations to search: every one that satisfies the constraints,
/// or, for a space over the limit, a sample of --budget of them.
StatusOr<std::vector<TuneValues>> candidatesFor(const TuneFlags &flags,
                                                const Kernel &kernel,
                                                TuneStrategy strategy) {
  const TuneSpace &space = kernel.tune;
  // A configuration that cannot be launched is left out like one a
  // constraint rejects, so no budget goes to it.
  ConfigurationCheck launchable = [&](const TuneValues &values) {
    return withTuneValues(kernel, values).status();
  };
  uint64_t size = space.size();
  if (size <= flags.maxConfigurations)
    return enumerateConfigurations(space, launchable);
  // The limit is on what would be searched: a space small enough to walk is
  // counted after its constraints (matmul_tiled: 648 raw, 468 searched).
  std::string counted;
  if (size <= kWalkableSpace) {
    KB_ASSIGN_OR_RETURN(uint64_t satisfying, countSatisfying(space));
    if (satisfying <= flags.maxConfigurations)
      return enumerateConfigurations(space, launchable);
    counted = " (" + std::to_string(satisfying) + " satisfy the constraints)";
  }
  if (strategy == TuneStrategy::Exhaustive ||
      (flags.budget == 0 && flags.budgetSeconds == 0))
    return invalidArgument(
        "the [tune] space has " + std::to_string(size) + " configurations" +
        counted + ", more than --max-configurations " +
        std::to_string(flags.maxConfigurations) +
        ": pass --strategy random or halving with --budget N or --budget "
        "TIME, raise --max-configurations, or narrow [tune]");
  std::mt19937_64 rng(flags.seed);
  // A time budget draws as many as the limit allows; the time decides.
  size_t count = flags.budget ? flags.budget : flags.maxConfigurations;
  KB_ASSIGN_OR_RETURN(auto sample,
                      sampleConfigurations(space, count, rng, launchable));
  if (sample.empty())
    return invalidArgument("no sampled configuration of [tune] satisfies "
                           "the constraints and can be launched");
  return sample;
}

/// What the cache is keyed by besides the device: the kernel.toml, the
/// sources and the target (a change to any of them measures again).
std::string kernelHash(const Kernel &kernel, const Target &target) {
  std::string all = readText(kernel.manifest);
  for (const toolchains::KernelSpec &spec : kernel.specs)
    all += "\n--source--\n" + readText(spec.source);
  return sha256Hex(all + "\n--target--\n" + target.toString() +
                   "\n--kernel-bench--\n" KB_VERSION_STRING);
}

StatusOr<fs::path> tuneCacheFile(const TuneFlags &flags, const Kernel &kernel,
                                 const Target &target) {
  fs::path dir = flags.cacheDir;
  if (dir.empty()) {
    KB_ASSIGN_OR_RETURN(dir, toolchains::BuildCache::defaultDirectory());
  }
  return dir / "tune" / (kernelHash(kernel, target) + ".jsonl");
}

/// --budget: N configurations, or a time (`90s`, `5m`, `1h`) for random and
/// halving.
Status parseBudget(TuneFlags &flags, TuneStrategy strategy) {
  const std::string &text = flags.budgetText;
  if (text.empty())
    return okStatus();
  size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception &) {
    end = 0;
  }
  std::string unit = text.substr(end);
  double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (end == 0 || !(value > 0) || !std::isfinite(value) ||
      (!unit.empty() && scale == 0) ||
      (unit.empty() &&
       value != static_cast<double>(static_cast<size_t>(value))))
    return invalidArgument("--budget " + text +
                           ": expected a count of configurations (12) or a "
                           "time for --strategy random or halving (90s, 5m, "
                           "1h)");
  if (unit.empty()) {
    flags.budget = static_cast<size_t>(value);
    return okStatus();
  }
  if (strategy == TuneStrategy::Exhaustive)
    return invalidArgument("--budget " + text +
                           ": a time budget is for --strategy random or "
                           "halving; exhaustive measures every configuration");
  flags.budgetSeconds = value * scale;
  return okStatus();
}

StatusOr<TuneStrategy> parseStrategy(TuneFlags &flags) {
  const std::string &text = flags.strategy;
  TuneStrategy strategy;
  if (text == "exhaustive")
    strategy = TuneStrategy::Exhaustive;
  else if (text == "random")
    strategy = TuneStrategy::Random;
  else if (text == "halving")
    strategy = TuneStrategy::Halving;
  else
    return invalidArgument("--strategy " + text +
                           ": expected exhaustive, random or halving");
  KB_RETURN_IF_ERROR(parseBudget(flags, strategy));
  return strategy;
}

/// tune.json and tune.html, and the winner into tuned.toml.
Status writeResults(const fs::path &outDir, const Kernel &kernel,
                    const TuneRunInfo &info, const TuneSearchResult &result,
                    size_t top) {
  KB_RETURN_IF_ERROR(
      writeFileAtomic(outDir / "tune.json", renderTuneJson(info, result)));
  KB_RETURN_IF_ERROR(writeFileAtomic(
      outDir / "tune.html", renderTuneHtml(info, kernel.tune, result, top)));
  if (!result.best)
    return okStatus();
  const TuneResult &best = result.results[*result.best];
  TunedEntry entry{info.deviceName,           info.backend, info.target,
                   best.measurement.medianNs, best.values,  ""};
  return mergeTunedToml(kernel.manifest.parent_path() / "tuned.toml",
                        kernel.tune, entry);
}

// Creates the output directory and opens the device's tune cache; either
// failing is the user's to fix (a path, a permission).
StatusOr<TuneCache> openTuneCache(const TuneFlags &flags, const Kernel &kernel,
                                  const DeviceChoice &device,
                                  const fs::path &outDir) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  StatusOr<fs::path> cacheFile = tuneCacheFile(flags, kernel, device.target);
  StatusOr<TuneCache> cache = cacheFile.ok()
                                  ? TuneCache::open(*cacheFile, device.identity)
                                  : StatusOr<TuneCache>(cacheFile.status());
  if (ec)
    return invalidArgument("cannot create " + outDir.string() + ": " +
                           ec.message());
  if (size_t skipped = cache.ok() ? cache->skippedLines() : 0)
    std::fprintf(stderr,
                 "kernel-bench tune: warning: %s: skipped %zu line(s) that "
                 "are not measurements this version reads (edited by hand, "
                 "another version, or a write cut short); their "
                 "configurations are measured again\n",
                 terminalLine(displayPath(cache->file())).c_str(), skipped);
  return cache;
}

// The one line that says what is about to be tuned, where, and how.
void printTuneHeader(const Kernel &kernel, const DeviceChoice &device,
                     size_t configurations, TuneStrategy strategy,
                     bool pipeline, const TuneCache &cache) {
  std::printf(
      "tuning %s on %s (%s, %s): %zu configurations, %s search, %s; "
      "cache %s (%zu results)\n",
      terminalLine(kernel.name).c_str(), device.spec.c_str(),
      terminalLine(device.name).c_str(), device.target.toString().c_str(),
      configurations, toString(strategy),
      pipeline ? "compiling while measuring" : "compiling, then measuring",
      terminalLine(displayPath(cache.file())).c_str(), cache.size());
  std::fflush(stdout);
}

// What a search leaves besides its result: how many configurations it
// measured (not taken from the cache), and the exit code of an interrupted
// build or bench (0 when none was).
struct TuneSearchOutcome {
  StatusOr<TuneSearchResult> result;
  size_t measured = 0;
  int interruptedExit = 0;
};

/// How many configurations the search measures at most, for the estimate
/// of the time left: 0 when it cannot say (halving, a time budget).
size_t plannedMeasurements(const TuneFlags &flags, TuneStrategy strategy,
                           size_t candidates) {
  if (strategy == TuneStrategy::Exhaustive)
    return candidates;
  if (strategy == TuneStrategy::Random && flags.budget)
    return std::min<size_t>(flags.budget, candidates);
  return 0;
}

// Measures the candidates with |strategy|; every measurement goes to |cache|
// as it is taken, so an interrupted search loses nothing.
TuneSearchOutcome
searchConfigurations(const TuneFlags &flags, const Kernel &kernel,
                     const DeviceChoice &device, const fs::path &outDir,
                     const std::vector<TuneValues> &candidates,
                     TuneStrategy strategy, TuneCache &cache) {
  const bool pipeline =
      flags.pipeline == "on" || (flags.pipeline == "auto" && !device.cpu);
  if (!flags.quiet)
    printTuneHeader(kernel, device, candidates.size(), strategy, pipeline,
                    cache);
  TuneMeasureOptions options{
      kernel,         device.target, device.spec, fs::absolute(outDir),
      flags.cacheDir, flags.jobs,    120,         flags.verbose,
      flags.watchdogS};
  options.pipeline = pipeline;
  // A status on stderr, unless --verbose puts the tools' output there.
  std::optional<TuneProgressPrinter> progress;
  if (!flags.verbose && !flags.quiet) {
    ProgressOptions terminal = detectTerminal();
    terminal.smartTerminal = terminal.smartTerminal && ::isatty(2);
    progress.emplace(stderr, terminal,
                     plannedMeasurements(flags, strategy, candidates.size()));
    options.progress = &*progress;
  }
  TuneMeasurer measurer(std::move(options), cache);
  TuneSearchOptions search{strategy, flags.budget, flags.seed,
                           flags.budgetSeconds,
                           std::max<size_t>(2, flags.jobs ? flags.jobs : 4)};
  auto result =
      runTuneSearch(candidates, search,
                    [&](const std::vector<TuneValues> &configs, int level) {
                      return measurer.measure(configs, level);
                    });
  if (progress)
    progress->finish();
  return {std::move(result), measurer.measuredCount(),
          measurer.interruptedExit()};
}

// Prints the table, writes tune.json, tune.html and tuned.toml, and says
// which configuration won; the exit code of the whole run.
int reportTuneResults(const TuneFlags &flags, const Kernel &kernel,
                      const fs::path &outDir, const TuneRunInfo &info,
                      const TuneSearchResult &result) {
  if (!flags.quiet)
    printTuneTable(stdout, info, result, flags.top);
  if (Status written = writeResults(outDir, kernel, info, result, flags.top);
      !written.ok()) {
    printError(written.message());
    return kExitUserError;
  }
  if (!result.best) {
    printError("no configuration passed: every one failed to build, was "
               "INCORRECT or faulted (above); tuned.toml was not written");
    return kExitUserError;
  }
  if (flags.quiet)
    return kExitOk;
  std::printf(
      "best: %s; wrote %s, %s and %s\n",
      configurationKey(result.results[*result.best].values).c_str(),
      displayPath(outDir / "tune.json").c_str(),
      displayPath(outDir / "tune.html").c_str(),
      displayPath(kernel.manifest.parent_path() / "tuned.toml").c_str());
  return kExitOk;
}

int runTune(TuneFlags flags) {
  auto start = std::chrono::steady_clock::now();
  StatusOr<TuneStrategy> strategy = parseStrategy(flags);
  if (!strategy.ok()) {
    printError(strategy.status().message());
    return kExitUsage;
  }
  StatusOr<Kernel> kernel = loadTuneKernel(flags);
  if (!kernel.ok()) {
    printError(kernel.status().message());
    return kExitUserError;
  }
  warnUnusedNames(*kernel);
  auto candidates = candidatesFor(flags, *kernel, *strategy);
  if (!candidates.ok()) {
    printError(candidates.status().message());
    return kExitUserError;
  }
  StatusOr<DeviceChoice> device = chooseDevice(flags, *kernel);
  if (!device.ok()) {
    printError(device.status().message());
    return device.status().isUnavailable() ? kExitUnavailable : kExitUserError;
  }
  fs::path outDir = flags.outDir.empty()
                        ? kernel->manifest.parent_path() / "kb-tune"
                        : fs::path(flags.outDir);
  StatusOr<TuneCache> cache = openTuneCache(flags, *kernel, *device, outDir);
  if (!cache.ok()) {
    printError(cache.status().message());
    return kExitUserError;
  }

  TuneSearchOutcome search = searchConfigurations(
      flags, *kernel, *device, outDir, *candidates, *strategy, *cache);
  const StatusOr<TuneSearchResult> &result = search.result;
  if (!result.ok()) {
    printError(result.status().message() + "; the tune cache keeps what was "
                                           "measured: run the same command to "
                                           "continue");
    if (search.interruptedExit)
      return search.interruptedExit;
    return result.status().isUnavailable() ? kExitUnavailable : kExitUserError;
  }
  TuneRunInfo info{
      kernel->name,
      kernel->manifest.string(),
      device->name,
      device->identity,
      device->backend,
      device->target.toString(),
      *strategy,
      flags.budget,
      flags.budgetSeconds,
      kernel->tune.size(),
      candidates->size(),
      search.measured,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count()};
  return reportTuneResults(flags, *kernel, outDir, info, *result);
}

} // namespace

CommandRegistration addTuneCommand(CLI::App &root) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App *app = root.add_subcommand(
      "tune", "Search a kernel's [tune] parameter space on one device: build, "
              "verify and time each configuration; write tuned.toml");
  app->add_option("KERNEL_DIR", flags->kernelDir,
                  "Kernel directory (its kernel.toml has [tune] and [bench])")
      ->type_name("DIR")
      ->required();
  app->add_option("-o,--output", flags->outDir,
                  "Where tune.json, tune.html and the builds go (default: "
                  "KERNEL_DIR/kb-tune)")
      ->type_name("DIR");
  addDeviceOption(*app, flags->device,
                  "a CUDA device, then a Vulkan GPU, then lavapipe, among "
                  "those the kernel has a source for");
  app->add_option("--target", flags->target,
                  "Build for this target (default: the kernel's target of the "
                  "device's family, else the device's sm_XX or vulkan:1.2)")
      ->type_name("TARGET");
  app->add_option("--strategy", flags->strategy,
                  "exhaustive (default), random, or halving (successive "
                  "halving: brief measurements first, the best longer)")
      ->type_name("S");
  app->add_option("--budget", flags->budgetText,
                  "random/halving: at most N configurations, or a time (90s, "
                  "5m, 1h): random measures batches until it is spent, "
                  "halving draws its first round for a third of it")
      ->type_name("N|TIME");
  app->add_option("--max-configurations", flags->maxConfigurations,
                  "Refuse a larger space without --budget (default 1000)")
      ->type_name("N");
  app->add_option("--seed", flags->seed, "Seed of the random choices")
      ->type_name("N");
  app->add_option("--top", flags->top, "Rows of the table (default 10)")
      ->type_name("N");
  app->add_option("--watchdog", flags->watchdogS,
                  "Seconds before a configuration's benchmark worker is "
                  "killed and the configuration is an ERROR (default: "
                  "bench's)")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  app->add_option("-j,--jobs", flags->jobs, "Parallel build jobs")
      ->type_name("N")
      ->check(CLI::Range(1u, 1024u));
  app->add_option("--cache-dir", flags->cacheDir,
                  "Build and tune cache (default: $KB_CACHE_DIR, else "
                  "$XDG_CACHE_HOME/kernel-bench)")
      ->type_name("DIR");
  auto *verbose = app->add_flag("-v,--verbose", flags->verbose,
                                "Show the output of every build and bench");
  app->add_flag("-q,--quiet", flags->quiet,
                "Print nothing but errors and warnings (on stderr): no "
                "progress, table or result line; tune.json, tuned.toml and "
                "the exit code say the rest")
      ->excludes(verbose);
  app->add_option("--pipeline", flags->pipeline,
                  "Build the next configurations while measuring these: "
                  "auto (default: on a GPU, not on a CPU device, where both "
                  "would share the cores), on, off")
      ->type_name("auto|on|off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  return {app, [flags] { return runTune(*flags); }};
}

} // namespace kb::workbench

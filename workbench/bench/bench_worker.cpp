//===- workbench/bench/bench_worker.cpp - One benchmark module, in the ----===//
#include "workbench/bench/bench_worker.h"

#include "runtime/bench/benchmark.h"
#include "runtime/bench/copy_bandwidth.h"
#include "runtime/bench/fma_peak.h"
#include "runtime/bench/nvml_environment.h"
#include "runtime/hal/drivers/registration.h"
#include "workbench/bench/bench_progress.h"
#include "workbench/bench/bench_report_fill.h"
#include "workbench/bench/sanitizer.h"
#include "workbench/support/kernel_output.h"
#include "workbench/support/exit_codes.h"
#include "workbench/bench/dispatch_figures.h"
#include "workbench/build/declared_figures.h"
#include "workbench/report/bench_json.h"
#include "workbench/support/worker.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include <unistd.h>

namespace kb::workbench {

namespace {

/// Puts |m| into |report| as its one benchmark or as its program result.
void fillReport(bench::BenchmarkResult m, const module::Module &module,
                const module::Function &function, const module::Op *dispatch,
                const BenchJob &job, report::BenchReport &report) {
  if (!dispatch) {
    report::ProgramResult p;
    p.module = job.modulePath;
    p.entryFunction = function.name;
    p.status = m.status;
    p.reason = m.reason;
    if (m.variants.size() >= 1 && !m.variants[0].timings.empty())
      p.withSubstitutions = m.variants[0].timings.front();
    if (m.variants.size() >= 2 && !m.variants[1].timings.empty())
      p.generatedOnly = m.variants[1].timings.front();
    report.program = std::move(p);
    return;
  }
  report::Benchmark b;
  b.name = job.benchmark;
  b.moduleFile = job.modulePath;
  const module::Executable &exe = module.executables[dispatch->executable];
  b.executable = exe.name;
  b.exportName = exe.variants.front().exports[dispatch->exportIndex].entry;
  auto dims = [](const auto &d) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
           std::to_string(d[2]);
  };
  // The workload when the module records it: a candidate with its own
  // launch shape runs another workgroup count than the reference.
  b.workload = dispatch->workload
                   ? "workload " + dims(*dispatch->workload)
                   : dims(dispatch->workgroupCount) + " workgroups";
  b.status = m.status;
  b.reason = std::move(m.reason);
  b.variants = std::move(m.variants);
  report.benchmarks.push_back(std::move(b));
}

std::string describeWork(const module::Module &module,
                         const module::Function &function,
                         const module::Op *dispatch, uint32_t opIndex) {
  std::string text = module.sourceName + ": function `" + function.name + "`";
  if (dispatch)
    text += ", dispatch op " + std::to_string(opIndex) + " (`" +
            module.executables[dispatch->executable].name + "` export " +
            std::to_string(dispatch->exportIndex) + ")";
  return text;
}

struct Work {
  const module::Function *function = nullptr;
  const module::Op *dispatch = nullptr; // none: the whole program
  uint32_t opIndex = 0;
};

/// The benchmark named |benchmark|, or the entry function when empty.
Work findWork(const module::Module &module, const std::string &benchmark) {
  Work work;
  if (benchmark.empty()) {
    work.function = module.findFunction(module.entryFunction);
    return work;
  }
  for (const module::Benchmark &b : module.benchmarks)
    if (b.name == benchmark) {
      work.function = &module.functions[b.function];
      work.opIndex = b.dispatchOp;
      work.dispatch = &work.function->ops[b.dispatchOp];
    }
  return work;
}

int noSuchWork(const std::string &modulePath, const std::string &benchmark) {
  std::fprintf(stderr, "error: %s has no %s\n", modulePath.c_str(),
               benchmark.empty() ? "entry function"
                                 : ("benchmark `" + benchmark + "`").c_str());
  return kExitUserError;
}

/// Why |device| cannot run the benchmark, or its baseline (if any).
std::string whyCannotRun(const module::Module &module,
                         const module::Function &function,
                         const bench::BenchmarkWork &baseline,
                         const hal::DeviceProperties &device) {
  std::string why = module::whyDeviceCannotRun(module, function, device);
  if (why.empty() && baseline.module) {
    why = module::whyDeviceCannotRun(*baseline.module, *baseline.function,
                                     device);
    if (!why.empty())
      why = "the baseline build: " + why;
  }
  return why;
}

/// The device's measured copy bandwidth and FMA throughput (cached); none
/// without a cache file, a warning in |report| for a probe that fails.
DevicePeaks probePeaks(hal::Device &device, const bench::L2Size &l2,
                       const BenchJob &job, report::BenchReport &report) {
  DevicePeaks peaks;
  if (job.settings.peakCache.empty())
    return peaks;
  announceStage("measuring the copy bandwidth of " + device.properties().name);
  auto copy = bench::peakCopyBandwidth(device, l2, job.settings.peakCache);
  if (copy.ok())
    peaks.copyBytesPerS = copy->bytesPerS;
  else
    report.environment.warnings.push_back("copy-bandwidth probe failed: " +
                                          copy.status().message());
  announceStage("measuring the FMA throughput of " + device.properties().name);
  auto fma = bench::peakFmaThroughput(device, job.settings.peakCache);
  if (fma.ok())
    peaks.fmaFlopsPerS = *fma;
  else
    report.environment.warnings.push_back("FMA-peak probe failed: " +
                                          fma.status().message());
  return peaks;
}

/// The declarations of |job|'s build; a warning in |report| when its
/// build.json cannot be read.
DeclaredByObject readDeclarations(const BenchJob &job,
                                  const module::Op *dispatch,
                                  report::BenchReport &report) {
  DeclaredByObject declarations;
  if (job.buildJson.empty() || !dispatch)
    return declarations;
  auto read = readDeclaredFigures(job.buildJson);
  if (read.ok())
    declarations = std::move(*read);
  else if (read.status().code() != StatusCode::NotFound)
    report.environment.warnings.push_back(
        "no declared FLOPs, bytes or tolerances: " + read.status().message());
  return declarations;
}

/// This process as NVML sees it: through the CUDA driver it holds a
/// compute context, so NVML lists it among the compute processes.
bench::OwnProcess ownProcess(const hal::DeviceProperties &props) {
  return bench::ownProcess(props.driver == "cuda");
}

/// NVML's clocks, throttle reasons and processes for an NVIDIA GPU before
/// timing; why not, as a warning, when NVML is absent. None for another
/// vendor's device (lavapipe) or without NVML.
std::optional<bench::NvmlEnvironment>
recordNvml(const hal::DeviceProperties &props,
           report::Environment &environment) {
  constexpr uint32_t kNvidiaVendor = 0x10de;
  if (props.driver != "cuda" && props.vendorId != kNvidiaVendor)
    return std::nullopt;
  auto nvml = bench::queryNvml(props.uuid);
  if (!nvml.ok()) {
    environment.warnings.push_back(nvml.status().message());
    return std::nullopt;
  }
  environment.smClockMHz = nvml->smClockMHz;
  environment.defaultSmClockMHz = nvml->defaultSmClockMHz;
  environment.memoryClockMHz = nvml->memoryClockMHz;
  environment.throttleReasons = nvml->throttleReasons;
  if (nvml->throttleReasons)
    environment.throttleReasonNames =
        bench::throttleReasonNames(*nvml->throttleReasons);
  for (const bench::GpuProcessInfo &p :
       bench::otherProcesses(*nvml, ownProcess(props)))
    environment.otherProcesses.push_back({p.pid, p.name, p.memoryBytes});
  return std::move(*nvml);
}

/// NVML read again right after timing, while the GPU still carries the
/// benchmark's load (before timing it idles, so throttling shows only
/// here), and the warnings of both readings (throttled, shared).
void recordNvmlAfterTiming(const hal::DeviceProperties &props,
                           const bench::NvmlEnvironment &beforeTiming,
                           report::Environment &environment) {
  auto after = bench::queryNvml(props.uuid);
  if (after.ok()) {
    report::ClocksAfterTiming &clocks = environment.afterTiming.emplace();
    clocks.smClockMHz = after->smClockMHz;
    clocks.memoryClockMHz = after->memoryClockMHz;
    clocks.throttleReasons = after->throttleReasons;
    if (after->throttleReasons)
      clocks.throttleReasonNames =
          bench::throttleReasonNames(*after->throttleReasons);
  }
  for (std::string &w : bench::nvmlWarnings(
           beforeTiming, after.ok() ? &*after : nullptr, ownProcess(props)))
    environment.warnings.push_back(std::move(w));
}

/// How the protocol runs for |job|: its correctness settings and modes,
/// the stage and sampling progress sent to the parent, what the build
/// declares for the candidate.
bench::BenchmarkOptions protocolOptions(const BenchJob &job,
                                        const DeclaredByObject &declarations,
                                        const bench::BenchmarkWork &target,
                                        const std::string &work,
                                        BenchFindings *findings) {
  bench::BenchmarkOptions options;
  options.correctness = correctnessSettings(job.settings);
  // --sanitize: the check alone, each run's findings attributed to it.
  options.checkOnly = findings != nullptr;
  // --profile: one labeled run per variant, named as the report names the
  // benchmark.
  if (job.settings.profile)
    options.profileRange = job.benchmark.empty()
                               ? "program " + target.function->name
                               : job.benchmark;
  // --counters: per variant; the program's end-to-end timing has no
  // variants to hold them.
  options.counters = job.settings.counters && !job.benchmark.empty();
  if (findings)
    options.guardBytes = kGuardBytes;
  // After each run of a variant: what the checking layer saw, what the
  // kernels printed (CUDA printf), attributed to that run.
  options.correctness.afterRun = [findings](const std::string &variant,
                                            const std::string &inputs,
                                            const module::GuardCheck &guards) {
    if (findings)
      findings->afterRun(variant, inputs, guards);
    KernelOutput::collect(variant + ", inputs " + inputs);
  };
  options.modes.clear();
  if (job.settings.cold)
    options.modes.push_back(bench::TimingMode::Cold);
  if (job.settings.hot)
    options.modes.push_back(bench::TimingMode::Hot);
  options.stage = [work](const std::string &stage) {
    announceStage(work + ": " + stage);
  };
  if (job.liveProgress)
    options.progress = [](std::vector<std::string> names,
                          bench::TimingMode mode) -> bench::ProgressFn {
      return SampleProgress(std::move(names), mode, kSampleProgressInterval,
                            announce);
    };
  // Per-dispatch [roofline] expressions are evaluated into a copy that
  // lives as long as the options.
  auto evaluated = std::make_shared<bench::KernelDeclared>();
  options.declared =
      [&declarations, target, evaluated](
          const std::string &sha256, const std::string &executable,
          std::vector<std::string> &warnings) -> const bench::KernelDeclared * {
    std::string ambiguity;
    const bench::KernelDeclared *found =
        findDeclared(declarations, sha256, executable, ambiguity);
    if (!ambiguity.empty())
      warnings.push_back(ambiguity);
    if (!found || !target.dispatch || !target.module)
      return found;
    *evaluated =
        withDispatchFigures(*found, *target.module, *target.dispatch, warnings);
    return evaluated.get();
  };
  return options;
}

/// The protocol on |device| (runtime/bench/benchmark.h); a failure of the
/// device or the module becomes the result's ERROR or SKIPPED status.
bench::BenchmarkResult
measure(hal::Device &device, const bench::BenchmarkWork &work,
        const bench::BenchmarkWork *baseline, const BenchJob &job,
        const std::string &what, const bench::L2Size &l2,
        report::BenchReport &report, BenchFindings *findings) {
  bench::BenchmarkResult measured;
  bool cpu = device.properties().type == hal::DeviceType::Cpu;
  bench::MeasureSettings settings = measureSettings(job.settings, cpu, l2);
  settings.lockstep = baseline != nullptr; // paired samples
  if (job.budgetLeftS)
    settings.budgetDeadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(*job.budgetLeftS));
  // --sanitize and --profile time nothing: no flush buffer (2 x L2) to
  // allocate, which on a small device would make the row SKIPPED.
  bool timed = !findings && !job.settings.profile;
  StatusOr<std::unique_ptr<bench::Engine>> engine =
      timed ? bench::Engine::create(device, settings)
            : StatusOr<std::unique_ptr<bench::Engine>>(nullptr);
  Status status = engine.status();
  if (status.ok() && *engine && !(*engine)->clockError().empty())
    report.environment.warnings.push_back(
        "no SM clock per sample, so throttled samples cannot be discarded: " +
        (*engine)->clockError());
  DeclaredByObject declarations = readDeclarations(job, work.dispatch, report);
  bench::BenchmarkOptions options =
      protocolOptions(job, declarations, work, what, findings);
  // Under compute-sanitizer (CUDA), memcheck sees every access outside an
  // allocation; a guard band would put reads a little past the end inside
  // one, where it cannot.
  if (device.properties().driver == "cuda")
    options.guardBytes = 0;
  if (status.ok())
    status = bench::runBenchmark(device, engine->get(), work, baseline, options,
                                 measured);
  if (status.ok())
    return measured;
  // A device too small for the benchmark's buffers is refused before any
  // driver call (ResourceExhausted), one that cannot give the kernel its
  // subgroup size before any pipeline (Unavailable, as whyCannotRun says
  // for a device picked by name): nothing is wrong with the kernel.
  bool tooSmall = status.code() == StatusCode::ResourceExhausted;
  bool cannot = status.isUnavailable();
  measured.status = tooSmall || cannot ? report::BenchStatus::Skipped
                                       : report::BenchStatus::Error;
  measured.reason =
      tooSmall ? "skipped: the device is too small: " + status.message()
      : cannot ? "skipped: " + status.message()
               : status.message();
  for (report::Variant &v : measured.variants)
    v.timings.clear();
  return measured;
}

/// What the kernels printed as report warnings, one per run that printed
/// (the first |maxRuns|, |linesPerRun| lines each): "saxpy_4096x1x1: the
/// kernels printed to stdout (CUDA printf) during candidate, inputs seed +0:
/// `i = 3` | ...".
void addPrintedWarnings(report::BenchReport &report, size_t maxRuns,
                        size_t linesPerRun) {
  std::string benchmark =
      report.benchmarks.empty() ? "" : report.benchmarks.back().name + ": ";
  std::vector<KernelOutput::Printed> printed =
      KernelOutput::finish("the timed runs and the checks after them");
  for (size_t i = 0; i < printed.size() && i < maxRuns; ++i) {
    std::string joined;
    for (const std::string &line : printedLines(printed[i].text, linesPerRun))
      joined += (joined.empty() ? "`" : " | `") + line + "`";
    report.environment.warnings.push_back(
        benchmark + "the kernels printed to stdout (CUDA printf) during " +
        printed[i].when + ": " + joined);
  }
  if (printed.size() > maxRuns)
    report.environment.warnings.push_back(
        benchmark + "the kernels printed during " +
        std::to_string(printed.size() - maxRuns) + " more run(s)");
}

int print(report::BenchReport &report, int exitCode) {
  // Descriptor 1 carries the report: what kernels printed there is shown as
  // warnings, and the report goes to the real stdout.
  addPrintedWarnings(report, /*maxRuns=*/12, /*linesPerRun=*/5);
  auto text = report::renderBenchJson(report);
  if (!text.ok()) {
    std::fprintf(stderr, "error: %s\n", text.status().message().c_str());
    return kExitUserError;
  }
  std::fwrite(text->data(), 1, text->size(), stdout);
  std::fflush(stdout);
  return exitCode;
}

/// Loads the --baseline build's module into |baseModule| and finds its
/// benchmark's function; an exit code when either fails, 0 when loaded (or
/// when the job has no baseline).
int loadBaseline(const BenchJob &job, std::optional<module::Module> &baseModule,
                 bench::BenchmarkWork &baseline) {
  if (job.baselineModule.empty())
    return 0;
  auto loaded = module::loadModuleFile(job.baselineModule);
  if (!loaded.ok()) {
    std::fprintf(stderr, "error: the baseline build: %s\n",
                 loaded.status().message().c_str());
    return kExitUserError;
  }
  baseModule = std::move(*loaded);
  baseline.module = &*baseModule;
  baseline.function = findWork(*baseModule, job.baselineBenchmark).function;
  if (!baseline.function)
    return noSuchWork(job.baselineModule, job.baselineBenchmark);
  return 0;
}

/// A device that this module has no variant for (named explicitly, or
/// pinned by the parent): the benchmark is skipped, not failed, since
/// nothing is wrong with the kernel.
int printSkipped(const std::string &why, const hal::DeviceProperties &props,
                 const bench::L2Size &l2, const module::Module &module,
                 const module::Function &function, const module::Op *dispatch,
                 const BenchJob &job, report::BenchReport &report) {
  report.device = toDeviceInfo(props, l2, {});
  bench::BenchmarkResult skipped;
  skipped.status = report::BenchStatus::Skipped;
  skipped.reason = "skipped: nothing to run on " + props.driver + ":" +
                   std::to_string(props.index) + ": " + why;
  fillReport(std::move(skipped), module, function, dispatch, job, report);
  return print(report, kExitOk);
}
} // namespace

namespace {
/// The driver options of the job's device: under --sanitize (|findings|),
/// the validation layer with GPU-assisted and synchronization validation,
/// reporting to |findings|' log; under --profile, labels.
hal::DriverOptions driverOptionsFor(const BenchJob &job,
                                    BenchFindings *findings) {
  hal::DriverOptions options;
  options.debugLabels = job.settings.profile;
  if (findings) {
    options.vulkanGpuValidation = true;
    options.validationLog = findings->log();
  }
  return options;
}

/// Checks (and, unless --sanitize, times) the benchmark on |device| and
/// prints its report.
int measureAndPrint(hal::Device &device, const module::Module &module,
                    const Work &work, const bench::BenchmarkWork &baseline,
                    const BenchJob &job, const bench::L2Size &l2,
                    BenchFindings *findings, report::BenchReport &report) {
  const hal::DeviceProperties &props = device.properties();
  // Under --sanitize and --profile nothing is timed, so no peak is measured
  // either.
  bool timed = !findings && !job.settings.profile;
  report.device = toDeviceInfo(
      props, l2, timed ? probePeaks(device, l2, job, report) : DevicePeaks{});
  std::optional<bench::NvmlEnvironment> nvml =
      recordNvml(props, report.environment);
  bench::BenchmarkWork target{&module, work.function, work.dispatch};
  bench::BenchmarkResult measured =
      measure(device, target, baseline.module ? &baseline : nullptr, job,
              describeWork(module, *work.function, work.dispatch, work.opIndex),
              l2, report, findings);
  if (nvml)
    recordNvmlAfterTiming(props, *nvml, report.environment);
  for (std::string &w : measured.warnings)
    report.environment.warnings.push_back(std::move(w));
  fillReport(std::move(measured), module, *work.function, work.dispatch, job,
             report);
  if (findings && !report.benchmarks.empty())
    findings->applyTo(report.benchmarks.back());
  return print(report, kExitOk);
}
} // namespace

int runBenchJob(const BenchJob &job) {
  report::BenchReport report;
  if (Status captured = KernelOutput::start(); !captured.ok())
    report.environment.warnings.push_back(
        "what kernels print (CUDA printf) may corrupt this report: " +
        captured.message());
  auto module = module::loadModuleFile(job.modulePath);
  if (!module.ok()) {
    std::fprintf(stderr, "error: %s\n", module.status().message().c_str());
    return kExitUserError;
  }
  Work work = findWork(*module, job.benchmark);
  const module::Function *function = work.function;
  const module::Op *dispatch = work.dispatch;
  if (!function)
    return noSuchWork(job.modulePath, job.benchmark);
  std::optional<module::Module> baseModule;
  bench::BenchmarkWork baseline;
  if (int failed = loadBaseline(job, baseModule, baseline))
    return failed;

  std::optional<BenchFindings> findings;
  if (job.settings.sanitize)
    findings.emplace();
  announceStage("opening device " + job.settings.device);
  // `auto` picks only a device this benchmark (and its baseline) has
  // variants for, as `run` does: a Vulkan-only module is not sent to a CUDA
  // device, nor back.
  auto selected = hal::selectDevice(
      hal::builtinDrivers(), job.settings.device,
      driverOptionsFor(job, findings ? &*findings : nullptr), {},
      [&](const hal::DeviceProperties &candidate) {
        return whyCannotRun(*module, *function, baseline, candidate);
      });
  if (!selected.ok()) {
    std::fprintf(stderr, "error: %s\n", selected.status().message().c_str());
    return selected.status().isUnavailable() ? kExitUnavailable
                                             : kExitUserError;
  }
  hal::Device &device = *selected->device;
  const hal::DeviceProperties &props = device.properties();
  // The parent runs the next benchmarks on this device: one report, one
  // device.
  announce(std::string(kDeviceMessage) + props.driver + ":" +
           std::to_string(props.index));
  bool cpu = props.type == hal::DeviceType::Cpu;
  report.settings = toReportSettings(job.settings, std::nullopt, cpu);
  bench::L2Size l2 = bench::selectL2Size(
      props,
      job.settings.l2Bytes ? std::optional<uint64_t>(job.settings.l2Bytes)
                           : std::nullopt,
      bench::hostLastLevelCacheBytes());
  // A device named explicitly (or pinned by the parent) that this module has
  // no variant for: nothing is wrong with the kernel.
  if (std::string why = whyCannotRun(*module, *function, baseline, props);
      !why.empty())
    return printSkipped(why, props, l2, *module, *function, dispatch, job,
                        report);
  if (job.peakOnly) {
    DevicePeaks peaks = probePeaks(device, l2, job, report);
    for (const std::string &warning : report.environment.warnings)
      std::fprintf(stderr, "%s\n", warning.c_str());
    // The copy peak is what % of peak needs; a failed FMA probe only leaves
    // the roofline without its compute ceiling.
    return peaks.copyBytesPerS ? kExitOk : kExitUserError;
  }
  return measureAndPrint(device, *module, work, baseline, job, l2,
                         findings ? &*findings : nullptr, report);
}

} // namespace kb::workbench

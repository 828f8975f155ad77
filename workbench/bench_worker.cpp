//===- workbench/bench_worker.cpp - One benchmark module, in the worker ---===//
#include "workbench/bench_worker.h"

#include "common/sha256.h"
#include "common/target.h"
#include "runtime/bench/copy_bandwidth.h"
#include "runtime/bench/nvml_environment.h"
#include "runtime/hal/drivers/registration.h"
#include "workbench/bench_progress.h"
#include "workbench/bench_report_fill.h"
#include "workbench/command.h"
#include "workbench/declared_figures.h"
#include "workbench/report/bench_json.h"
#include "workbench/worker.h"

#include <cmath>
#include <cstdio>

#include <unistd.h>

namespace kb::workbench {

namespace {
using module::PreparedFunction;
using module::VariantChoice;

/// What the worker measured, before it becomes report types.
struct Measured {
  report::BenchStatus status = report::BenchStatus::Ok;
  std::string reason;
  bench::CorrectnessResult correctness;
  std::vector<report::Variant> variants; // candidate (or generated) first
  std::vector<std::vector<bench::ModeResult>> modes; // per variant
  std::vector<std::string> warnings;                 // for the report
};

/// "cuda:sm_90" / "vulkan:1.2" from a variant's format and target; the
/// target as stored when it is not one kb::Target knows.
std::string targetName(const module::Variant &v) {
  Target::Kind kind = v.format == hal::ExecutableFormat::Spirv
                          ? Target::Kind::Vulkan
                          : Target::Kind::Cuda;
  StatusOr<Target> target = Target::fromArch(kind, v.target);
  return target.ok() ? target->toString() : v.target;
}

report::Variant describeVariant(const PreparedFunction &prepared,
                                const std::string &name, bool reference) {
  report::Variant v;
  v.name = name;
  v.role = reference ? report::VariantRole::Reference
                     : report::VariantRole::Candidate;
  std::string objects;
  double loadMs = 0;
  for (const module::LoadedVariant &loaded : prepared.variants()) {
    loadMs += loaded.loadMs;
    // A benchmark dispatches one executable, a program several: the first
    // one's target, every object in the hash.
    if (v.target.empty())
      v.target = targetName(*loaded.variant);
    objects += loaded.variant->data;
  }
  v.objectSha256 = sha256Hex(objects);
  v.loadMs = loadMs;
  v.bytesMoved = prepared.bytesMoved();
  return v;
}

/// The candidate's declarations in build.json, and the dispatch they apply
/// to (none for the whole program).
struct Declarations {
  DeclaredByObject byObject;
  const module::Op *dispatch = nullptr;
};

/// What |variants|' candidate declares: its tolerances (by the output
/// buffer each [abi] binding is in the dispatch) into |correctness|, its
/// FLOPs and bytes moved into every variant (they do the same work). Why
/// none apply though the object has several kernels goes to |warnings|.
void applyDeclared(const Declarations &declarations,
                   const module::Module &module,
                   std::vector<report::Variant> &variants,
                   bench::CorrectnessSettings &correctness,
                   std::vector<std::string> &warnings) {
  if (!declarations.dispatch || variants.empty())
    return;
  std::string ambiguity;
  const KernelDeclared *found = findDeclared(
      declarations.byObject, variants.front().objectSha256,
      module.executables[declarations.dispatch->executable].name, ambiguity);
  if (!ambiguity.empty())
    warnings.push_back(ambiguity);
  if (!found)
    return;
  const KernelDeclared &declared = *found;
  correctness.kernelTolerance = declared.tolerance;
  correctness.nanInputs = declared.nanInputs;
  correctness.infInputs = declared.infInputs;
  const auto &bindings = declarations.dispatch->bindings;
  for (const OutputTolerance &o : declared.outputTolerances)
    if (o.binding < bindings.size())
      correctness.outputTolerances[bindings[o.binding].buffer] = o.tolerance;
  for (report::Variant &v : variants) {
    if (declared.flops)
      v.flops = *declared.flops;
    if (declared.bytesMoved)
      v.bytesMoved = static_cast<uint64_t>(std::llround(*declared.bytesMoved));
  }
}

/// The same benchmark in the other build (--baseline); none without one.
struct BaselineWork {
  const module::Module *module = nullptr;
  const module::Function *function = nullptr;
};

bool hasRole(const module::Executable &exe, module::VariantRole role) {
  for (const module::Variant &v : exe.variants)
    if (v.role == role)
      return true;
  return false;
}

/// Loads the variants, checks, times and re-checks. With a baseline, its
/// kernel is timed too, in lockstep with the candidate (the engine's
/// settings say so), as variant "baseline" right after the candidate.
Status measure(hal::Device &device, bench::Engine &engine,
               const module::Module &module, const module::Function &function,
               const BaselineWork &baseline, const Declarations &declarations,
               const BenchJob &job, const std::string &work, Measured &out) {
  bool candidates = false, references = true;
  for (const module::Op &op : function.ops) {
    if (op.kind != module::Op::Kind::Dispatch)
      continue;
    const module::Executable &exe = module.executables[op.executable];
    candidates |= hasRole(exe, module::VariantRole::Candidate);
    references &= hasRole(exe, module::VariantRole::Reference);
  }
  announceStage(work + ": loading");
  KB_ASSIGN_OR_RETURN(auto candidate,
                      PreparedFunction::create(device, module, function,
                                               VariantChoice::PreferCandidate));
  std::unique_ptr<PreparedFunction> reference;
  if (candidates && references) {
    KB_ASSIGN_OR_RETURN(reference,
                        PreparedFunction::create(device, module, function,
                                                 VariantChoice::ReferenceOnly));
  }
  out.variants.push_back(describeVariant(
      *candidate, candidates ? "candidate" : "generated", !candidates));
  // A module tuned for other device models runs its default parameters
  // here: the report says so, since the timing is not the tuned one's.
  for (const module::LoadedVariant &loaded : candidate->variants())
    if (std::string note =
            module::tuningNote(module.executables[loaded.executable],
                               *loaded.variant, device.properties());
        !note.empty() && note.rfind("tuned for ", 0) != 0)
      out.warnings.push_back("`" + module.executables[loaded.executable].name +
                             "`: " + note);
  std::unique_ptr<PreparedFunction> base;
  if (baseline.module) {
    announceStage(work + ": loading the baseline build's kernel");
    KB_ASSIGN_OR_RETURN(base, PreparedFunction::create(
                                  device, *baseline.module, *baseline.function,
                                  VariantChoice::PreferCandidate));
    out.variants.push_back(describeVariant(*base, kBaselineVariant, false));
  }
  if (reference)
    out.variants.push_back(describeVariant(*reference, "reference", true));

  announceStage(work + ": correctness check");
  bench::CorrectnessSettings correctness = correctnessSettings(job.settings);
  applyDeclared(declarations, module, out.variants, correctness, out.warnings);
  KB_ASSIGN_OR_RETURN(out.correctness,
                      bench::checkBeforeTiming(device, *candidate,
                                               reference.get(), correctness));
  if (!candidates) {
    out.correctness.verdict = bench::Verdict::NotChecked;
    out.correctness.reason = "no handwritten kernel for this device: the "
                             "generated one is timed alone";
  }
  if (out.correctness.verdict == bench::Verdict::Incorrect) {
    out.status = report::BenchStatus::Incorrect;
    out.reason = out.correctness.reason;
    return okStatus();
  }

  std::vector<bench::Subject> subjects;
  subjects.push_back({out.variants[0].name, [&](hal::CommandBuffer &c) {
                        return candidate->record(c);
                      }});
  if (base)
    subjects.push_back({kBaselineVariant, [&](hal::CommandBuffer &c) {
                          return base->record(c);
                        }});
  if (reference)
    subjects.push_back({"reference", [&](hal::CommandBuffer &c) {
                          return reference->record(c);
                        }});
  out.modes.resize(subjects.size());
  std::vector<bench::TimingMode> modes;
  if (job.settings.cold)
    modes.push_back(bench::TimingMode::Cold);
  if (job.settings.hot)
    modes.push_back(bench::TimingMode::Hot);
  for (bench::TimingMode mode : modes) {
    announceStage(work + ": " + bench::toString(mode) + " samples");
    bench::ProgressFn progress;
    if (job.liveProgress) {
      std::vector<std::string> names;
      for (const bench::Subject &subject : subjects)
        names.push_back(subject.name);
      progress = SampleProgress(std::move(names), mode, kSampleProgressInterval,
                                announce);
    }
    KB_ASSIGN_OR_RETURN(auto results,
                        engine.measureInterleaved(subjects, mode, progress));
    for (size_t i = 0; i < results.size(); ++i)
      out.modes[i].push_back(std::move(results[i]));
  }

  announceStage(work + ": correctness re-check after timing");
  KB_ASSIGN_OR_RETURN(out.correctness,
                      bench::checkAfterTiming(device, *candidate,
                                              out.correctness, correctness));
  if (out.correctness.verdict == bench::Verdict::Incorrect) {
    out.status = report::BenchStatus::Incorrect;
    out.reason = "after timing: " + out.correctness.reason;
    out.modes.clear(); // a wrong kernel's times are not results
    return okStatus();
  }
  for (size_t i = 0; i < out.modes.size(); ++i)
    for (const bench::ModeResult &m : out.modes[i])
      if (m.gpu.count == 0) {
        out.status = report::BenchStatus::Error;
        out.reason = out.variants[i].name + " " + bench::toString(m.mode) +
                     ": no accepted sample";
        out.modes.clear();
        return okStatus();
      }
  return okStatus();
}

/// Puts |m| into |report| as its one benchmark or as its program result.
void fillReport(const Measured &m, const module::Module &module,
                const module::Function &function, const module::Op *dispatch,
                const BenchJob &job, report::BenchReport &report) {
  if (!dispatch) {
    report::ProgramResult p;
    p.module = job.modulePath;
    p.entryFunction = function.name;
    p.status = m.status;
    p.reason = m.reason;
    if (m.modes.size() >= 1 && !m.modes[0].empty())
      p.withSubstitutions = toTiming(m.modes[0].front());
    if (m.modes.size() >= 2 && !m.modes[1].empty())
      p.generatedOnly = toTiming(m.modes[1].front());
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
  b.reason = m.reason;
  b.variants = m.variants;
  for (size_t i = 0; i < b.variants.size(); ++i) {
    report::Variant &v = b.variants[i];
    if (v.name == kBaselineVariant)
      v.correctness.note = "the baseline build's kernel (--baseline): checked "
                           "in that build's own run, timed here in pairs with "
                           "the candidate";
    else if (v.role == report::VariantRole::Candidate || b.variants.size() == 1)
      v.correctness = toCorrectness(m.correctness);
    else
      v.correctness.note = "the reference the candidate is checked against";
    if (i < m.modes.size())
      for (const bench::ModeResult &mode : m.modes[i])
        v.timings.push_back(toTiming(mode));
  }
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
                         const BaselineWork &baseline,
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

/// The device's measured copy bandwidth (cached); none without a cache
/// file, a warning in |report| when the probe fails.
std::optional<double> probePeak(hal::Device &device, const bench::L2Size &l2,
                                const BenchJob &job,
                                report::BenchReport &report) {
  if (job.settings.peakCache.empty())
    return std::nullopt;
  announceStage("measuring the copy bandwidth of " + device.properties().name);
  auto probed = bench::peakCopyBandwidth(device, l2, job.settings.peakCache);
  if (probed.ok())
    return probed->bytesPerS;
  report.environment.warnings.push_back("copy-bandwidth probe failed: " +
                                        probed.status().message());
  return std::nullopt;
}

/// The declarations of |job|'s build; a warning in |report| when its
/// build.json cannot be read.
Declarations readDeclarations(const BenchJob &job, const module::Op *dispatch,
                              report::BenchReport &report) {
  Declarations declarations;
  declarations.dispatch = dispatch;
  if (job.buildJson.empty() || !dispatch)
    return declarations;
  auto read = readDeclaredFigures(job.buildJson);
  if (read.ok())
    declarations.byObject = std::move(*read);
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

int print(const report::BenchReport &report, int exitCode) {
  auto text = report::renderBenchJson(report);
  if (!text.ok()) {
    std::fprintf(stderr, "error: %s\n", text.status().message().c_str());
    return kExitUserError;
  }
  std::fwrite(text->data(), 1, text->size(), stdout);
  std::fflush(stdout);
  return exitCode;
}
} // namespace

int runBenchJob(const BenchJob &job) {
  report::BenchReport report;
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
  BaselineWork baseline;
  if (!job.baselineModule.empty()) {
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
  }

  announceStage("opening device " + job.settings.device);
  // `auto` picks only a device this benchmark (and its baseline) has
  // variants for, as `run` does: a Vulkan-only module is not sent to a CUDA
  // device, nor back.
  auto selected = hal::selectDevice(
      hal::builtinDrivers(), job.settings.device, {}, {},
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
      !why.empty()) {
    report.device = toDeviceInfo(props, l2, std::nullopt);
    Measured skipped;
    skipped.status = report::BenchStatus::Skipped;
    skipped.reason = "skipped: nothing to run on " + props.driver + ":" +
                     std::to_string(props.index) + ": " + why;
    fillReport(skipped, *module, *function, dispatch, job, report);
    return print(report, kExitOk);
  }
  if (job.peakOnly) {
    std::optional<double> peak = probePeak(device, l2, job, report);
    for (const std::string &warning : report.environment.warnings)
      std::fprintf(stderr, "%s\n", warning.c_str());
    return peak ? kExitOk : kExitUserError;
  }
  report.device = toDeviceInfo(props, l2, probePeak(device, l2, job, report));
  std::optional<bench::NvmlEnvironment> nvml =
      recordNvml(props, report.environment);

  Measured measured;
  bench::MeasureSettings settings = measureSettings(job.settings, cpu, l2);
  settings.lockstep = baseline.module != nullptr; // paired samples
  auto engine = bench::Engine::create(device, settings);
  Status status = engine.status();
  if (status.ok() && !(*engine)->clockError().empty())
    report.environment.warnings.push_back(
        "no SM clock per sample, so throttled samples cannot be discarded: " +
        (*engine)->clockError());
  if (status.ok())
    status = measure(device, **engine, *module, *function, baseline,
                     readDeclarations(job, dispatch, report), job,
                     describeWork(*module, *function, dispatch, work.opIndex),
                     measured);
  if (!status.ok()) {
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
    measured.modes.clear();
  }
  if (nvml)
    recordNvmlAfterTiming(props, *nvml, report.environment);
  for (std::string &w : measured.warnings)
    report.environment.warnings.push_back(std::move(w));
  fillReport(measured, *module, *function, dispatch, job, report);
  return print(report, kExitOk);
}

} // namespace kb::workbench

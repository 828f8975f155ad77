//===- workbench/tune/tune_measure.cpp - Build and measure configurations -===//
#include "workbench/tune/tune_measure.h"

#include "common/cuda_occupancy.h"

#include "workbench/bench/bench_engine.h"
#include "workbench/bench/bench_printer.h"
#include "workbench/build/build_engine.h"
#include "workbench/build/build_printer.h"
#include "workbench/project/kernel_toml.h"
#include "workbench/project/kernel_toml_launch.h"
#include "workbench/project/kernel_toml_tune.h"
#include "workbench/project/problem_sizes.h"
#include "workbench/support/exit_codes.h"
#include "workbench/support/interrupt_forwarder.h"
#include "workbench/tune/tune_bench.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

/// Writes one "timeline:" line to the tune log when a build or a bench
/// ends: which, into or from which directory, and from when to when in
/// microseconds since the measurer began. The record of what overlapped:
/// with --pipeline on, a batch builds while the one before is measured
/// (tests/e2e/tune_test.cpp reads these lines).
class TimelineStep {
public:
  TimelineStep(std::FILE *log, const char *step, const fs::path &dir,
               std::chrono::steady_clock::time_point origin)
      : log_(log), step_(step), dir_(dir.filename().string()), origin_(origin),
        start_(std::chrono::steady_clock::now()) {}
  TimelineStep(const TimelineStep &) = delete;
  TimelineStep &operator=(const TimelineStep &) = delete;
  ~TimelineStep() {
    if (!log_)
      return;
    auto us = [&](std::chrono::steady_clock::time_point t) {
      return static_cast<long long>(
          std::chrono::duration_cast<std::chrono::microseconds>(t - origin_)
              .count());
    };
    std::fprintf(log_, "timeline: %s %s from %lld us to %lld us\n", step_,
                 dir_.c_str(), us(start_),
                 us(std::chrono::steady_clock::now()));
    std::fflush(log_);
  }

private:
  std::FILE *log_;
  const char *step_;
  std::string dir_;
  std::chrono::steady_clock::time_point origin_, start_;
};

using MStatus = TuneMeasurement::Status;

/// The text of a build job that failed: its error and the compiler's
/// errors.
std::string failureText(const JobRecord &job) {
  std::string text = job.result.status.message();
  for (const toolchains::Diagnostic &d : job.result.diagnostics)
    if (d.severity == toolchains::Severity::Error ||
        d.severity == toolchains::Severity::Fatal)
      text += (text.empty() ? "" : "\n") + d.message;
  return text.empty() ? "failed" : text;
}

/// The text of a standalone program that did not compile: the error before
/// the compiler ran, else the compiler's diagnostics, else why skipped.
std::string failureText(const StandaloneRecord &s) {
  if (!s.error.empty())
    return s.error;
  if (s.compiled && !s.compiled->diagnostics.empty())
    return s.compiled->diagnostics;
  return s.reason.empty() ? "failed" : s.reason;
}

/// Compile errors by kernel name: failed jobs, then standalone programs
/// that failed.
std::map<std::string, std::string> buildFailures(const BuildReport &report) {
  std::map<std::string, std::string> failed;
  for (const JobRecord &job : report.jobs)
    if (!job.result.status.ok())
      failed.emplace(job.kernel->name, failureText(job));
  if (report.program)
    for (const StandaloneRecord &s : report.program->standalone)
      if (s.status != StepStatus::Ok)
        failed.emplace(s.kernel, failureText(s));
  return failed;
}

/// The outcome of one benchmark of the report.
/// |block| gets the registers and static shared memory of the variant.
TuneMeasurement fromBenchmark(const report::Benchmark &b, int level,
                              OccupancyInput block) {
  TuneMeasurement m;
  m.level = level;
  if (b.status != report::BenchStatus::Ok) {
    m.status = b.status == report::BenchStatus::Incorrect ? MStatus::Incorrect
                                                          : MStatus::Error;
    m.message = b.reason;
    for (const report::Variant &v : b.variants)
      for (const report::Mismatch &x : v.correctness.firstMismatches) {
        m.message += "; " + x.output + "[" + std::to_string(x.index) +
                     "]: expected " + x.expected + ", got " + x.actual;
        break;
      }
    return m;
  }
  for (const report::Variant &v : b.variants) {
    if (v.role != report::VariantRole::Candidate || v.timings.empty())
      continue;
    const report::Timing &t = v.timings.front();
    m.medianNs = t.summary.median;
    for (const report::Sample &s : t.samples)
      m.costNs += s.gpuNs * t.dispatchesPerSample;
    m.gbPerSecond = t.derived.gbPerSecond;
    if (t.summary.count >= 2)
      m.noise = t.summary.relativeStdev;
    if (v.resources) {
      m.registers = v.resources->registers;
      m.spillBytes = v.resources->spillStoreBytes + v.resources->spillLoadBytes;
      block.registersPerThread = v.resources->registers;
      block.sharedBytesPerBlock += v.resources->sharedMemoryBytes;
      m.occupancy = theoreticalOccupancy(block);
    }
    return m;
  }
  m.status = MStatus::Error;
  m.message = "the benchmark has no timed candidate";
  return m;
}

} // namespace

TuneMeasurer::TuneMeasurer(TuneMeasureOptions options, TuneCache &cache)
    : options_(std::move(options)), cache_(cache) {
  const Kernel &k = options_.kernel;
  const DeclaredBench *bench = k.bench       ? &*k.bench
                               : k.tuneBench ? &*k.tuneBench
                                             : nullptr;
  // The sweep's points are problem sizes too: the configuration that wins
  // is the one that does over the sizes the kernel is measured at.
  ProblemAxes axes;
  if (bench) {
    axes = bench->axes;
    axes.insert(axes.end(), bench->sweep.begin(), bench->sweep.end());
  }
  sizes_ = problemSizes(axes);
  for (const ProblemSize &size : sizes_)
    sizeLabels_.push_back(problemLabel(size));
}

std::string TuneMeasurer::kernelName(const TuneValues &values, size_t size) {
  // Only a lookup once prepare() numbered the batch: builds on another
  // thread call this too.
  std::string key = configurationKey(values);
  auto it = ids_.find(key);
  if (it == ids_.end())
    it = ids_.emplace(key, ids_.size()).first;
  char suffix[40];
  if (sizes_.size() > 1)
    std::snprintf(suffix, sizeof suffix, "-t%04zu-p%zu", it->second, size);
  else
    std::snprintf(suffix, sizeof suffix, "-t%04zu", it->second);
  return options_.kernel.name + suffix;
}

std::vector<TuneMeasurer::Copy>
TuneMeasurer::copiesOf(const std::vector<TuneValues> &configs) {
  std::vector<Copy> copies;
  for (const TuneValues &values : configs)
    for (size_t size = 0; size < sizes_.size(); ++size)
      copies.push_back({kernelName(values, size), values, size});
  return copies;
}

/// The kernel of |copy|: |base| (loaded by the build at the first problem
/// size) or the kernel.toml loaded again at the copy's size, renamed,
/// standalone, with the configuration's values.
StatusOr<Kernel> TuneMeasurer::copyKernel(const Kernel &base,
                                          const Project &project,
                                          const Copy &copy) const {
  Kernel kernel = base;
  if (copy.size > 0) {
    KB_ASSIGN_OR_RETURN(kernel, loadKernel(base.manifest, project.targets,
                                           nullptr, &sizes_[copy.size]));
  }
  kernel.name = copy.name;
  kernel.substitutes.clear();
  // A configuration is measured alone, not beside tuned.toml's winners.
  kernel.tunedSpecs.clear();
  if (!kernel.bench)
    kernel.bench = kernel.tuneBench;
  // A copy is one size already: the build must not sweep it again.
  kernel.bench->sweep.clear();
  kernel.declared.sweep = {};
  for (toolchains::KernelSpec &spec : kernel.specs) {
    spec.name = copy.name;
    applyTuneValues(options_.kernel.tune, copy.values, spec);
  }
  // Tuned names may size the workgroup, its workload and shared memory.
  KB_RETURN_IF_ERROR(resolveLaunch(kernel));
  return kernel;
}

StatusOr<Kernel> withTuneValues(const Kernel &base, const TuneValues &values) {
  Kernel kernel = base;
  kernel.tunedSpecs.clear();
  if (!kernel.bench)
    kernel.bench = kernel.tuneBench;
  for (toolchains::KernelSpec &spec : kernel.specs)
    applyTuneValues(kernel.tune, values, spec);
  KB_RETURN_IF_ERROR(resolveLaunch(kernel));
  return kernel;
}

StatusOr<KernelAbi> TuneMeasurer::launchOf(const TuneValues &values) const {
  KB_ASSIGN_OR_RETURN(Kernel kernel, withTuneValues(options_.kernel, values));
  const toolchains::KernelSpec *spec = kernel.specFor(options_.target);
  return spec ? spec->abi : kernel.specs.front().abi;
}

std::vector<TuneValues>
TuneMeasurer::prepare(const std::vector<TuneValues> &configs,
                      std::map<std::string, TuneMeasurement> &failed) {
  // A configuration whose launch shape is invalid fails here, as one that
  // does not compile would (`tune` leaves such ones out before the search;
  // this keeps the measurer whole on its own); the others are built.
  std::vector<TuneValues> launchable;
  for (const TuneValues &values : configs) {
    StatusOr<KernelAbi> abi = launchOf(values);
    if (abi.ok()) {
      launches_[configurationKey(values)] = *abi;
      launchable.push_back(values);
      continue;
    }
    TuneMeasurement m;
    m.status = MStatus::CompileError;
    m.level = kTopLevel;
    m.message = abi.status().message();
    failed[configurationKey(values)] = m;
  }
  copiesOf(launchable); // numbers them
  return launchable;
}

StatusOr<Project>
TuneMeasurer::batchProject(const std::vector<Copy> &copies) const {
  Project project;
  project.name = "tune-" + options_.kernel.name;
  project.directory = options_.kernel.manifest.parent_path();
  project.manifest = options_.kernel.manifest;
  project.targets = {options_.target};
  project.outputDir = options_.workDir / "build";
  KB_ASSIGN_OR_RETURN(Kernel base,
                      loadKernel(options_.kernel.manifest, project.targets));
  for (const Copy &copy : copies) {
    KB_ASSIGN_OR_RETURN(Kernel kernel, copyKernel(base, project, copy));
    project.kernels.push_back(std::move(kernel));
  }
  return project;
}

Status TuneMeasurer::build(const std::vector<TuneValues> &configs,
                           std::map<std::string, TuneMeasurement> &failed,
                           const fs::path &buildDir) {
  if (configs.empty())
    return okStatus();
  TimelineStep timeline(log_.get(), "build", buildDir, started_);
  std::vector<Copy> copies = copiesOf(configs);
  BuildRequest request;
  KB_ASSIGN_OR_RETURN(request.project, batchProject(copies));
  request.outputDir = buildDir.string();
  request.jobs = options_.jobs;
  request.targets = {options_.target};
  request.cacheDir = options_.cacheDir;
  request.timeoutSeconds = options_.timeoutS;
  PrintingBuildObserver printer =
      options_.verbose
          ? PrintingBuildObserver(stdout, stderr, detectTerminal(), true)
          : PrintingBuildObserver(log_.get(), log_.get(), ProgressOptions(),
                                  false);
  CountingBuildObserver observer(printer, options_.progress);
  StatusOr<BuildReport> built = runBuild(request, observer);
  if (!built.ok())
    return invalidArgument("tune: the build failed: " +
                           built.status().message());
  if (built->interruptedBy) {
    interruptedExit_ = kExitInterruptedBase + built->interruptedBy;
    return invalidArgument("interrupted while building");
  }
  std::map<std::string, std::string> failures = buildFailures(*built);
  for (const Copy &copy : copies) {
    auto it = failures.find(copy.name);
    std::string key = configurationKey(copy.values);
    if (it == failures.end() || failed.count(key))
      continue;
    TuneMeasurement m;
    m.status = MStatus::CompileError;
    m.level = kTopLevel;
    m.message =
        (sizes_.size() > 1 ? sizeLabels_[copy.size] + ": " : "") + it->second;
    failed[key] = m;
    if (options_.progress)
      options_.progress->measured(key, m);
  }
  return okStatus();
}

namespace {

/// One configuration's measurements at every problem size (by size
/// index) as one: the first failure, else the sum of the medians.
TuneMeasurement combineSizes(const std::map<size_t, TuneMeasurement> &bySize,
                             const std::vector<std::string> &labels) {
  if (bySize.size() == 1)
    return bySize.begin()->second;
  TuneMeasurement sum = bySize.begin()->second;
  sum.medianNs = sum.costNs = 0;
  sum.gbPerSecond.reset();
  for (const auto &[size, m] : bySize) {
    if (m.status != MStatus::Ok) {
      TuneMeasurement failed = m;
      failed.message = labels[size] + ": " + m.message;
      return failed;
    }
    sum.medianNs += m.medianNs;
    sum.costNs += m.costNs;
    if (m.noise)
      sum.noise = std::max(sum.noise.value_or(0), *m.noise);
    sum.sizes.emplace_back(labels[size], m.medianNs);
  }
  return sum;
}

} // namespace

Status TuneMeasurer::bench(const std::vector<TuneValues> &configs, int level,
                           std::map<std::string, TuneMeasurement> &out,
                           const fs::path &buildDir) {
  TimelineStep timeline(log_.get(), "bench", buildDir, started_);
  std::map<std::string, Copy> byName;
  std::vector<std::string> kernels;
  for (Copy &copy : copiesOf(configs)) {
    kernels.push_back(copy.name);
    byName.emplace(copy.name, std::move(copy));
  }
  BenchRequest request =
      tuneBenchRequest(buildDir.string(), std::move(kernels), options_.device,
                       levelSamples(level), options_.watchdogS);
  PrintingBenchObserver printer(options_.verbose ? stdout : log_.get(),
                                options_.verbose ? detectTerminal()
                                                 : ProgressOptions());
  CountingBenchObserver observer(printer, options_.progress);
  StatusOr<BenchOutcome> outcome = runBench(request, observer);
  if (!outcome.ok() && outcome.status().isUnavailable())
    return unavailable("no usable device for " + options_.device + ": " +
                       outcome.status().message());
  if (!outcome.ok())
    return invalidArgument("tune: the bench failed: " +
                           outcome.status().message());
  // Interrupted, the report still holds the benchmarks that finished: they
  // go into the cache like any other.
  const bool interrupted = outcome->interruptedBy != 0;
  if (interrupted)
    interruptedExit_ = kExitInterruptedBase + outcome->interruptedBy;
  const report::BenchReport &run = outcome->report;
  std::map<std::string, std::map<size_t, TuneMeasurement>> byConfig;
  for (const report::Benchmark &b : run.benchmarks) {
    auto it = byName.find(b.kernel);
    if (it == byName.end())
      continue;
    std::string key = configurationKey(it->second.values);
    // Each configuration's own block: tuned names may size it.
    const KernelAbi &abi = launches_.count(key)
                               ? launches_.at(key)
                               : options_.kernel.specs.front().abi;
    OccupancyInput block;
    block.sm = options_.target.smNumber();
    block.threadsPerBlock =
        abi.workgroupSize[0] * abi.workgroupSize[1] * abi.workgroupSize[2];
    block.sharedBytesPerBlock = abi.dynamicSharedMemoryBytes;
    byConfig[key][it->second.size] = fromBenchmark(b, level, block);
  }
  // A configuration is measured once every size is (not so when
  // interrupted between its sizes).
  for (const auto &[key, bySize] : byConfig)
    if (bySize.size() == sizes_.size()) {
      out[key] = combineSizes(bySize, sizeLabels_);
      if (options_.progress)
        options_.progress->measured(key, out[key]);
    }
  return interrupted ? invalidArgument("interrupted while measuring")
                     : okStatus();
}

/// The configurations of |configs| that |failed| does not hold yet.
static std::vector<TuneValues>
notFailed(const std::vector<TuneValues> &configs,
          const std::map<std::string, TuneMeasurement> &failed) {
  std::vector<TuneValues> left;
  for (const TuneValues &values : configs)
    if (!failed.count(configurationKey(values)))
      left.push_back(values);
  return left;
}

Status TuneMeasurer::openLog() {
  if (log_)
    return okStatus();
  std::error_code ec;
  fs::create_directories(options_.workDir, ec);
  // Appended to: a tune that continues from its cache keeps the earlier log.
  log_.reset(std::fopen(logPath().c_str(), "ae"));
  if (!log_)
    return invalidArgument("cannot write " + logPath().string() + ": " +
                           std::strerror(errno));
  return okStatus();
}

Status
TuneMeasurer::buildAndBench(const std::vector<TuneValues> &configs, int level,
                            std::map<std::string, TuneMeasurement> &out) {
  KB_RETURN_IF_ERROR(openLog());
  std::vector<TuneValues> launchable = prepare(configs, out);
  // One build's worth per batch: a configuration per build job.
  size_t batch = std::max<size_t>(2, options_.jobs ? options_.jobs : 4);
  if (options_.pipeline && launchable.size() > batch)
    return pipelined(launchable, batch, level, out);
  const fs::path dir = options_.workDir / "build";
  KB_RETURN_IF_ERROR(build(launchable, out, dir));
  std::vector<TuneValues> built = notFailed(launchable, out);
  return built.empty() ? okStatus() : bench(built, level, out, dir);
}

/// Batches of |size|: batch k+1 builds, on another thread and into the other of
/// two build directories, while batch k is measured, so the device is not idle
/// while the CPU compiles. Each batch is measured after it is built.
Status TuneMeasurer::pipelined(const std::vector<TuneValues> &configs,
                               size_t size, int level,
                               std::map<std::string, TuneMeasurement> &out) {
  std::vector<std::vector<TuneValues>> batches;
  for (size_t i = 0; i < configs.size(); i += size)
    batches.emplace_back(configs.begin() + i,
                         configs.begin() + std::min(configs.size(), i + size));
  auto dir = [&](size_t k) {
    return options_.workDir / ("build-" + std::to_string(k % 2));
  };
  // Ctrl-C is taken here for the whole section: between one step's
  // forwarder and the next, on either thread, it would otherwise end the
  // process before the measured batches reach the tune cache.
  InterruptForwarder interrupt;
  Status status = build(batches[0], out, dir(0));
  for (size_t k = 0; status.ok() && k < batches.size(); ++k) {
    std::map<std::string, TuneMeasurement> nextFailed;
    std::future<Status> next;
    if (k + 1 < batches.size())
      next = std::async(std::launch::async, [&, k] {
        return build(batches[k + 1], nextFailed, dir(k + 1));
      });
    std::vector<TuneValues> built = notFailed(batches[k], out);
    Status benched =
        built.empty() ? okStatus() : bench(built, level, out, dir(k));
    Status nextBuilt = next.valid() ? next.get() : okStatus();
    out.insert(nextFailed.begin(), nextFailed.end());
    status = !benched.ok() ? benched : nextBuilt;
    if (status.ok() && interrupt.signal()) {
      interruptedExit_ = kExitInterruptedBase + interrupt.signal();
      status = invalidArgument("interrupted between batches");
    }
  }
  return status;
}

StatusOr<std::vector<TuneMeasurement>>
TuneMeasurer::measure(const std::vector<TuneValues> &configs, int level) {
  std::map<std::string, TuneMeasurement> done;
  std::vector<TuneValues> todo;
  for (const TuneValues &values : configs) {
    std::string key = configurationKey(values);
    if (const TuneMeasurement *cached = cache_.find(key, level))
      done[key] = *cached;
    else
      todo.push_back(values);
  }
  std::map<std::string, TuneMeasurement> fresh;
  Status status = todo.empty() ? okStatus() : buildAndBench(todo, level, fresh);
  for (const TuneValues &values : todo) {
    std::string key = configurationKey(values);
    auto it = fresh.find(key);
    if (!status.ok() && it == fresh.end())
      continue; // not measured: an interrupted tune measures it next time
    TuneMeasurement &m = fresh[key];
    if (m.status == MStatus::Ok && m.medianNs <= 0) {
      m.status = MStatus::Error;
      m.level = level;
      m.message = "no benchmark result (see " + logPath().string() + ")";
    }
    KB_RETURN_IF_ERROR(cache_.add(key, m));
    done[key] = m;
    ++measured_;
  }
  KB_RETURN_IF_ERROR(status);
  std::vector<TuneMeasurement> result;
  for (const TuneValues &values : configs)
    result.push_back(done[configurationKey(values)]);
  return result;
}

} // namespace kb::workbench

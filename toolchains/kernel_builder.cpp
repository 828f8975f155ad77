//===- toolchains/kernel_builder.cpp - Build one kernel for one target ---===//
//
// The job pipeline (docs/architecture.md):
//
//   CUDA: nvcc -ptx -arch=sm_XX -MD -MF -MT -D -I src -o <staging>/sm_XX.ptx
//         -> ptxas -arch=sm_XX -v --warn-on-spills [--warning-as-error]
//            sm_XX.ptx -o sm_XX.cubin -> PTX ABI check -> resource report
//   GLSL: glslc -fshader-stage=compute --target-env=vulkanX.Y -g -MD -MF -MT -D
//            -I src -o <staging>/vulkanX.Y.spv
//         -> spirv-val --target-env vulkanX.Y
//         -> [spirv-opt -O --preserve-bindings --target-env=vulkanX.Y
//             -> spirv-val again] -> SPIR-V ABI check
//
// The tool steps (everything but the ABI check and the resource report)
// depend on the source, target, tools and flags, not on the entry: jobs of
// one builder that would run them identically share one run (CompileMemo),
// so the kernels of one .cu cost one nvcc and one ptxas (one PTX, several
// entries), and each job checks and publishes its own entry.
//
// Every tool runs in the job's private directory (ScratchDir, under the
// system temporary directory, with a name kernel-bench chooses) on staged
// files with fixed names: a copy of the source (`kernel.cu` /
// `kernel.comp`), `src` -> the source's directory and `incN` -> the N-th
// include directory (symlinks; passed with -I, so quote-includes still
// resolve), outputs `<stem>.ptx/.d/.cubin/.spv`, and TMPDIR `tmp/`. nvcc runs
// its sub-steps through `sh`, so no user path may reach its argv, working
// directory or TMPDIR; defines and flags, which must, are refused when a
// shell would interpret them (shell_safety.h). Paths in diagnostics and
// depfiles are mapped back to the user's. Outputs are published with an
// atomic write into the output directory.
//
//===----------------------------------------------------------------------===//

#include "toolchains/kernel_builder.h"

#include "common/abi_check.h"
#include "common/byte_size.h"
#include "common/cuda_signature.h"
#include "common/ptx_reader.h"
#include "common/sha256.h"
#include "common/spirv_reader.h"
#include "toolchains/build_cache.h"
#include "toolchains/depfile.h"
#include "common/file_util.h"
#include "common/process.h"
#include "toolchains/ptxas_report.h"
#include "toolchains/scratch_dir.h"
#include "toolchains/shell_safety.h"
#include "toolchains/toolchains.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <future>
#include <mutex>
#include <regex>

namespace kb::toolchains {

/// What the tool steps of one compile produced: the outputs by kind
/// ("ptx", "cubin" | "spv") and everything a job records about the run.
struct CompileOutcome {
  Status status;
  std::string kernel; // whose job ran the tools
  std::map<std::string, std::string> outputs;
  std::string ptxasStderr;
  std::vector<ToolInvocation> commands;
  std::vector<Diagnostic> diagnostics;    // mapped to the user's paths
  std::vector<Diagnostic> rawDiagnostics; // as printed, for the cache
  std::string failureLog;
  std::vector<std::string> dependencies;
};

/// The compiles of one builder by key: the first job with a key runs the
/// tools, every later one (concurrent or not) gets its outcome.
class CompileMemo {
public:
  /// The outcome for |key|; |run| computes it in the first caller, which
  /// gets |*ran| = true.
  std::shared_ptr<const CompileOutcome>
  getOrRun(const std::string &key, const std::function<CompileOutcome()> &run,
           bool *ran) {
    std::promise<std::shared_ptr<const CompileOutcome>> promise;
    std::shared_future<std::shared_ptr<const CompileOutcome>> future;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = compiles_.find(key);
      *ran = it == compiles_.end();
      if (*ran)
        it = compiles_.emplace(key, promise.get_future().share()).first;
      future = it->second;
    }
    if (*ran)
      promise.set_value(std::make_shared<const CompileOutcome>(run()));
    return future.get();
  }

private:
  std::mutex mutex_;
  std::map<std::string,
           std::shared_future<std::shared_ptr<const CompileOutcome>>>
      compiles_;
};

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char kKeyVersion[] = "kernel-bench-build-v2";
// Names inside the job's private directory (see the file comment).
constexpr const char kStagedSourceDir[] = "src";
constexpr const char kStagedIncludePrefix[] = "inc";
constexpr const char kStagedTmp[] = "tmp";
// The generated file that instantiates KernelSpec::templateInstance; nvcc
// compiles it instead of the staged source, which it includes.
constexpr const char kStagedInstance[] = "instance.cu";

/// A tool step: the argv, run in the job's private directory.
struct Step {
  std::string tool;
  std::vector<std::string> argv; // argv[0] is the tool name, not its path
};

std::vector<std::string> extraFlags(const KernelSpec &spec, const char *tool) {
  auto it = spec.extraFlags.find(tool);
  return it == spec.extraFlags.end() ? std::vector<std::string>() : it->second;
}

void append(std::vector<std::string> &to,
            const std::vector<std::string> &from) {
  to.insert(to.end(), from.begin(), from.end());
}

/// |path| relative to |base| when that is expressible, else absolute.
std::string relativeTo(const fs::path &path, const fs::path &base) {
  fs::path relative = path.lexically_relative(base);
  return relative.empty() ? path.string() : relative.string();
}

bool isUnder(const fs::path &path, const fs::path &root) {
  if (root.empty())
    return false;
  fs::path normal = path.lexically_normal();
  auto [rootEnd, pathIt] =
      std::mismatch(root.begin(), root.end(), normal.begin(), normal.end());
  return rootEnd == root.end();
}

void replaceAll(std::string &text, const std::string &from,
                const std::string &to) {
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

/// |path| relative to the current directory when it lies below it (what a
/// progress line should show), else as is.
std::string displayPath(const fs::path &path) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec || !isUnder(path, cwd))
    return path.string();
  return path.lexically_relative(cwd).string();
}

bool hasLineInfo(const KernelSpec &spec) {
  for (const std::string &flag : extraFlags(spec, "nvcc"))
    if (flag == "-lineinfo" || flag == "--generate-line-info" || flag == "-G" ||
        flag == "--device-debug" || flag == "-g" || flag == "--debug")
      return true;
  for (const std::string &flag : extraFlags(spec, "glslc"))
    if (flag == "-g")
      return true;
  return false;
}

/// Everything one job needs while it runs.
class Job {
public:
  Job(const KernelSpec &spec, const Target &target, const fs::path &outDir,
      const Toolchains &toolchains, BuildCache *cache,
      const BuildOptions &options, CompileMemo &compiles,
      const KernelBuilder::StepCallback &onStep, BuildJobResult &result)
      : spec_(spec), target_(target), toolchains_(toolchains), cache_(cache),
        options_(options), compiles_(compiles), onStep_(onStep),
        result_(result) {
    sourceDir_ = spec.source.parent_path();
    kernelOutDir_ = outDir / "kernels" / spec.name;
    stem_ = target.fileStem();
  }

  Status run();
  /// Removes outputs of an earlier build of this (kernel, target): a failed
  /// job leaves no output that could be mistaken for its result.
  void removeStaleOutputs() const;
  /// Removes staging directories of this (kernel, target) left by a killed
  /// build.
  void removeAbandonedStaging() const;
  /// Gives each command of the result its user form (userArgv).
  void describeRerunnable() {
    for (ToolInvocation &c : result_.commands)
      c.userArgv = rerunnable(c.argv);
  }

private:
  Status fail(StatusCode code, const std::string &what) const {
    return Status(code,
                  spec_.name + " for " + target_.toString() + ": " + what);
  }
  Status checkSource();
  Status findTools();
  Status checkShellInputs() const;
  Status stageInputs(const std::string &source);
  std::string stagedSourceName() const {
    return target_.isCuda() ? "kernel.cu" : "kernel.comp";
  }
  /// What the compiler compiles: the staged source, or the file that
  /// instantiates the template instance from it.
  std::string compiledSourceName() const {
    return instantiates() ? kStagedInstance : stagedSourceName();
  }
  bool instantiates() const {
    return target_.isCuda() && !spec_.templateInstance.empty();
  }
  std::string instanceError(const std::vector<Diagnostic> &parsed) const;
  /// The file that instantiates spec_.templateInstance from |include|.
  std::string instanceText(const std::string &include) const;
  /// Beside the outputs: the instance file the rerunnable command compiles.
  fs::path publishedInstance() const {
    return kernelOutDir_ / (stem_ + "." + kStagedInstance);
  }
  Status publishInstance() const;
  fs::path userPath(const std::string &staged) const;
  std::vector<std::string>
  rerunnable(const std::vector<std::string> &argv) const;
  Status unstageLineInfo(const fs::path &ptxPath) const;
  std::vector<Step> planSteps() const;
  std::string primaryKey(const std::vector<Step> &steps,
                         const std::string &source) const;
  std::string compileKey(const std::vector<Step> &steps,
                         const std::string &source) const;
  CompileOutcome compile(const std::vector<Step> &steps,
                         const std::string &source);
  Status adopt(const CompileOutcome &outcome);
  Status runStep(const Step &step, std::string *stderrOut = nullptr);
  Status checkAbi(const std::map<std::string, std::string> &outputs);
  std::vector<AbiMismatch> checkSourceParameterNames(const PtxEntry &entry);
  Status publish(const std::map<std::string, std::string> &outputs);
  Status restoreFromCache(CacheEntry entry);
  void storeInCache(const std::string &key, const CompileOutcome &compiled,
                    fs::file_time_type jobStart);
  std::vector<std::string> collectDependencies(const fs::path &depfile) const;
  void addDiagnostics(std::vector<Diagnostic> diagnostics);
  std::vector<std::string> outputKinds() const {
    if (target_.isCuda())
      return {"ptx", "cubin"};
    return {"spv"};
  }
  fs::path finalPath(const std::string &kind) const {
    return kernelOutDir_ / (stem_ + "." + kind);
  }

  const KernelSpec &spec_;
  const Target &target_;
  const Toolchains &toolchains_;
  BuildCache *cache_;
  const BuildOptions &options_;
  CompileMemo &compiles_;
  const KernelBuilder::StepCallback &onStep_;
  BuildJobResult &result_;

  fs::path sourceDir_;
  fs::path kernelOutDir_;
  std::string stem_;
  std::optional<ScratchDir> scratch_; // the private directory tools run in
  std::map<std::string, ToolIdentity> tools_;
  fs::path cudaRoot_;
  std::string resourceEntry_;              // the PTX entry ptxas reports on
  std::vector<Diagnostic> rawDiagnostics_; // as printed, for the cache
};

Status Job::findTools() {
  std::vector<std::string> names;
  if (target_.isCuda()) {
    names = {"nvcc", "host-cxx", "ptxas"};
  } else {
    names = {"glslc", "spirv-val"};
    if (spec_.optimizeSpirv)
      names.push_back("spirv-opt");
  }
  for (const std::string &name : names) {
    StatusOr<ToolIdentity> tool = toolchains_.find(name);
    if (!tool.ok())
      return tool.status().withContext(spec_.name + " for " +
                                       target_.toString());
    result_.toolVersions[name] = tool->versionSummary;
    tools_[name] = *tool;
  }
  if (target_.isCuda())
    cudaRoot_ =
        tools_["nvcc"].path.parent_path().parent_path().lexically_normal();
  return okStatus();
}

std::vector<Step> Job::planSteps() const {
  std::vector<std::string> defines, includes;
  const std::vector<std::string> &arguments = spec_.templateArgumentNames;
  for (const auto &[name, value] : spec_.defines)
    if (!instantiates() ||
        std::find(arguments.begin(), arguments.end(), name) == arguments.end())
      defines.push_back("-D" + name + (value.empty() ? "" : "=" + value));
  // The source's own directory first: where its quote-includes resolved
  // before it was staged.
  includes.push_back(std::string("-I") + kStagedSourceDir);
  for (size_t i = 0; i < spec_.includeDirs.size(); ++i)
    includes.push_back("-I" + std::string(kStagedIncludePrefix) +
                       std::to_string(i));
  std::string sourceName = compiledSourceName();
  std::vector<Step> steps;

  if (target_.isCuda()) {
    Step nvcc{"nvcc", {"nvcc", "-ptx", "-arch=" + target_.arch()}};
    const ToolIdentity &host = tools_.at("host-cxx");
    if (host.overridden)
      append(nvcc.argv, {"-ccbin", host.path.string()});
    append(nvcc.argv, {"-MD", "-MF", stem_ + ".d", "-MT", stem_ + ".ptx"});
    append(nvcc.argv, defines);
    append(nvcc.argv, includes);
    append(nvcc.argv, extraFlags(spec_, "nvcc"));
    append(nvcc.argv, {sourceName, "-o", stem_ + ".ptx"});
    steps.push_back(nvcc);

    Step ptxas{"ptxas",
               {"ptxas", "-arch=" + target_.arch(), "-v", "--warn-on-spills"}};
    if (spec_.spillsAreErrors)
      ptxas.argv.push_back("--warning-as-error");
    append(ptxas.argv, extraFlags(spec_, "ptxas"));
    append(ptxas.argv, {stem_ + ".ptx", "-o", stem_ + ".cubin"});
    steps.push_back(ptxas);
    return steps;
  }

  std::string env = target_.arch(); // "vulkan1.2"
  // -g: the source's lines travel in the SPIR-V as non-semantic debug
  // instructions (the driver's code is the same), so that the validation
  // layer under `--sanitize` names the line of a finding.
  Step glslc{"glslc",
             {"glslc", "-fshader-stage=compute", "--target-env=" + env, "-g",
              "-MD", "-MF", stem_ + ".d", "-MT", stem_ + ".spv"}};
  append(glslc.argv, defines);
  append(glslc.argv, includes);
  append(glslc.argv, extraFlags(spec_, "glslc"));
  append(glslc.argv, {sourceName, "-o", stem_ + ".spv"});
  steps.push_back(glslc);

  // spirv-val takes `--target-env vulkan1.2` (the `=` form is rejected);
  // spirv-opt takes only `--target-env=vulkan1.2`.
  Step validate{"spirv-val", {"spirv-val", "--target-env", env}};
  append(validate.argv, extraFlags(spec_, "spirv-val"));
  Step validateRaw = validate;
  validateRaw.argv.push_back(stem_ + ".spv");
  steps.push_back(validateRaw);
  if (spec_.optimizeSpirv) {
    Step opt{"spirv-opt",
             {"spirv-opt", "-O", "--preserve-bindings", "--target-env=" + env}};
    append(opt.argv, extraFlags(spec_, "spirv-opt"));
    append(opt.argv, {stem_ + ".spv", "-o", stem_ + ".opt.spv"});
    steps.push_back(opt);
    Step validateOpt = validate;
    validateOpt.argv.push_back(stem_ + ".opt.spv");
    steps.push_back(validateOpt);
  }
  return steps;
}

std::string Job::primaryKey(const std::vector<Step> &steps,
                            const std::string &source) const {
  CacheKeyBuilder key;
  key.add(kKeyVersion);
  // ptxas reports resources per entry; the stored report is the entry's.
  key.add("entry", spec_.abi.entry);
  key.add("compile", compileKey(steps, source));
  return key.finish();
}

std::string Job::compileKey(const std::vector<Step> &steps,
                            const std::string &source) const {
  CacheKeyBuilder key;
  key.add(kKeyVersion);
  key.add("target", target_.toString());
  key.add("language", toString(spec_.language));
  // The generated file is not a dependency nvcc reports; its one variable
  // part is the instance.
  if (instantiates())
    key.add("instance", spec_.templateInstance);
  for (const auto &[name, tool] : tools_) {
    key.add("tool", name);
    key.add(tool.path.string());
    key.add(tool.version);
  }
  for (const Step &step : steps) {
    key.add("step", step.tool);
    key.add(std::to_string(step.argv.size()));
    for (const std::string &arg : step.argv)
      key.add(arg);
  }
  key.add("env", "LC_ALL=C");
  // The staged argv names include directories by position; where they lie
  // relative to the source decides what a `../` include finds.
  for (const fs::path &dir : spec_.includeDirs)
    key.add("include", relativeTo(dir, sourceDir_));
  // With line info the absolute source path is embedded in the output.
  if (hasLineInfo(spec_))
    key.add("source-dir", sourceDir_.string());
  key.add("source", source);
  return key.finish();
}

void Job::addDiagnostics(std::vector<Diagnostic> diagnostics) {
  for (Diagnostic &d : diagnostics) {
    if (instantiates() && fs::path(d.file).filename() == kStagedInstance) {
      // The generated file is one line the user never wrote: point at the
      // source, and say which instance it was.
      d.message = "instantiating `" + spec_.templateInstance +
                  "` (`entry`): " + d.message;
      d.file = spec_.source.string();
      d.line = 0;
      d.column = 0;
    } else if (d.tool == "ptxas" && fs::path(d.file).extension() == ".ptx") {
      // A PTX file of ours is a temporary the user never sees: point at the
      // kernel and keep the PTX line in the message.
      if (d.line > 0)
        d.message = "in the generated PTX, line " + std::to_string(d.line) +
                    ": " + d.message;
      d.file = spec_.source.string();
      d.line = 0;
      d.column = 0;
    } else if ((d.tool == "spirv-val" || d.tool == "spirv-opt") &&
               (d.file.empty() || fs::path(d.file).extension() == ".spv")) {
      d.file = spec_.source.string();
    } else if (!d.file.empty()) {
      d.file = userPath(d.file).string();
    }
    result_.diagnostics.push_back(std::move(d));
  }
}

Status Job::runStep(const Step &step, std::string *stderrOut) {
  bool compiles = step.tool == "nvcc" || step.tool == "glslc";
  if (onStep_)
    onStep_(step.tool + " " + stem_ + " " +
            (compiles ? displayPath(spec_.source) : spec_.name));
  ProcessOptions process;
  process.argv.push_back(tools_.at(step.tool).path.string());
  for (size_t i = 1; i < step.argv.size(); ++i)
    process.argv.push_back(step.argv[i]);
  process.workingDirectory = scratch_->path();
  // A TMPDIR of the job's own: nvcc's tmpxft_<pid> names collide between
  // concurrent jobs otherwise, and its path reaches nvcc's shell.
  std::string tmp = (scratch_->path() / kStagedTmp).string();
  process.privateTmpDir = false;
  process.env = {{"LC_ALL", "C"}, {"TMPDIR", tmp}, {"TMP", tmp}, {"TEMP", tmp}};
  process.timeout = options_.timeout;
  process.memoryLimitBytes = options_.memoryLimitBytes;
  StatusOr<ProcessResult> ran = runProcess(process);
  if (!ran.ok())
    return ran.status().withContext(spec_.name + " for " + target_.toString());
  const ProcessResult &r = *ran;

  ToolInvocation invocation;
  invocation.tool = step.tool;
  invocation.argv = process.argv;
  invocation.seconds = r.seconds;
  invocation.exitCode = r.exitCode;
  invocation.signal = r.signal;
  invocation.timedOut = r.timedOut;
  result_.commands.push_back(invocation);

  std::string output = r.stderrText;
  if (!r.stdoutText.empty())
    output = r.stdoutText + (output.empty() ? "" : "\n" + output);
  size_t before = result_.diagnostics.size();
  std::vector<Diagnostic> parsed = parseDiagnostics(step.tool, output);
  rawDiagnostics_.insert(rawDiagnostics_.end(), parsed.begin(), parsed.end());
  std::string instance =
      step.tool == "nvcc" && instantiates() ? instanceError(parsed) : "";
  addDiagnostics(std::move(parsed));
  if (stderrOut)
    *stderrOut = r.stderrText;
  if (r.succeeded())
    return okStatus();

  result_.failureLog = formatCommandLine(process.argv) + "\n" + output;
  if (r.timedOut)
    return fail(StatusCode::DeadlineExceeded,
                step.tool + " " + r.describe() +
                    "; raise [build] timeout in workbench.toml if the kernel "
                    "needs longer");
  std::string why = step.tool + " failed (" + r.describe() + ")";
  if (!instance.empty())
    return fail(StatusCode::InvalidArgument, why + ": " + instance);
  for (size_t i = before; i < result_.diagnostics.size(); ++i) {
    const Diagnostic &d = result_.diagnostics[i];
    if (d.severity == Severity::Error || d.severity == Severity::Fatal)
      return fail(StatusCode::InvalidArgument,
                  why + ": " + formatDiagnostic(d, false));
  }
  // A tool past its memory limit fails to allocate: it aborts, crashes or
  // exits with no error of its own (glslc says nothing).
  if (options_.memoryLimitBytes)
    why += "; it ran under a memory limit of " +
           formatByteSize(options_.memoryLimitBytes) +
           " ([build] tool_memory, --tool-memory): if it ran out, raise the "
           "limit";
  if (r.signal != 0)
    return fail(StatusCode::Internal, why);
  return fail(StatusCode::InvalidArgument,
              why + "; its output is in the failure log");
}

std::vector<std::string>
Job::collectDependencies(const fs::path &depfile) const {
  std::vector<std::string> deps;
  auto text = readFile(depfile);
  if (!text.ok())
    return deps; // No depfile: the entry is keyed by the source alone.
  auto rules = parseDepfile(*text, depfile.string());
  if (!rules.ok())
    return deps;
  fs::path canonicalCudaRoot;
  if (!cudaRoot_.empty()) {
    std::error_code ec;
    canonicalCudaRoot = fs::weakly_canonical(cudaRoot_, ec);
  }
  for (const std::string &dep : allDependencies(*rules)) {
    fs::path path = userPath(dep);
    // Toolkit headers are covered by nvcc's identity (its version).
    if (isUnder(path, cudaRoot_) || isUnder(path, canonicalCudaRoot))
      continue;
    deps.push_back(path.string());
  }
  std::string source = spec_.source.lexically_normal().string();
  if (std::find(deps.begin(), deps.end(), source) == deps.end())
    deps.push_back(source);
  return deps;
}

/// The PTX fits; do the source's parameter names say the [abi] passes them
/// in another order (checkParameterNames)? The source was compiled, so an
/// unreadable one now (or a declaration macros hide) is simply not checked.
std::vector<AbiMismatch> Job::checkSourceParameterNames(const PtxEntry &entry) {
  StatusOr<std::string> text = readFile(spec_.source, kSourceInput);
  if (!text.ok())
    return {};
  std::string function = entry.name;
  if (isMangledName(entry.name))
    if (StatusOr<CudaSignature> signature = demangleCudaKernel(entry.name);
        signature.ok())
      function = signature->function;
  return checkParameterNames(
      spec_.abi,
      cudaSourceParameterNames(*text, function, entry.params.size()));
}

Status Job::checkAbi(const std::map<std::string, std::string> &outputs) {
  if (!spec_.checkAbi)
    return okStatus();
  std::vector<AbiMismatch> mismatches, notes;
  std::string what;
  if (target_.isCuda()) {
    StatusOr<PtxModule> ptx = readPtx(outputs.at("ptx"));
    if (!ptx.ok())
      return fail(StatusCode::Internal, "cannot read the PTX nvcc produced: " +
                                            ptx.status().message());
    mismatches = checkPtxAbi(*ptx, spec_.abi);
    what = "the PTX entry";
    // ptxas reports on the entry the ABI check resolved (a C++ kernel's
    // mangled name).
    const PtxEntry *entry = resolvePtxEntry(*ptx, spec_.abi.entry);
    resourceEntry_ = entry ? entry->name : spec_.abi.entry;
    if (entry && mismatches.empty())
      mismatches = checkSourceParameterNames(*entry);
    if (entry && !entry->reqntid && !entry->maxntid) {
      Diagnostic note;
      note.tool = "kernel-bench";
      note.file = spec_.source.string();
      note.severity = Severity::Note;
      const auto &wg = spec_.abi.workgroupSize;
      note.message = "the workgroup size " + std::to_string(wg[0]) + "x" +
                     std::to_string(wg[1]) + "x" + std::to_string(wg[2]) +
                     " cannot be checked against `" + entry->name +
                     "`: its PTX has neither .reqntid nor .maxntid (add "
                     "__launch_bounds__ to the kernel to have it checked)";
      result_.diagnostics.push_back(std::move(note));
    }
  } else {
    StatusOr<SpirvModule> spirv = readSpirvBytes(outputs.at("spv"));
    if (!spirv.ok())
      return fail(StatusCode::Internal,
                  "cannot read the SPIR-V glslc produced: " +
                      spirv.status().message());
    KernelAbi abi = spec_.abi;
    auto values =
        resolveSpecialization(*spirv, spec_.abi.entry, spec_.specialization);
    if (!values.ok())
      return fail(StatusCode::InvalidArgument,
                  (spec_.manifest.empty() ? std::string("the kernel")
                                          : spec_.manifest.string()) +
                      ": " + values.status().message());
    abi.specialization = std::move(*values);
    // Constants in a uniform block instead of push constants: the kernel's
    // own choice, read from its SPIR-V.
    abi.uniformConstants = uniformConstantsOf(*spirv);
    // Struct elements (type = "struct") likewise: laid out as it declares.
    setStructLayouts(*spirv, abi);
    mismatches = checkSpirvAbi(*spirv, abi, &notes);
    what = "the SPIR-V module";
  }
  std::string declaredIn =
      spec_.manifest.empty() ? std::string("the kernel's ABI")
                             : "the ABI declared in " + spec_.manifest.string();
  for (const AbiMismatch &note : notes) {
    Diagnostic d;
    d.tool = "kernel-bench";
    d.file = spec_.source.string();
    d.severity = Severity::Note;
    d.message = note.message + " (" + declaredIn + ")";
    result_.diagnostics.push_back(std::move(d));
  }
  if (mismatches.empty())
    return okStatus();
  for (const AbiMismatch &mismatch : mismatches) {
    Diagnostic d;
    d.tool = "kernel-bench";
    d.file = spec_.source.string();
    d.severity = Severity::Error;
    d.message = mismatch.message + " (" + declaredIn + ")";
    result_.diagnostics.push_back(std::move(d));
  }
  return fail(StatusCode::InvalidArgument,
              what + " does not match " + declaredIn + ":\n" +
                  formatMismatches(mismatches) +
                  "\nFix the kernel's signature or its [abi] table.");
}

Status Job::publish(const std::map<std::string, std::string> &outputs) {
  // In outputKinds() order, as on a cache hit.
  for (const std::string &kind : outputKinds()) {
    const std::string &bytes = outputs.at(kind);
    fs::path to = finalPath(kind);
    // The private directory may be on another filesystem: write, not rename.
    KB_RETURN_IF_ERROR(writeFileAtomic(to, bytes));
    result_.outputs.push_back(
        OutputFile{kind, to, sha256Hex(bytes), uint64_t(bytes.size())});
  }
  return okStatus();
}

Status Job::restoreFromCache(CacheEntry entry) {
  for (const std::string &kind : outputKinds())
    if (!entry.outputs.count(kind))
      return fail(StatusCode::DataLoss, "cache entry lacks its ." + kind);
  KB_RETURN_IF_ERROR(checkAbi(entry.outputs));
  for (const std::string &kind : outputKinds()) {
    const std::string &bytes = entry.outputs.at(kind);
    auto known = entry.outputHashes.find(kind);
    std::string hash =
        known != entry.outputHashes.end() ? known->second : sha256Hex(bytes);
    // A no-op rebuild finds its outputs already in place; rewriting them
    // (with an fsync each) would dominate its time. Their hashes come from
    // the cache's stat-keyed memo, so an unchanged output is not re-read.
    std::optional<std::string> existing =
        cache_->hashFile(finalPath(kind).string());
    bool current = existing && *existing == hash;
    if (!current)
      KB_RETURN_IF_ERROR(writeFileAtomic(finalPath(kind), bytes));
    result_.outputs.push_back(
        OutputFile{kind, finalPath(kind), hash, uint64_t(bytes.size())});
  }
  addDiagnostics(std::move(entry.diagnostics));
  result_.resources = entry.resources;
  result_.commands = std::move(entry.commands);
  result_.cacheHit = true;
  result_.cacheHitRemote = entry.fromRemote;
  return okStatus();
}

// The checks before any tool runs: the source's language builds for the
// target, and the source is an absolute path to a file that exists (the one
// failure reported as a diagnostic too, since it names the kernel.toml).
Status Job::checkSource() {
  if (target_.isCuda() != (spec_.language == Language::Cuda))
    return fail(StatusCode::InvalidArgument,
                std::string("a ") + toString(spec_.language) +
                    " kernel cannot be built for " + target_.toString() +
                    " (CUDA sources build cuda:* targets, GLSL sources "
                    "vulkan:* targets)");
  if (spec_.source.is_relative())
    return fail(StatusCode::InvalidArgument,
                "source path `" + spec_.source.string() +
                    "` must be absolute (resolve it against the kernel.toml)");
  // The instance is pasted into the generated file: a name and integers,
  // nothing that could end the line or the declaration.
  static const std::regex instance(
      R"(^[A-Za-z_][A-Za-z0-9_:]*<\s*-?[0-9]+(\s*,\s*-?[0-9]+)*\s*>$)");
  if (instantiates() && !std::regex_match(spec_.templateInstance, instance))
    return fail(StatusCode::InvalidArgument,
                "template instance `" + spec_.templateInstance +
                    "`: expected a function template's name and integer "
                    "arguments, e.g. `my_kernel<32>`");
  std::error_code ec;
  if (!fs::is_regular_file(spec_.source, ec)) {
    Diagnostic d;
    d.tool = "kernel-bench";
    d.file = spec_.manifest.empty() ? spec_.source.string()
                                    : spec_.manifest.string();
    d.severity = Severity::Error;
    d.message = "source `" + spec_.source.string() + "` of kernel `" +
                spec_.name + "` does not exist";
    result_.diagnostics.push_back(d);
    return fail(StatusCode::NotFound,
                "source file `" + spec_.source.string() + "` does not exist" +
                    (spec_.manifest.empty()
                         ? std::string()
                         : " (named in " + spec_.manifest.string() + ")") +
                    "; fix the path or create the file");
  }
  return okStatus();
}

// Stores a fresh build's outputs; a failure to store only warns, since the
// build itself succeeded.
void Job::storeInCache(const std::string &key, const CompileOutcome &compiled,
                       fs::file_time_type jobStart) {
  // Stored as the tools printed them (relative to the source's
  // directory), so a hit from another checkout points into this one.
  CacheEntry entry;
  entry.outputs = compiled.outputs;
  entry.dependencies = compiled.dependencies;
  entry.diagnostics = compiled.rawDiagnostics;
  entry.resources = result_.resources;
  entry.commands = compiled.commands;
  Status stored = cache_->store(key, entry, jobStart, sourceDir_);
  if (!stored.ok()) {
    Diagnostic d;
    d.tool = "kernel-bench";
    d.severity = Severity::Warning;
    d.message =
        "the build succeeded but could not be cached: " + stored.message();
    result_.diagnostics.push_back(std::move(d));
  }
}

Status Job::run() {
  bool cuda = target_.isCuda();
  KB_RETURN_IF_ERROR(checkSource());
  KB_RETURN_IF_ERROR(findTools());
  KB_RETURN_IF_ERROR(checkShellInputs());
  std::vector<Step> steps = planSteps();
  StatusOr<std::string> source = readFile(spec_.source);
  if (!source.ok())
    return source.status().withContext(spec_.name + " for " +
                                       target_.toString());

  auto jobStart = fs::file_time_type::clock::now();
  std::string key;
  if (cache_) {
    key = primaryKey(steps, *source);
    if (std::optional<CacheEntry> hit = cache_->lookup(key, sourceDir_)) {
      KB_RETURN_IF_ERROR(restoreFromCache(std::move(*hit)));
      return publishInstance();
    }
  }

  // Shared only between the same files: the outcome carries the first
  // job's dependency paths (and, with line info, its PTX names them).
  std::string shareKey = compileKey(steps, *source) + "\n" +
                         spec_.source.lexically_normal().string();
  for (const fs::path &dir : spec_.includeDirs)
    shareKey += "\n" + dir.lexically_normal().string();
  bool ran = false;
  std::shared_ptr<const CompileOutcome> compiled = compiles_.getOrRun(
      shareKey, [&] { return compile(steps, *source); }, &ran);
  if (!ran)
    KB_RETURN_IF_ERROR(adopt(*compiled));
  KB_RETURN_IF_ERROR(compiled->status);
  KB_RETURN_IF_ERROR(checkAbi(compiled->outputs));
  if (cuda)
    result_.resources =
        parsePtxasResourceUsage(compiled->ptxasStderr, resourceEntry_);
  KB_RETURN_IF_ERROR(publish(compiled->outputs));
  KB_RETURN_IF_ERROR(publishInstance());

  if (cache_)
    storeInCache(key, *compiled, jobStart);
  return okStatus();
}

CompileOutcome Job::compile(const std::vector<Step> &steps,
                            const std::string &source) {
  CompileOutcome outcome;
  outcome.kernel = spec_.name;
  outcome.status = [&]() -> Status {
    removeAbandonedStaging();
    KB_RETURN_IF_ERROR(stageInputs(source));
    const fs::path &staging = scratch_->path();
    for (const Step &step : steps) {
      KB_RETURN_IF_ERROR(
          runStep(step, step.tool == "ptxas" ? &outcome.ptxasStderr : nullptr));
      if (step.tool == "nvcc")
        KB_RETURN_IF_ERROR(unstageLineInfo(staging / (stem_ + ".ptx")));
    }
    std::map<std::string, fs::path> files;
    if (target_.isCuda())
      files = {{"ptx", staging / (stem_ + ".ptx")},
               {"cubin", staging / (stem_ + ".cubin")}};
    else
      files = {{"spv", staging / (stem_ + (spec_.optimizeSpirv ? ".opt.spv"
                                                               : ".spv"))}};
    for (const auto &[kind, path] : files) {
      KB_ASSIGN_OR_RETURN(outcome.outputs[kind], readFile(path));
    }
    outcome.dependencies = collectDependencies(staging / (stem_ + ".d"));
    return okStatus();
  }();
  outcome.commands = result_.commands;
  outcome.diagnostics = result_.diagnostics;
  outcome.rawDiagnostics = rawDiagnostics_;
  outcome.failureLog = result_.failureLog;
  return outcome;
}

Status Job::adopt(const CompileOutcome &outcome) {
  result_.sharedCompileWith = outcome.kernel;
  result_.commands = outcome.commands;
  result_.diagnostics.insert(result_.diagnostics.end(),
                             outcome.diagnostics.begin(),
                             outcome.diagnostics.end());
  result_.failureLog = outcome.failureLog;
  if (outcome.status.ok())
    return okStatus();
  return fail(outcome.status.code(),
              "the compile it shares with kernel `" + outcome.kernel +
                  "` (same source, target and flags) failed: " +
                  outcome.status.message());
}

Status Job::checkShellInputs() const {
  std::string kernel =
      " of kernel `" + spec_.name + "`" +
      (spec_.manifest.empty() ? std::string()
                              : " (" + spec_.manifest.string() + ")");
  for (const auto &[name, value] : spec_.defines) {
    KB_RETURN_IF_ERROR(checkMacroName("define" + kernel, name));
    KB_RETURN_IF_ERROR(
        checkShellSafe("the value of define `" + name + "`" + kernel, value,
                       ShellExposure::DoubleQuoted));
  }
  // Every tool's flags, used by this target or not: one rule per kernel.toml.
  for (const auto &[tool, flags] : spec_.extraFlags)
    for (const std::string &flag : flags)
      KB_RETURN_IF_ERROR(
          checkShellSafe("flag `" + flag + "` for " + tool + kernel, flag,
                         ShellExposure::Bare));
  // nvcc names its own directory and the host compiler in its shell lines.
  for (const char *tool : {"nvcc", "host-cxx"}) {
    auto it = tools_.find(tool);
    if (it != tools_.end())
      KB_RETURN_IF_ERROR(
          checkShellSafe(std::string("the path of ") + tool + " `" +
                             it->second.path.string() + "`",
                         it->second.path.string(), ShellExposure::Bare));
  }
  return okStatus();
}

/// Why nvcc could not build the instance, from the first error it printed
/// (|parsed|, paths as staged): the template is not defined, nvcc cannot
/// form the instance from the generated line, or the instance does not
/// compile (an error in the user's file). Empty without an error.
std::string Job::instanceError(const std::vector<Diagnostic> &parsed) const {
  const std::string &instance = spec_.templateInstance;
  std::string name = instance.substr(0, instance.find('<'));
  std::string last = name.substr(name.rfind(':') + 1);
  for (const Diagnostic &d : parsed) {
    if (d.severity != Severity::Error && d.severity != Severity::Fatal)
      continue;
    if (fs::path(d.file).filename() != kStagedInstance)
      return "instantiating `" + instance +
             "` (`entry`): " + formatDiagnostic(d, false);
    std::string quoted = "\"" + last + "\"";
    if (d.message.find(quoted) != std::string::npos &&
        (d.message.find("is undefined") != std::string::npos ||
         d.message.find("has no member") != std::string::npos))
      return "`entry` names the template `" + name + "`, which " +
             spec_.source.string() +
             " does not define (nor any header it includes); name a "
             "__global__ function template of the source, e.g. `entry = \"" +
             "my_kernel<BLOCK>\"`";
    return "nvcc cannot instantiate `" + instance +
           "` (`entry`): " + d.message +
           " (`entry` names a __global__ function template, not overloaded, "
           "and integer arguments for its template parameters)";
  }
  return "";
}

Status Job::stageInputs(const std::string &source) {
  KB_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::create());
  scratch_.emplace(std::move(scratch));
  const fs::path &dir = scratch_->path();
  std::error_code ec;
  fs::create_directory(dir / kStagedTmp, ec);
  if (!ec)
    fs::create_directory_symlink(sourceDir_, dir / kStagedSourceDir, ec);
  for (size_t i = 0; !ec && i < spec_.includeDirs.size(); ++i)
    fs::create_directory_symlink(
        spec_.includeDirs[i], dir / (kStagedIncludePrefix + std::to_string(i)),
        ec);
  if (ec)
    return fail(StatusCode::Internal, "cannot stage the inputs in `" +
                                          dir.string() + "`: " + ec.message());
  if (instantiates())
    KB_RETURN_IF_ERROR(writeFileAtomic(dir / kStagedInstance,
                                       instanceText(stagedSourceName())));
  return writeFileAtomic(dir / stagedSourceName(), source);
}

std::string Job::instanceText(const std::string &include) const {
  // Taking the instance's address instantiates it without its signature;
  // nvcc emits the .entry of every __global__ instance so used.
  return "// Generated by kernel-bench: instantiates `entry`.\n"
         "#include \"" +
         include +
         "\"\n"
         "static auto *const kb_instance __attribute__((unused)) = &" +
         spec_.templateInstance + ";\n";
}

Status Job::publishInstance() const {
  // The rerunnable nvcc command (build.json) compiles this file; it includes
  // the user's source where the staged one included the staged copy.
  if (!instantiates())
    return okStatus();
  return writeFileAtomic(publishedInstance(),
                         instanceText(spec_.source.string()));
}

fs::path Job::userPath(const std::string &staged) const {
  fs::path path(staged);
  if (path.is_absolute()) {
    fs::path relative =
        path.lexically_relative(scratch_ ? scratch_->path() : fs::path());
    if (relative.empty() || *relative.begin() == "..")
      return path.lexically_normal();
    path = relative;
  }
  path = path.lexically_normal();
  auto it = path.begin();
  if (it == path.end())
    return path;
  std::string first = it->string();
  fs::path rest;
  for (++it; it != path.end(); ++it)
    rest /= *it;
  if ((first == stagedSourceName() || first == compiledSourceName()) &&
      rest.empty())
    return spec_.source;
  if (first == kStagedSourceDir)
    return (sourceDir_ / rest).lexically_normal();
  std::string prefix = kStagedIncludePrefix;
  if (first.rfind(prefix, 0) == 0 && first.size() > prefix.size()) {
    size_t index = 0;
    for (char c : first.substr(prefix.size()))
      index = std::isdigit(static_cast<unsigned char>(c))
                  ? index * 10 + (c - '0')
                  : SIZE_MAX;
    if (index < spec_.includeDirs.size())
      return (spec_.includeDirs[index] / rest).lexically_normal();
  }
  return path;
}

std::vector<std::string>
Job::rerunnable(const std::vector<std::string> &argv) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string &arg = argv[i];
    if (arg == "-MD")
      continue; // the depfile is the build's own bookkeeping
    if ((arg == "-MF" || arg == "-MT") && i + 1 < argv.size()) {
      ++i;
      continue;
    }
    if (arg.size() > 2 && arg.rfind("-I", 0) == 0) {
      fs::path dir = userPath(arg.substr(2));
      out.push_back("-I" +
                    (dir.has_filename() ? dir : dir.parent_path()).string());
      continue;
    }
    // With spirv-opt the published .spv is the optimized one: glslc's
    // output gets a name of its own, spirv-opt's the published one.
    bool optimized = spec_.optimizeSpirv;
    if (arg == stem_ + ".spv" && optimized)
      out.push_back((kernelOutDir_ / (stem_ + ".unoptimized.spv")).string());
    else if (arg == stem_ + ".opt.spv")
      out.push_back(finalPath("spv").string());
    else if (arg == stem_ + ".ptx" || arg == stem_ + ".cubin" ||
             arg == stem_ + ".spv")
      out.push_back((kernelOutDir_ / arg).string());
    else if (arg == stagedSourceName())
      out.push_back(spec_.source.string());
    else if (instantiates() && arg == kStagedInstance)
      out.push_back(publishedInstance().string());
    else
      out.push_back(arg);
  }
  return out;
}

Status Job::unstageLineInfo(const fs::path &ptxPath) const {
  // With line info nvcc writes `.file N "<private dir>/kernel.cu"` (and the
  // headers under src/ and incN/): point them at the user's files, so the
  // PTX does not depend on the private directory's random name.
  if (!hasLineInfo(spec_))
    return okStatus();
  KB_ASSIGN_OR_RETURN(std::string ptx, readFile(ptxPath));
  auto quoteSafe = [](const fs::path &path) {
    std::string text = path.string();
    return text.find_first_of("\"\\\n") == std::string::npos;
  };
  std::string dir = scratch_->path().string() + "/";
  std::vector<std::pair<std::string, fs::path>> mapping = {
      {dir + stagedSourceName() + "\"", spec_.source},
      {dir + compiledSourceName() + "\"", spec_.source},
      {dir + kStagedSourceDir + "/", sourceDir_}};
  for (size_t i = 0; i < spec_.includeDirs.size(); ++i)
    mapping.push_back({dir + kStagedIncludePrefix + std::to_string(i) + "/",
                       spec_.includeDirs[i]});
  for (const auto &[from, to] : mapping) {
    if (!quoteSafe(to))
      continue; // Left as is: the user's path cannot be written in PTX.
    bool isFile = from.back() == '"';
    replaceAll(ptx, from, to.string() + (isFile ? "\"" : "/"));
  }
  return writeFileAtomic(ptxPath, ptx);
}

void Job::removeAbandonedStaging() const {
  // Left by a build that was killed (SIGKILL, power loss) mid-job: staging
  // directories of older versions, and writeFileAtomic's temporaries of
  // this (kernel, target)'s outputs. Nothing else creates these names, and
  // the build holds the output directory's lock.
  std::error_code ec;
  std::vector<std::string> prefixes = {"." + stem_ + ".tmp-"};
  for (const std::string &kind : outputKinds())
    prefixes.push_back(stem_ + "." + kind + ".tmp-");
  for (fs::directory_iterator it(kernelOutDir_, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (std::any_of(prefixes.begin(), prefixes.end(),
                    [&](const std::string &prefix) {
                      return name.rfind(prefix, 0) == 0;
                    })) {
      std::error_code removeError;
      fs::remove_all(it->path(), removeError);
    }
  }
}

void Job::removeStaleOutputs() const {
  for (const std::string &kind : outputKinds()) {
    if (options_.removeStaleOutput) {
      options_.removeStaleOutput(finalPath(kind));
      continue;
    }
    std::error_code ec;
    fs::remove(finalPath(kind), ec);
  }
}

} // namespace

const char *toString(Language language) {
  return language == Language::Cuda ? "cuda" : "glsl";
}

KernelBuilder::KernelBuilder(const Toolchains &toolchains, BuildCache *cache,
                             BuildOptions options)
    : toolchains_(toolchains), cache_(cache), options_(options),
      compiles_(std::make_shared<CompileMemo>()) {
  // Private directories of builds that were killed (SIGKILL cannot clean
  // up); once per process is enough.
  static std::once_flag swept;
  std::call_once(swept, [] { ScratchDir::removeAbandoned(); });
}

BuildJobResult KernelBuilder::build(const KernelSpec &spec,
                                    const Target &target,
                                    const fs::path &outDir,
                                    const StepCallback &onStep) const {
  auto start = Clock::now();
  BuildJobResult result;
  result.kernel = spec.name;
  result.target = target;
  Job job(spec, target, outDir, toolchains_, cache_, options_, *compiles_,
          onStep, result);
  result.status = job.run();
  job.describeRerunnable();
  if (!result.status.ok()) {
    job.removeStaleOutputs();
    result.outputs.clear();
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

} // namespace kb::toolchains

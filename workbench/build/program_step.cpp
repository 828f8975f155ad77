//===- workbench/build/program_step.cpp - Compile the project's program ---===//
//
// Every successfully built kernel that `substitutes` an executable hands its
// PTX (cuda targets) and SPIR-V (vulkan targets) to the compiler as an
// object substitution of that target's variant, and the compiler
// (libKBCompiler.so, opened on demand: compiler_library.h) writes
// OUT_DIR/program.kbm and one
// OUT_DIR/bench/<name>.kbm per benchmark. build.json's "program" records
// what was substituted by which kernel, the benchmarks, the dispatches that
// could not be benchmarked and why, codegen times and the diagnostics.
//
// A standalone kernel (no `substitutes`, a `[bench]` table) gets the same
// pipeline on a one-dispatch program the compiler synthesizes for it
// (kb::driver::writeStandaloneProgram) under OUT_DIR/standalone/<kernel>/:
// program.mlir, program.kbm and bench/<name>.kbm, its handwritten kernel the
// candidate and the `reference` executable's generated code the reference.
//
// PTX rather than the cubin: the compiler checks a PTX object against the
// export's ABI (it has no cubin reader), and an external variant holds one
// object.
//
// A no-op rebuild skips the compile (codegen of every generated variant and
// a ptxas run per CUDA one cost far more than the cached kernel jobs): the
// step hashes everything the compiler reads into a key, like the kernel
// cache's primary key (toolchains::CacheKeyBuilder), and leaves
// OUT_DIR/.kb-program-stamp with that key, the sha256 of every file it
// wrote and its build.json record. The next build reuses the outputs iff
// the key matches and each recorded file still hashes the same (through the
// build cache's stat-keyed memo: a no-op build only stats). The stamp is
// written last and removed before any compile, so a failed or interrupted
// step never leaves one behind.
//
//===----------------------------------------------------------------------===//
#include "workbench/build/program_step.h"

#include "workbench/build/compiler_library.h"

#include "common/abi_check.h"
#include "common/paths.h"
#include "common/process.h"
#include "common/sha256.h"

#include "toolchains/build_cache.h"
#include "common/file_util.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <system_error>

namespace kb::workbench {

namespace fs = std::filesystem;

bool canCompilePrograms() { return CompilerLibrary::locate().ok(); }

std::string programCompilerUnavailableReason() {
  StatusOr<fs::path> library = CompilerLibrary::locate();
  return library.ok() ? std::string() : library.status().message();
}

namespace {

/// The uniform block of constants of the SPIR-V object at |file|, which the
/// compiler read the same way when it made the object's variant; nullopt
/// for other objects, push constants, and a file that cannot be read
/// (build.json then shows push constants, the export's way).
std::optional<UniformConstants> objectUniformConstants(const fs::path &file) {
  if (file.extension() != ".spv")
    return std::nullopt;
  StatusOr<std::string> bytes = readFile(file);
  if (!bytes.ok())
    return std::nullopt;
  StatusOr<SpirvModule> spirv = readSpirvBytes(*bytes);
  return spirv.ok() ? uniformConstantsOf(*spirv) : std::nullopt;
}

/// The struct bindings of |kernel| as its first SPIR-V object lays them
/// out, which the compiler read the same way (and checked every other
/// object against) when it synthesized the program; empty without any.
std::vector<StructBindingRecord>
structBindingsOf(const driver::StandaloneKernel &kernel) {
  std::vector<StructBindingRecord> records;
  for (const driver::StandaloneObject &object : kernel.objects) {
    if (fs::path(object.file).extension() != ".spv")
      continue;
    StatusOr<std::string> bytes = readFile(object.file);
    StatusOr<SpirvModule> spirv = bytes.ok()
                                      ? readSpirvBytes(*bytes)
                                      : StatusOr<SpirvModule>(bytes.status());
    if (!spirv.ok())
      continue;
    for (size_t i = 0; i < kernel.bindings.size(); ++i)
      for (const SpirvResource &r : spirv->resources)
        if (kernel.bindings[i].isStruct && r.set == 0 && r.binding == i &&
            r.elementStruct) {
          records.push_back({static_cast<uint32_t>(i), kernel.bindings[i].name,
                             *r.elementStruct});
          break;
        }
    return records;
  }
  return records;
}

/// |path| relative to |base| when it lies below it, else as given.
std::string relativeTo(const fs::path &path, const fs::path &base) {
  std::error_code ec;
  fs::path relative = fs::relative(path, base, ec);
  if (ec || relative.empty() || *relative.begin() == "..")
    return path.string();
  return relative.string();
}

/// The object a job contributes for its target family: PTX for cuda, SPIR-V
/// for vulkan.
const toolchains::OutputFile *substitutionObject(const JobRecord &job) {
  const char *kind = job.result.target.isCuda() ? "ptx" : "spv";
  for (const toolchains::OutputFile &output : job.result.outputs)
    if (output.kind == kind)
      return &output;
  return nullptr;
}

/// A program.kbm or benchmark left by an earlier build must not survive a
/// failed one: `kernel-bench run` would run it as if it were current. Only
/// files a build provably wrote go: a user's own bench/*.kbm stays.
void removeStaleModules(const fs::path &outputDir, OutputManifest &outputs) {
  outputs.removeOwned(outputDir / "program.kbm");
  outputs.removeOwnedTree(outputDir / "bench");
}

/// What the compiler wrote becomes the build's to delete later (and the
/// next build's, through the saved manifest), even when the compile failed
/// after writing some of it.
void recordWritten(OutputManifest &outputs,
                   const std::vector<std::string> &files) {
  for (const std::string &file : files)
    outputs.wrote(file);
}

/// The target family a kernel source builds.
std::string familyOf(const toolchains::KernelSpec &spec) {
  return spec.language == toolchains::Language::Cuda ? "cuda" : "vulkan";
}

/// The object substitution of |requested| that |applied| carried out: the
/// same kernel.toml, object file and device (a tuned variant is applied
/// under a name of its own, `<variant>_tuned<N>`, so names cannot match).
const driver::Substitution *
requestOf(const driver::AppliedSubstitution &applied,
          const std::vector<driver::Substitution> &requested) {
  for (const driver::Substitution &r : requested)
    if (r.origin == applied.origin && r.device == applied.device &&
        fs::path(r.file).lexically_normal() ==
            fs::path(applied.file).lexically_normal())
      return &r;
  return nullptr;
}

/// What |result| applied and generated, as the record keeps it. Benchmark
/// files are made relative to OUT_DIR with |prefix| ("" or
/// "standalone/<kernel>/").
void recordResult(const driver::CompileResult &result,
                  const driver::CompileOptions &options,
                  const std::map<std::string, const Kernel *> &kernelByOrigin,
                  const fs::path &outputDir, const std::string &prefix,
                  CompiledModule &compiled) {
  compiled.ok = true;
  compiled.module = prefix + "program.kbm";
  for (const driver::AppliedSubstitution &s : result.substitutions) {
    auto kernel = kernelByOrigin.find(s.origin);
    SubstitutionEntry entry;
    entry.executable = s.executable;
    entry.variant = s.variant;
    entry.kind = s.kind;
    if (kernel != kernelByOrigin.end())
      entry.kernel = kernel->second->name;
    if (!s.origin.empty())
      entry.manifest = s.origin;
    entry.file = relativeTo(s.file, outputDir);
    entry.reference = s.reference;
    if (!s.device.empty())
      entry.device = s.device;
    // The launch the candidate runs, which build.json shows beside the
    // export's (the benchmark's workgroup_count is the generated kernel's).
    if (const driver::Substitution *r =
            requestOf(s, options.objectSubstitutions)) {
      entry.workgroupSize = r->workgroupSize;
      entry.workloadPerWorkgroup = r->workloadPerWorkgroup;
    }
    entry.uniformConstants = objectUniformConstants(s.file);
    compiled.substitutions.push_back(std::move(entry));
  }
  compiled.benchmarks = result.benchmarks;
  for (driver::BenchmarkRecord &b : compiled.benchmarks)
    if (!b.file.empty())
      b.file = prefix + b.file;
  compiled.unbenchmarked = result.unbenchmarked;
  compiled.codegen = result.codegen;
}

/// "the compiler failed:\n<diagnostics>" without trailing newlines.
std::string compilerError(const std::string &what, std::string diagnostics) {
  if (diagnostics.empty())
    diagnostics = "the compiler failed without a diagnostic";
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  return what + " failed:\n" + diagnostics;
}

/// Runs the compiler library; one that cannot be opened is a failed
/// result that says why.
driver::CompileResult runCompiler(const driver::CompileOptions &options) {
  StatusOr<const CompilerLibrary *> library = CompilerLibrary::open();
  if (library.ok())
    return (*library)->compile(options);
  driver::CompileResult failed;
  failed.diagnostics = "error: " + library.status().message() + "\n";
  return failed;
}

/// The succeeded jobs of |kernel|, with the object each contributes: the
/// kernel's own, or (|twin|) those of its handwritten twin reference.
std::vector<std::pair<const JobRecord *, const toolchains::OutputFile *>>
objectsOf(const Kernel &kernel, const std::vector<const JobRecord *> &jobs,
          bool twin = false) {
  std::vector<std::pair<const JobRecord *, const toolchains::OutputFile *>> out;
  for (const JobRecord *job : jobs)
    if (job->kernel == &kernel && job->result.status.ok() &&
        kernel.isReferenceSpec(job->spec) == twin)
      if (const toolchains::OutputFile *object = substitutionObject(*job))
        out.emplace_back(job, object);
  return out;
}

/// |substitution| with what its kernel assumes of the pipeline (kernel.toml
/// `subgroup_size`, `full_subgroups`, [specialization]).
driver::Substitution withPipeline(driver::Substitution substitution,
                                  const Kernel &kernel,
                                  const toolchains::KernelSpec *spec) {
  if (!spec)
    return substitution;
  // A CUDA kernel keeps its own name (`entry`) when the dispatch's export is
  // named otherwise; GLSL's `main` is matched by the compiler.
  if (spec->language == toolchains::Language::Cuda && !kernel.entry.empty())
    substitution.entry = spec->entry;
  // Its parameters in its own order ([abi] `parameters`; CUDA specs only).
  substitution.parameterOrder = spec->abi.parameterOrder;
  // The handwritten kernel is launched with its own dynamic shared memory
  // (kernel.toml), the generated reference with the export's.
  substitution.sharedMemoryBytes = spec->abi.dynamicSharedMemoryBytes;
  // A kernel that declares its workload per workgroup brings its own launch
  // shape: its variants run its workgroup size and their own count.
  if (const auto &per = spec->abi.workloadPerWorkgroup; per[0]) {
    substitution.workgroupSize.assign(spec->abi.workgroupSize.begin(),
                                      spec->abi.workgroupSize.end());
    // As many entries as declared, so the compiler can tell a rule that
    // leaves a dimension of the dispatch's workload out.
    substitution.workloadPerWorkgroup.assign(
        per.begin(), per.begin() + kernel.launch.workloadPerWorkgroup.size());
  }
  substitution.subgroupSize = spec->abi.subgroupSize;
  substitution.fullSubgroups = spec->abi.fullSubgroups;
  substitution.specialization = spec->specialization;
  // Values tuned for one device model: a variant of its own, for it.
  substitution.device = spec->tunedFor;
  return substitution;
}

fs::path absoluteIn(const fs::path &path, const fs::path &outputDir) {
  return path.is_absolute() ? path : outputDir / path;
}

/// The one-dispatch program of a standalone kernel: what it synthesizes
/// and how it is compiled. |skipped| when the kernel was built for no target
/// of this build.
struct StandalonePlan {
  const Kernel *kernel = nullptr;
  bool skipped = false;
  driver::StandaloneKernel standalone;
  driver::CompileOptions options;
  /// The targets built: the variants of the synthesized program, generated
  /// (with a reference) or the objects themselves (without one).
  std::vector<Target> targets;
};

/// The kernel's launch as the standalone program declares it: its [bench]
/// buffers and constants against its ABI, workgroup size and workload.
driver::StandaloneKernel describeStandaloneKernel(const Kernel &kernel) {
  const DeclaredBench &bench = *kernel.bench;
  const KernelAbi &abi = kernel.specs.front().abi;
  driver::StandaloneKernel standalone;
  standalone.name = kernel.name;
  standalone.entry = bench.exportName;
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const BufferInit &init = bench.init[i];
    standalone.bindings.push_back(
        {abi.bindings[i].name, abi.bindings[i].elementType,
         abi.bindings[i].access, bench.elementCounts[i], init.distribution,
         init.low, init.high, init.mean, init.stddev, init.start, init.step,
         abi.bindings[i].structLayout.has_value()});
  }
  for (size_t i = 0; i < abi.constants.size(); ++i)
    standalone.constants.push_back({abi.constants[i].name,
                                    abi.constants[i].type,
                                    bench.constantValues[i]});
  standalone.workgroupSize.assign(abi.workgroupSize.begin(),
                                  abi.workgroupSize.end());
  standalone.workload.assign(bench.workload.begin(), bench.workload.end());
  if (abi.workloadPerWorkgroup[0])
    standalone.workloadPerWorkgroup.assign(abi.workloadPerWorkgroup.begin(),
                                           abi.workloadPerWorkgroup.end());
  standalone.sharedMemoryBytes = abi.dynamicSharedMemoryBytes;
  standalone.referenceExecutable = bench.reference.string();
  return standalone;
}

/// What a prebuilt object's variant needs of its spec to be launched as it
/// was built (subgroup, [specialization], parameter order).
void copyLaunchSettings(const toolchains::KernelSpec &spec,
                        driver::StandaloneObject &object) {
  object.subgroupSize = spec.abi.subgroupSize;
  object.fullSubgroups = spec.abi.fullSubgroups;
  object.specialization = spec.specialization;
  object.parameterOrder = spec.abi.parameterOrder;
}

/// With a reference, each object substitutes the reference's body
/// generated for its target, as in a program, with its own launch settings.
driver::Substitution referenceSubstitution(const Kernel &kernel,
                                           const JobRecord &job,
                                           const std::string &file,
                                           const std::string &origin) {
  driver::Substitution substitution = withPipeline(
      {kernel.name + "/" + job.result.target.variantName(), file, origin},
      kernel, job.spec);
  // A standalone kernel owns its dispatch: without a declared count rule it
  // runs at its own workgroup size, one workgroup per workgroup-size slice
  // of the workload, whatever launch the reference was written for (a
  // naive reference often runs one invocation per workgroup). A tuned
  // workgroup size is its own in the same way.
  if (substitution.workgroupSize.empty() && job.spec) {
    const KernelAbi &own = job.spec->abi;
    substitution.workgroupSize.assign(own.workgroupSize.begin(),
                                      own.workgroupSize.end());
    substitution.workloadPerWorkgroup = substitution.workgroupSize;
  }
  return substitution;
}

/// Adds one built object of the kernel to |plan|: a variant of its own
/// without a reference, a substitution into the reference's with one.
void addStandaloneObject(StandalonePlan &plan, const Kernel &kernel,
                         const JobRecord &job, const std::string &file,
                         const std::string &origin) {
  const DeclaredBench &bench = *kernel.bench;
  bool tuned = job.spec && !job.spec->tunedFor.empty();
  if (tuned && bench.reference.empty())
    return; // Device variants sit beside a reference's (below) only.
  if (!tuned)
    plan.targets.push_back(job.result.target);
  if (bench.reference.empty()) {
    // No reference: the objects are the executable's only variants.
    driver::StandaloneObject object{job.result.target, file,
                                    job.spec ? job.spec->entry : ""};
    if (job.spec)
      copyLaunchSettings(*job.spec, object);
    plan.standalone.objects.push_back(std::move(object));
    return;
  }
  if (!tuned)
    plan.options.targets.push_back(job.result.target);
  plan.options.objectSubstitutions.push_back(
      referenceSubstitution(kernel, job, file, origin));
}

StandalonePlan planStandalone(const Kernel &kernel,
                              const std::vector<const JobRecord *> &succeeded,
                              const fs::path &outputDir,
                              const ProgramStepOptions &step) {
  StandalonePlan plan;
  plan.kernel = &kernel;
  const fs::path dir = outputDir / "standalone" / kernel.name;
  const std::string origin = displayPath(kernel.manifest);

  auto objects = objectsOf(kernel, succeeded);
  if (objects.empty()) {
    plan.skipped = true;
    return plan;
  }
  plan.standalone = describeStandaloneKernel(kernel);

  driver::CompileOptions &options = plan.options;
  options.outputDir = dir.string();
  options.programPath = (dir / "program.mlir").string();
  if (step.ptxas)
    options.ptxasPath = step.ptxas->path.string();
  for (const auto &[job, object] : objects)
    addStandaloneObject(plan, kernel, *job,
                        absoluteIn(object->path, outputDir).string(), origin);
  // A handwritten twin: its objects are the reference variants beside the
  // kernel's, one per target.
  for (const auto &[job, object] : objectsOf(kernel, succeeded, true)) {
    driver::StandaloneObject twin{job->result.target,
                                  absoluteIn(object->path, outputDir).string(),
                                  job->spec->entry};
    copyLaunchSettings(*job->spec, twin);
    twin.reference = true;
    plan.standalone.objects.push_back(std::move(twin));
  }
  return plan;
}

/// The kernel's .npy files (fixed inputs, expected outputs) copied to where
/// build.json records them (bench::FixedArray::stored, under the standalone
/// program's directory), so that `run`, `bench` and a bundle find them
/// without the project; each must still have the sha256 it was read with.
Status copyFixedData(const Kernel &kernel, const fs::path &outputDir,
                     OutputManifest &outputs,
                     std::vector<std::string> &written) {
  for (const auto *arrays :
       {&kernel.declared.fixedInputs, &kernel.declared.expectedOutputs})
    for (const bench::FixedArray &a : *arrays) {
      KB_ASSIGN_OR_RETURN(std::string bytes, kb::readFile(a.file));
      if (sha256Hex(bytes) != a.sha256)
        return failedPrecondition(displayPath(a.file) + " (binding `" + a.name +
                                  "` of " + displayPath(kernel.manifest) +
                                  ") changed while the build ran; build again");
      fs::path to = outputDir / a.stored;
      KB_RETURN_IF_ERROR(writeFileAtomic(to, bytes));
      outputs.wrote(to, a.sha256);
      written.push_back(to.string());
    }
  return okStatus();
}

/// Synthesizes and compiles the one-dispatch program of a standalone
/// kernel into OUT_DIR/standalone/<kernel>/; |written| receives the files
/// it wrote.
Status compileStandalone(const StandalonePlan &plan, const fs::path &outputDir,
                         OutputManifest &outputs, StandaloneRecord &record,
                         std::vector<std::string> &written) {
  const Kernel &kernel = *plan.kernel;
  const std::string prefix = "standalone/" + kernel.name + "/";
  const fs::path dir = outputDir / "standalone" / kernel.name;
  const std::string origin = displayPath(kernel.manifest);
  record.kernel = kernel.name;
  record.manifest = origin;
  record.status = StepStatus::Failed;

  std::error_code ec;
  if (plan.skipped) {
    // Built for none of this build's targets (--target): nothing to compare.
    outputs.removeOwnedTree(dir);
    record.status = StepStatus::Skipped;
    record.reason = "the kernel was built for no target in this build";
    return okStatus();
  }

  const driver::CompileOptions &options = plan.options;
  fs::create_directories(dir, ec);
  if (ec)
    return invalidArgument("cannot create " + displayPath(dir) + ": " +
                           ec.message());
  StatusOr<const CompilerLibrary *> library = CompilerLibrary::open();
  Status synthesized = library.ok() ? (*library)->writeStandaloneProgram(
                                          plan.standalone, options.programPath)
                                    : library.status();
  if (!synthesized.ok()) {
    outputs.removeOwnedTree(dir);
    record.error = synthesized.message();
    return invalidArgument(origin + ": [bench]: " + synthesized.message());
  }
  outputs.wrote(options.programPath);
  record.program = prefix + "program.mlir";
  record.structBindings = structBindingsOf(plan.standalone);

  driver::CompileResult result = runCompiler(options);
  recordWritten(outputs, result.writtenFiles);
  CompiledModule &compiled = record.compiled.emplace();
  compiled.targets = plan.targets;
  compiled.diagnostics = result.diagnostics;
  if (!result.ok) {
    outputs.removeOwnedTree(dir);
    return invalidArgument(
        compilerError("compiling the benchmark program of standalone kernel " +
                          kernel.name + " (" + origin + ")",
                      result.diagnostics));
  }
  written.push_back(options.programPath);
  written.insert(written.end(), result.writtenFiles.begin(),
                 result.writtenFiles.end());
  recordResult(result, options, {{origin, &kernel}}, outputDir, prefix,
               compiled);
  if (Status copied = copyFixedData(kernel, outputDir, outputs, written);
      !copied.ok()) {
    outputs.removeOwnedTree(dir);
    record.error = copied.message();
    return copied;
  }
  record.status = StepStatus::Ok;
  return okStatus();
}

/// Every compile is tried; their failures are reported together, one a line.
void addFailure(Status &status, const Status &one) {
  if (!one.ok())
    status = status.ok()
                 ? one
                 : invalidArgument(status.message() + "\n" + one.message());
}

/// What the host compiler gets of |kernel|: its C/C++ reference, the
/// function, the defines and include directories of its sources, and the
/// ABI of its CUDA source when it has one (the parameter order a C
/// function follows), else of its first.
toolchains::HostReferenceSpec hostReferenceSpec(const Kernel &kernel) {
  const toolchains::KernelSpec *own = &kernel.specs.front();
  for (const toolchains::KernelSpec &spec : kernel.specs)
    if (spec.language == toolchains::Language::Cuda)
      own = &spec;
  toolchains::HostReferenceSpec spec;
  spec.kernel = kernel.name;
  spec.source = kernel.bench->hostReference;
  spec.function = kernel.declared.hostReference->function;
  spec.defines = own->defines;
  spec.includeDirs = own->includeDirs;
  spec.abi = own->abi;
  spec.manifest = kernel.manifest;
  return spec;
}

/// The record of a host reference the build compiled into |outputDir|.
HostReferenceRecord
hostReferenceRecord(const bench::HostReferenceDecl &decl,
                    const toolchains::HostReferenceResult &r,
                    bool cacheEnabled) {
  HostReferenceRecord record{decl.source, decl.function, decl.stored,
                             r.output.sha256, r.output.bytes};
  record.cache = !cacheEnabled ? "disabled" : r.cacheHit ? "hit" : "miss";
  for (const toolchains::ToolInvocation &c : r.commands) {
    record.seconds += c.seconds;
    record.command = formatCommandLine(c.argv);
  }
  return record;
}

using HostReferences = std::map<std::string, HostReferenceRecord>;

/// Builds the host reference of each planned standalone kernel that has one
/// (every time: a cache hit only hashes; the shared object's sha256 is part
/// of the step's key). A kernel whose reference fails is dropped from
/// |plans| with a failed record and its earlier outputs removed.
Status buildHostReferences(std::vector<StandalonePlan> &plans,
                           const fs::path &outputDir,
                           const ProgramStepOptions &step,
                           ProgramRecord &record, HostReferences &built) {
  Status status;
  for (auto it = plans.begin(); it != plans.end();) {
    const Kernel &kernel = *it->kernel;
    if (it->skipped || !kernel.declared.hostReference) {
      ++it;
      continue;
    }
    const bench::HostReferenceDecl &decl = *kernel.declared.hostReference;
    const fs::path so = outputDir / decl.stored;
    toolchains::HostReferenceResult r;
    r.status = failedPrecondition("no host compiler was set up");
    if (step.buildHostReference)
      r = step.buildHostReference(hostReferenceSpec(kernel), so);
    if (r.status.ok()) {
      step.outputs->wrote(so, r.output.sha256);
      built[kernel.name] = hostReferenceRecord(decl, r, step.reuse);
      ++it;
      continue;
    }
    step.outputs->removeOwnedTree(outputDir / "standalone" / kernel.name);
    StandaloneRecord &failed = record.standalone.emplace_back();
    failed.kernel = kernel.name;
    failed.manifest = displayPath(kernel.manifest);
    failed.error = r.status.message();
    addFailure(status,
               invalidArgument(r.status.message() +
                               (r.failureLog.empty() ? std::string()
                                                     : "\n" + r.failureLog)));
    it = plans.erase(it);
  }
  return status;
}

/// Each standalone record of a kernel with a host reference gets what the
/// build did with it (also when the step reused the last records).
void attachHostReferences(const HostReferences &built, ProgramRecord &record) {
  for (StandaloneRecord &s : record.standalone)
    if (auto it = built.find(s.kernel); it != built.end())
      s.hostReference = it->second;
}

/// The project's program compile: its options, and the kernel behind each
/// origin (its kernel.toml), to report substitutions by kernel.
struct MainPlan {
  driver::CompileOptions options;
  std::map<std::string, const Kernel *> kernelByOrigin;
};

/// Plans the project's program with the substituting kernels' objects.
Status planMainProgram(const Project &project,
                       const std::vector<const JobRecord *> &succeeded,
                       const fs::path &outputDir,
                       const ProgramStepOptions &step, MainPlan &plan,
                       ProgramRecord &record) {
  driver::CompileOptions &options = plan.options;
  options.programPath = project.program->string();
  options.targets = step.targets;
  options.outputDir = outputDir.string();
  if (step.ptxas)
    options.ptxasPath = step.ptxas->path.string();
  // A `substitutes` that names no executable of the program is a mistake in
  // a kernel.toml, not an option to ignore (IREE's flags only warn).
  options.strict = true;

  for (const JobRecord *job : succeeded) {
    if (!job->result.status.ok() || !job->kernel ||
        job->kernel->substitutes.empty())
      continue;
    const toolchains::OutputFile *object = substitutionObject(*job);
    if (!object)
      return internalError(
          "the " + job->result.target.toString() + " build of kernel " +
          job->kernel->name + " published no " +
          (job->result.target.isCuda() ? "PTX" : "SPIR-V") + " to substitute");
    std::string variant = job->result.target.variantName();
    std::string origin = displayPath(job->kernel->manifest);
    plan.kernelByOrigin[origin] = job->kernel;
    fs::path file = absoluteIn(object->path, outputDir);
    options.objectSubstitutions.push_back(withPipeline(
        {job->kernel->substitutes + "/" + variant, file.string(), origin},
        *job->kernel, job->spec));
  }

  // Two kernels that substitute the same variant: the compiler names both
  // kernel.toml files too, but only for the variants they both built; this
  // names them whatever the targets.
  std::map<std::string, const Kernel *> bySubstituted;
  for (const Kernel &kernel : project.kernels) {
    if (kernel.substitutes.empty())
      continue;
    auto [it, inserted] = bySubstituted.emplace(kernel.substitutes, &kernel);
    if (inserted)
      continue;
    // Distinct source families (one CUDA, one GLSL kernel) do not clash.
    std::set<std::string> first, second;
    for (const toolchains::KernelSpec &spec : it->second->specs)
      first.insert(familyOf(spec));
    for (const toolchains::KernelSpec &spec : kernel.specs)
      second.insert(familyOf(spec));
    for (const std::string &family : first)
      if (second.count(family)) {
        std::string message =
            "executable '" + kernel.substitutes + "' of " +
            displayPath(*project.program) + " is substituted (" + family +
            ") by two kernels: " + displayPath(it->second->manifest) + " and " +
            displayPath(kernel.manifest) +
            "; keep `substitutes` in only one of them";
        record.error = message;
        removeStaleModules(outputDir, *step.outputs);
        return invalidArgument(message);
      }
  }
  return okStatus();
}

/// When the compiler refused a substituted object's workgroup size and a
/// substituting kernel computes its workgroup size (from tuned names or
/// defines) without a workgroup-count rule, what to do about it: without
/// `workload_per_workgroup` the dispatch keeps its count, so such a
/// workgroup size applies to standalone kernels only.
std::string launchShapeNote(const Project &project,
                            const std::string &diagnostics) {
  if (diagnostics.find(kWorkgroupSizeMismatch) == std::string::npos)
    return "";
  std::string note;
  for (const Kernel &kernel : project.kernels) {
    const DeclaredLaunch &launch = kernel.launch;
    bool computed =
        std::any_of(launch.workgroupSize.begin(), launch.workgroupSize.end(),
                    [](const LaunchValue &v) { return !v.expression.empty(); });
    if (kernel.substitutes.empty() || !computed ||
        !launch.workloadPerWorkgroup.empty())
      continue;
    note += "\nnote: " + launch.workgroupSize[0].where +
            ": `workgroup_size` is computed, but the kernel declares no "
            "`[abi] workload_per_workgroup`: a kernel that substitutes `" +
            kernel.substitutes +
            "` without one keeps the dispatch's workgroup count and must "
            "keep the export's workgroup size, so a tuned workgroup size "
            "applies to standalone kernels only; declare "
            "workload_per_workgroup (the workload one workgroup covers) to "
            "bring its own launch shape to the dispatch";
  }
  return note;
}

/// Compiles the planned program; |written| receives the files it wrote.
Status compileMainProgram(const Project &project, const MainPlan &plan,
                          const fs::path &outputDir, OutputManifest &outputs,
                          ProgramRecord &record,
                          std::vector<std::string> &written) {
  driver::CompileResult result = runCompiler(plan.options);
  recordWritten(outputs, result.writtenFiles);

  const std::string &diagnostics = result.diagnostics;
  CompiledModule &compiled = record.compiled.emplace();
  compiled.targets = plan.options.targets;
  compiled.diagnostics = diagnostics;
  if (!result.ok) {
    removeStaleModules(outputDir, outputs);
    return invalidArgument(
        compilerError("compiling " + displayPath(*project.program),
                      diagnostics) +
        launchShapeNote(project, diagnostics));
  }
  written.insert(written.end(), result.writtenFiles.begin(),
                 result.writtenFiles.end());
  recordResult(result, plan.options, plan.kernelByOrigin, outputDir, "",
               compiled);
  return okStatus();
}

/// Adds |path| and the sha256 of its contents ("missing" when unreadable:
/// the compile then fails, and failures leave no stamp).
void addFile(toolchains::CacheKeyBuilder &key, const ProgramStepOptions &step,
             const std::string &path) {
  std::optional<std::string> hash = step.hashFile(path);
  key.add("file", path).add(hash ? *hash : std::string("missing"));
}

/// What an object assumes of its pipeline: subgroup size, full subgroups
/// and [specialization] (a changed value must recompile the program).
void addPipeline(toolchains::CacheKeyBuilder &key, unsigned subgroupSize,
                 bool fullSubgroups,
                 const std::vector<SpecializationSetting> &specialization) {
  key.add("subgroup", std::to_string(subgroupSize))
      .add(fullSubgroups ? "full" : "partial");
  key.add("specialization", std::to_string(specialization.size()));
  for (const SpecializationSetting &setting : specialization)
    key.add(setting.key, setting.value);
}

void addCompileOptions(toolchains::CacheKeyBuilder &key,
                       const ProgramStepOptions &step,
                       const driver::CompileOptions &options) {
  key.add("targets", std::to_string(options.targets.size()));
  for (const Target &target : options.targets)
    key.add(target.toString());
  key.add("substitutions", std::to_string(options.objectSubstitutions.size()));
  for (const driver::Substitution &s : options.objectSubstitutions) {
    key.add(s.executable)
        .add(s.origin)
        .add(s.device)
        .add(std::to_string(s.sharedMemoryBytes));
    for (const std::vector<long long> *dims :
         {&s.workgroupSize, &s.workloadPerWorkgroup}) {
      key.add(std::to_string(dims->size()));
      for (long long d : *dims)
        key.add(std::to_string(d));
    }
    addPipeline(key, s.subgroupSize, s.fullSubgroups, s.specialization);
    addFile(key, step, s.file);
  }
  // The step passes no source substitutions, object directories or search
  // paths; the program's objects are inline (#kb.object), so these files
  // and ptxas are all the compiler reads.
  key.add("strict", options.strict ? "1" : "0");
  key.add("codegen", options.codegen ? "1" : "0");
  key.add("emit-cubin", options.emitCubin ? "1" : "0");
  key.add("output", options.outputDir);
}

/// A standalone kernel's .npy files: their contents and where they go.
void addFixedData(toolchains::CacheKeyBuilder &key,
                  const ProgramStepOptions &step, const Kernel &kernel) {
  for (const auto *arrays :
       {&kernel.declared.fixedInputs, &kernel.declared.expectedOutputs})
    for (const bench::FixedArray &a : *arrays) {
      key.add("fixed", a.stored);
      addFile(key, step, a.file.string());
    }
}

/// The key of everything the step reads: see the file comment.
std::string programStepKey(const MainPlan *main,
                           const std::vector<StandalonePlan> &standalone,
                           const HostReferences &hostReferences,
                           const fs::path &outputDir,
                           const ProgramStepOptions &step) {
  toolchains::CacheKeyBuilder key;
  key.add("kernel-bench " KB_VERSION_STRING);
  // The bytes of kernel-bench and of the compiler library it would open
  // (a rebuild with the same version string changes them): through the
  // stat-keyed memo, so a no-op build only stats them and never loads the
  // library.
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  addFile(key, step, ec ? std::string("unknown") : self.string());
  StatusOr<fs::path> library = CompilerLibrary::locate();
  addFile(key, step,
          library.ok() ? library->string() : std::string("no compiler"));
  key.add("ptxas", step.ptxas
                       ? step.ptxas->path.string() + "\n" + step.ptxas->version
                       : std::string("none"));
  key.add("output-dir", outputDir.string());
  if (main) {
    key.add("program");
    addFile(key, step, main->options.programPath);
    addCompileOptions(key, step, main->options);
    for (const auto &[origin, kernel] : main->kernelByOrigin)
      key.add(origin, kernel->name);
  } else {
    key.add("no-program");
  }
  for (const StandalonePlan &plan : standalone) {
    const driver::StandaloneKernel &k = plan.standalone;
    key.add("standalone", plan.kernel->name)
        .add(displayPath(plan.kernel->manifest));
    if (plan.skipped) {
      key.add("skipped");
      continue;
    }
    key.add(k.name).add(k.entry);
    key.add("bindings", std::to_string(k.bindings.size()));
    for (const driver::StandaloneBinding &b : k.bindings) {
      key.add(b.name)
          .add(b.isStruct ? "struct" : toString(b.elementType))
          .add(toString(b.access))
          .add(std::to_string(b.elementCount))
          .add(b.initDistribution);
      for (double v : {b.initLow, b.initHigh, b.initMean, b.initStddev,
                       b.initStart, b.initStep}) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", v);
        key.add(text);
      }
    }
    key.add("constants", std::to_string(k.constants.size()));
    for (const driver::StandaloneConstant &c : k.constants)
      key.add(c.name).add(toString(c.type)).add(c.value);
    for (const auto *dims :
         {&k.workgroupSize, &k.workload, &k.workloadPerWorkgroup}) {
      key.add("dims", std::to_string(dims->size()));
      for (long long d : *dims)
        key.add(std::to_string(d));
    }
    key.add("shared", std::to_string(k.sharedMemoryBytes));
    if (k.referenceExecutable.empty())
      key.add("no-reference");
    else
      addFile(key, step, k.referenceExecutable);
    key.add("objects", std::to_string(k.objects.size()));
    for (const driver::StandaloneObject &o : k.objects) {
      key.add(o.target.toString()).add(o.entry);
      addPipeline(key, o.subgroupSize, o.fullSubgroups, o.specialization);
      addFile(key, step, o.file);
    }
    addCompileOptions(key, step, plan.options);
    addFixedData(key, step, *plan.kernel);
  }
  for (const auto &[kernel, built] : hostReferences)
    key.add("host-reference", kernel).add(built.file).add(built.sha256);
  return key.finish();
}

fs::path stampPath(const fs::path &outputDir) {
  return outputDir / kProgramStampName;
}

void removeStamp(const fs::path &outputDir) {
  std::error_code ec;
  fs::remove(stampPath(outputDir), ec);
}

/// The record of the previous build when its stamp has |key| and every file
/// it lists still hashes the same; nullopt otherwise (no stamp, a corrupted
/// one, a changed input or output).
std::optional<ProgramRecord> upToDateRecord(const fs::path &outputDir,
                                            const std::string &key,
                                            const ProgramStepOptions &step) {
  StatusOr<std::string> text = kb::readFile(stampPath(outputDir));
  if (!text.ok())
    return std::nullopt;
  std::optional<ProgramStamp> stamp = parseProgramStamp(*text);
  if (!stamp || stamp->key != key)
    return std::nullopt;
  for (const auto &[file, hash] : stamp->outputs) {
    std::optional<std::string> now = step.hashFile((outputDir / file).string());
    if (!now || *now != hash)
      return std::nullopt;
  }
  // Reused, so still this build's outputs (also for an output directory
  // whose manifest predates the program step's entries in it).
  for (const auto &[file, hash] : stamp->outputs)
    step.outputs->wrote(outputDir / file, hash);
  return std::move(stamp->record);
}

/// Written after every compile succeeded: the key, the sha256 of every file
/// written, the record. A failure to write costs the next build a compile.
void writeStamp(const fs::path &outputDir, const std::string &key,
                const std::vector<std::string> &written,
                const ProgramStepOptions &step, const ProgramRecord &record) {
  ProgramStamp stamp{key, {}, record};
  for (const std::string &file : written) {
    std::optional<std::string> hash = step.hashFile(file);
    if (!hash)
      return; // Gone already: nothing to vouch for.
    stamp.outputs[relativeTo(file, outputDir)] = *hash;
  }
  kb::writeFileAtomic(stampPath(outputDir), renderProgramStamp(stamp))
      .ignoreError();
}

/// The kernels with a failed job (|jobs| holds every job of the build).
std::set<const Kernel *>
failedKernels(const std::vector<const JobRecord *> &jobs) {
  std::set<const Kernel *> failed;
  for (const JobRecord *job : jobs)
    if (job->kernel && !job->result.status.ok())
      failed.insert(job->kernel);
  return failed;
}

/// "a, b" of the kernels in |failed| that |pick| selects, in project order.
std::string failedNames(const Project &project,
                        const std::set<const Kernel *> &failed,
                        const std::function<bool(const Kernel &)> &pick) {
  std::string names;
  for (const Kernel &kernel : project.kernels)
    if (failed.count(&kernel) && pick(kernel))
      names += (names.empty() ? "" : ", ") + kernel.name;
  return names;
}

/// The program itself: compiled when planned, skipped (its stale modules
/// removed) when a kernel substituting one of its executables failed.
Status compileOrSkipMain(const Project &project, const MainPlan *main,
                         const std::string &skippedBecause,
                         const fs::path &outputDir,
                         const ProgramStepOptions &step, ProgramRecord &record,
                         std::vector<std::string> &written) {
  if (main) {
    Status status = compileMainProgram(project, *main, outputDir, *step.outputs,
                                       record, written);
    if (status.ok())
      record.status = StepStatus::Ok;
    return status;
  }
  if (project.program) {
    removeStaleModules(outputDir, *step.outputs);
    record.status = StepStatus::Skipped;
    record.reason = skippedBecause;
  }
  return okStatus();
}

/// Why the program is not compiled this time, or "": a kernel that
/// substitutes one of its executables failed, or a kernel.toml did not load
/// (what it substitutes is unknown; measuring the generated kernel in its
/// place would be wrong).
std::string whyMainIsSkipped(const Project &project,
                             const std::set<const Kernel *> &failed) {
  std::string failedSubstituting = failedNames(
      project, failed, [](const Kernel &k) { return !k.substitutes.empty(); });
  if (!failedSubstituting.empty())
    return "kernel jobs failed: " + failedSubstituting +
           " (substituting the program's executables)";
  if (!project.brokenKernels.empty())
    return displayPath(project.brokenKernels.front().manifest) +
           " did not load, so what it substitutes is unknown (the program "
           "with the generated kernel in its place would be measured as if "
           "it were the handwritten one)";
  return "";
}

/// The standalone outputs of kernels that are no longer the project's (a
/// kernel.toml that did not load, a kernel removed): `bench` reads every
/// directory under standalone/, so none may outlive its kernel.
void removeUnownedStandalones(const Project &project, const fs::path &outputDir,
                              OutputManifest &outputs) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto &entry :
       fs::directory_iterator(outputDir / "standalone", ec)) {
    const std::string name = entry.path().filename().string();
    if (std::none_of(project.kernels.begin(), project.kernels.end(),
                     [&](const Kernel &k) { return k.name == name; }))
      stale.push_back(entry.path());
  }
  for (const fs::path &dir : stale)
    outputs.removeOwnedTree(dir);
}

/// A standalone kernel whose jobs failed is not compiled: its earlier
/// outputs are removed (they would be stale) and the record says why.
void recordSkippedStandalones(const Project &project,
                              const std::set<const Kernel *> &failed,
                              const fs::path &outputDir,
                              OutputManifest &outputs, ProgramRecord &record) {
  for (const Kernel &kernel : project.kernels) {
    if (!kernel.bench || !failed.count(&kernel))
      continue;
    outputs.removeOwnedTree(outputDir / "standalone" / kernel.name);
    StandaloneRecord &skipped = record.standalone.emplace_back();
    skipped.kernel = kernel.name;
    skipped.manifest = displayPath(kernel.manifest);
    skipped.status = StepStatus::Skipped;
    skipped.reason = "its kernel jobs failed";
  }
}

} // namespace

Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &succeeded,
                      const fs::path &outputDir, const ProgramStepOptions &step,
                      ProgramRecord &record) {
  record = ProgramRecord();
  if (project.program)
    record.path = project.program->string();
  record.status = project.program ? StepStatus::Failed : StepStatus::Ok;

  // Standalone kernels are independent of the program and of each other: a
  // failed one is skipped and the rest still build. A failed kernel that
  // substitutes a program executable stops the program (measuring the
  // generated kernel in its place would be wrong).
  const std::set<const Kernel *> failed = failedKernels(succeeded);
  const std::string skipMain = whyMainIsSkipped(project, failed);
  std::optional<MainPlan> main;
  if (project.program && skipMain.empty()) {
    main.emplace();
    Status planned =
        planMainProgram(project, succeeded, outputDir, step, *main, record);
    if (!planned.ok()) {
      removeStamp(outputDir);
      return planned;
    }
  }
  std::vector<StandalonePlan> standalonePlans;
  for (const Kernel &kernel : project.kernels)
    if (kernel.bench && !failed.count(&kernel))
      standalonePlans.push_back(
          planStandalone(kernel, succeeded, outputDir, step));

  HostReferences hostReferences;
  Status status = buildHostReferences(standalonePlans, outputDir, step, record,
                                      hostReferences);
  const std::string key =
      programStepKey(main ? &*main : nullptr, standalonePlans, hostReferences,
                     outputDir, step);
  if (step.reuse && failed.empty() && project.brokenKernels.empty() &&
      status.ok())
    if (std::optional<ProgramRecord> previous =
            upToDateRecord(outputDir, key, step)) {
      record = std::move(*previous);
      record.cached = true;
      attachHostReferences(hostReferences, record);
      return okStatus();
    }
  // From here until every compile succeeded there is no stamp: an
  // interrupted or failed step cannot be mistaken for a finished one.
  removeStamp(outputDir);

  std::vector<std::string> written;
  for (const auto &[kernel, built] : hostReferences)
    written.push_back((outputDir / built.file).string());
  addFailure(status,
             compileOrSkipMain(project, main ? &*main : nullptr, skipMain,
                               outputDir, step, record, written));
  removeUnownedStandalones(project, outputDir, *step.outputs);
  recordSkippedStandalones(project, failed, outputDir, *step.outputs, record);
  for (const StandalonePlan &plan : standalonePlans)
    addFailure(status,
               compileStandalone(plan, outputDir, *step.outputs,
                                 record.standalone.emplace_back(), written));
  attachHostReferences(hostReferences, record);
  if (!status.ok()) {
    record.status = StepStatus::Failed;
    return status;
  }
  record.cached = false;
  if (failed.empty() && project.brokenKernels.empty())
    writeStamp(outputDir, key, written, step, record);
  return okStatus();
}

void discardProgramOutputs(const Project &project, const fs::path &outputDir,
                           OutputManifest &outputs) {
  removeStamp(outputDir);
  if (project.program)
    removeStaleModules(outputDir, outputs);
  for (const Kernel &kernel : project.kernels)
    if (kernel.bench)
      outputs.removeOwnedTree(outputDir / "standalone" / kernel.name);
}

void discardAnyProgramOutputs(const fs::path &outputDir,
                              OutputManifest &outputs) {
  removeStamp(outputDir);
  removeStaleModules(outputDir, outputs);
  outputs.removeOwnedTree(outputDir / "standalone");
}

} // namespace kb::workbench

//===- workbench/program_step_compiler.cpp - Compile the project's program ===//
//
// compileProgram() for a kernel-bench with the compiler linked in
// (KB_ENABLE_COMPILER=ON): every successfully built kernel that `substitutes`
// an executable hands its PTX (cuda targets) and SPIR-V (vulkan targets) to
// the compiler as an object substitution of that target's variant, and the
// compiler (KBDriver, in-process) writes OUT_DIR/program.kbm and one
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
#include "workbench/program_step.h"

#include "kb/Driver/Driver.h"

#include "common/paths.h"

#include "toolchains/build_cache.h"
#include "toolchains/file_util.h"

#include <link.h>

#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <system_error>

namespace kb::workbench {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

bool canCompilePrograms() { return true; }

std::string programCompilerUnavailableReason() { return std::string(); }

namespace {

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
/// failed one: `kernel-bench run` would run it as if it were current.
void removeStaleModules(const fs::path &outputDir) {
  std::error_code ec;
  fs::remove(outputDir / "program.kbm", ec);
  for (auto it = fs::directory_iterator(outputDir / "bench", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".kbm")
      fs::remove(it->path(), ec);
  fs::remove(outputDir / "bench", ec); // only when empty
}

/// The target family a kernel source builds.
std::string familyOf(const toolchains::KernelSpec &spec) {
  return spec.language == toolchains::Language::Cuda ? "cuda" : "vulkan";
}

ordered_json toJsonArray(const std::vector<long long> &values) {
  ordered_json array = ordered_json::array();
  for (long long v : values)
    array.push_back(v);
  return array;
}

ordered_json toJsonArray(const std::vector<std::string> &values) {
  ordered_json array = ordered_json::array();
  for (const std::string &v : values)
    array.push_back(v);
  return array;
}

/// Records what |result| applied and generated. Benchmark files are made
/// relative to OUT_DIR with |prefix| ("" or "standalone/<kernel>/").
void recordResult(const driver::CompileResult &result,
                  const std::map<std::string, const Kernel *> &kernelByOrigin,
                  const fs::path &outputDir, const std::string &prefix,
                  ordered_json &record) {
  record["status"] = "ok";
  record["module"] = prefix + "program.kbm";

  ordered_json substitutions = ordered_json::array();
  for (const driver::AppliedSubstitution &s : result.substitutions) {
    auto kernel = kernelByOrigin.find(s.origin);
    ordered_json entry;
    entry["executable"] = s.executable;
    entry["variant"] = s.variant;
    entry["kind"] = s.kind;
    entry["kernel"] = kernel == kernelByOrigin.end()
                          ? ordered_json(nullptr)
                          : ordered_json(kernel->second->name);
    entry["manifest"] =
        s.origin.empty() ? ordered_json(nullptr) : ordered_json(s.origin);
    entry["file"] = relativeTo(s.file, outputDir);
    entry["reference"] = s.reference;
    substitutions.push_back(std::move(entry));
  }
  record["substitutions"] = std::move(substitutions);

  ordered_json benchmarks = ordered_json::array();
  for (const driver::BenchmarkRecord &b : result.benchmarks) {
    ordered_json entry;
    entry["name"] = b.name;
    entry["executable"] = b.executable;
    entry["export"] = b.exportName;
    entry["workload"] = toJsonArray(b.workload);
    entry["workgroup_count"] = toJsonArray(b.workgroupCount);
    entry["candidates"] = toJsonArray(b.candidates);
    entry["references"] = toJsonArray(b.references);
    entry["sites"] = toJsonArray(b.sites);
    entry["file"] = b.file.empty() ? b.file : prefix + b.file;
    benchmarks.push_back(std::move(entry));
  }
  record["benchmarks"] = std::move(benchmarks);

  ordered_json unbenchmarked = ordered_json::array();
  for (const driver::UnbenchmarkedDispatch &d : result.unbenchmarked)
    unbenchmarked.push_back({{"executable", d.executable},
                             {"export", d.exportName},
                             {"site", d.site},
                             {"reason", d.reason}});
  record["unbenchmarked"] = std::move(unbenchmarked);

  ordered_json codegen = ordered_json::array();
  for (const driver::CodegenRecord &c : result.codegen)
    codegen.push_back({{"executable", c.executable},
                       {"variant", c.variant},
                       {"target", c.target},
                       {"milliseconds", c.milliseconds}});
  record["codegen"] = std::move(codegen);
}

/// "the compiler failed:\n<diagnostics>" without trailing newlines.
std::string compilerError(const std::string &what, std::string diagnostics) {
  if (diagnostics.empty())
    diagnostics = "the compiler failed without a diagnostic";
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  return what + " failed:\n" + diagnostics;
}

/// The succeeded jobs of |kernel|, with the object each contributes.
std::vector<std::pair<const JobRecord *, const toolchains::OutputFile *>>
objectsOf(const Kernel &kernel, const std::vector<const JobRecord *> &jobs) {
  std::vector<std::pair<const JobRecord *, const toolchains::OutputFile *>> out;
  for (const JobRecord *job : jobs)
    if (job->kernel == &kernel && job->result.status.ok())
      if (const toolchains::OutputFile *object = substitutionObject(*job))
        out.emplace_back(job, object);
  return out;
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
  std::vector<std::string> targets;
};

StandalonePlan planStandalone(const Kernel &kernel,
                              const std::vector<const JobRecord *> &succeeded,
                              const fs::path &outputDir,
                              const ProgramStepOptions &step) {
  StandalonePlan plan;
  plan.kernel = &kernel;
  const BenchSettings &bench = *kernel.bench;
  const fs::path dir = outputDir / "standalone" / kernel.name;
  const std::string origin = displayPath(kernel.manifest);

  auto objects = objectsOf(kernel, succeeded);
  if (objects.empty()) {
    plan.skipped = true;
    return plan;
  }

  const KernelAbi &abi = kernel.specs.front().abi;
  driver::StandaloneKernel &standalone = plan.standalone;
  standalone.name = kernel.name;
  standalone.entry = bench.exportName;
  for (size_t i = 0; i < abi.bindings.size(); ++i)
    standalone.bindings.push_back(
        {abi.bindings[i].name, toString(abi.bindings[i].elementType),
         toString(abi.bindings[i].access), bench.elementCounts[i]});
  for (size_t i = 0; i < abi.constants.size(); ++i)
    standalone.constants.push_back({abi.constants[i].name,
                                    toString(abi.constants[i].type),
                                    bench.constantValues[i]});
  standalone.workgroupSize.assign(abi.workgroupSize.begin(),
                                  abi.workgroupSize.end());
  standalone.workload.assign(bench.workload.begin(), bench.workload.end());
  standalone.workloadPerWorkgroup.assign(bench.workloadPerWorkgroup.begin(),
                                         bench.workloadPerWorkgroup.end());
  standalone.sharedMemoryBytes = abi.dynamicSharedMemoryBytes;
  standalone.referenceExecutable = bench.reference.string();

  driver::CompileOptions &options = plan.options;
  options.outputDir = dir.string();
  options.programPath = (dir / "program.mlir").string();
  if (step.ptxas)
    options.ptxasPath = step.ptxas->path.string();
  for (const auto &[job, object] : objects) {
    std::string file = absoluteIn(object->path, outputDir).string();
    plan.targets.push_back(job->result.target.toString());
    if (bench.reference.empty()) {
      // No reference: the objects are the executable's only variants.
      standalone.objects.push_back({job->result.target.toString(), file,
                                    job->spec ? job->spec->entry : ""});
    } else {
      // A reference: its body is generated for each target and the
      // kernel substitutes that variant, as in a program.
      options.targets.push_back(job->result.target.toString());
      options.objectSubstitutions.push_back(
          {kernel.name + "/" +
               driver::variantNameForTarget(job->result.target.toString()),
           file, origin});
    }
  }
  return plan;
}

/// Synthesizes and compiles the one-dispatch program of a standalone
/// kernel into OUT_DIR/standalone/<kernel>/; |written| receives the files
/// it wrote.
Status compileStandalone(const StandalonePlan &plan, const fs::path &outputDir,
                         ordered_json &record,
                         std::vector<std::string> &written) {
  const Kernel &kernel = *plan.kernel;
  const std::string prefix = "standalone/" + kernel.name + "/";
  const fs::path dir = outputDir / "standalone" / kernel.name;
  const std::string origin = displayPath(kernel.manifest);
  record["kernel"] = kernel.name;
  record["manifest"] = origin;
  record["status"] = "failed";

  std::error_code ec;
  if (plan.skipped) {
    // Built for none of this build's targets (--target): nothing to compare.
    fs::remove_all(dir, ec);
    record["status"] = "skipped";
    record["reason"] = "the kernel was built for no target in this build";
    return okStatus();
  }

  const driver::CompileOptions &options = plan.options;
  fs::create_directories(dir, ec);
  if (ec)
    return invalidArgument("cannot create " + displayPath(dir) + ": " +
                           ec.message());
  std::string error;
  if (!driver::writeStandaloneProgram(plan.standalone, options.programPath,
                                      error)) {
    fs::remove_all(dir, ec);
    record["error"] = error;
    return invalidArgument(origin + ": [bench]: " + error);
  }
  record["program"] = prefix + "program.mlir";

  driver::CompileResult result = driver::compile(options);
  record["targets"] = toJsonArray(plan.targets);
  record["diagnostics"] = result.diagnostics;
  if (!result.ok) {
    fs::remove_all(dir, ec);
    return invalidArgument(
        compilerError("compiling the benchmark program of standalone kernel " +
                          kernel.name + " (" + origin + ")",
                      result.diagnostics));
  }
  written.push_back(options.programPath);
  written.insert(written.end(), result.writtenFiles.begin(),
                 result.writtenFiles.end());
  recordResult(result, {{origin, &kernel}}, outputDir, prefix, record);
  return okStatus();
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
                       ordered_json &record) {
  driver::CompileOptions &options = plan.options;
  options.programPath = project.program->string();
  for (const Target &target : step.targets)
    options.targets.push_back(target.toString());
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
    std::string variant =
        driver::variantNameForTarget(job->result.target.toString());
    if (variant.empty())
      return internalError("the compiler does not know the target " +
                           job->result.target.toString() + " of kernel " +
                           job->kernel->name);
    std::string origin = displayPath(job->kernel->manifest);
    plan.kernelByOrigin[origin] = job->kernel;
    fs::path file = absoluteIn(object->path, outputDir);
    options.objectSubstitutions.push_back(
        {job->kernel->substitutes + "/" + variant, file.string(), origin});
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
        record["error"] = message;
        removeStaleModules(outputDir);
        return invalidArgument(message);
      }
  }
  return okStatus();
}

/// Compiles the planned program; |written| receives the files it wrote.
Status compileMainProgram(const Project &project, const MainPlan &plan,
                          const fs::path &outputDir, ordered_json &record,
                          std::vector<std::string> &written) {
  driver::CompileResult result = driver::compile(plan.options);

  std::string diagnostics = result.diagnostics;
  record["targets"] = toJsonArray(plan.options.targets);
  record["diagnostics"] = diagnostics;
  if (!result.ok) {
    removeStaleModules(outputDir);
    return invalidArgument(compilerError(
        "compiling " + displayPath(*project.program), diagnostics));
  }
  written.insert(written.end(), result.writtenFiles.begin(),
                 result.writtenFiles.end());
  recordResult(result, plan.kernelByOrigin, outputDir, "", record);
  return okStatus();
}

/// The GNU build ids of kernel-bench and of every library it has loaded
/// (libLLVM/libMLIR when linked shared), read from memory: a rebuilt or
/// upgraded compiler changes them, a rebuild with the same version string
/// included. Empty when the executable itself has none.
std::string loadedBuildIds() {
  struct Collected {
    std::string ids;
    bool first = true;
    bool executableHasId = false;
  } collected;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto &out = *static_cast<Collected *>(data);
        bool isExecutable = out.first;
        out.first = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &header = info->dlpi_phdr[i];
          if (header.p_type != PT_NOTE)
            continue;
          const char *p =
              reinterpret_cast<const char *>(info->dlpi_addr + header.p_vaddr);
          const char *end = p + header.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof(ElfW(Nhdr));
            const char *desc = name + ((note->n_namesz + 3) & ~3u);
            const char *next = desc + ((note->n_descsz + 3) & ~3u);
            if (next > end)
              break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
              out.ids += info->dlpi_name;
              out.ids += '=';
              out.ids.append(desc, note->n_descsz); // raw bytes: a key field
              out.ids += '\n';
              out.executableHasId |= isExecutable;
            }
            p = next;
          }
        }
        return 0;
      },
      &collected);
  return collected.executableHasId ? collected.ids : std::string();
}

/// Bump when what the key covers or the stamp's layout changes.
constexpr const char *kStampFormat = "kb-program-stamp 1";

/// Adds |path| and the sha256 of its contents ("missing" when unreadable:
/// the compile then fails, and failures leave no stamp).
void addFile(toolchains::CacheKeyBuilder &key, const ProgramStepOptions &step,
             const std::string &path) {
  std::optional<std::string> hash = step.hashFile(path);
  key.add("file", path).add(hash ? *hash : std::string("missing"));
}

void addCompileOptions(toolchains::CacheKeyBuilder &key,
                       const ProgramStepOptions &step,
                       const driver::CompileOptions &options) {
  key.add("targets", std::to_string(options.targets.size()));
  for (const std::string &target : options.targets)
    key.add(target);
  key.add("substitutions", std::to_string(options.objectSubstitutions.size()));
  for (const driver::Substitution &s : options.objectSubstitutions) {
    key.add(s.executable).add(s.origin);
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

/// The key of everything the step reads: see the file comment.
std::string programStepKey(const MainPlan *main,
                           const std::vector<StandalonePlan> &standalone,
                           const fs::path &outputDir,
                           const ProgramStepOptions &step) {
  toolchains::CacheKeyBuilder key;
  key.add(kStampFormat).add("kernel-bench " KB_VERSION_STRING);
  std::string buildIds = loadedBuildIds();
  if (buildIds.empty()) {
    // No build id (a linker without --build-id): the executable's bytes.
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    std::optional<std::string> hash;
    if (!ec)
      hash = step.hashFile(self.string());
    buildIds = hash ? *hash : "unknown";
  }
  key.add("build-ids", buildIds);
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
    for (const driver::StandaloneBinding &b : k.bindings)
      key.add(b.name)
          .add(b.elementType)
          .add(b.access)
          .add(std::to_string(b.elementCount));
    key.add("constants", std::to_string(k.constants.size()));
    for (const driver::StandaloneConstant &c : k.constants)
      key.add(c.name).add(c.type).add(c.value);
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
      key.add(o.target).add(o.entry);
      addFile(key, step, o.file);
    }
    addCompileOptions(key, step, plan.options);
  }
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
std::optional<ordered_json> upToDateRecord(const fs::path &outputDir,
                                           const std::string &key,
                                           const ProgramStepOptions &step) {
  StatusOr<std::string> text = toolchains::readFile(stampPath(outputDir));
  if (!text.ok())
    return std::nullopt;
  ordered_json stamp =
      ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!stamp.is_object() || stamp.value("format", "") != kStampFormat ||
      stamp.value("key", "") != key || !stamp.contains("outputs") ||
      !stamp["outputs"].is_object() || !stamp.contains("record") ||
      !stamp["record"].is_object())
    return std::nullopt;
  for (const auto &[file, hash] : stamp["outputs"].items()) {
    if (!hash.is_string())
      return std::nullopt;
    std::optional<std::string> now = step.hashFile((outputDir / file).string());
    if (!now || *now != hash.get<std::string>())
      return std::nullopt;
  }
  return stamp["record"];
}

/// Written after every compile succeeded: the key, the sha256 of every file
/// written, the record. A failure to write costs the next build a compile.
void writeStamp(const fs::path &outputDir, const std::string &key,
                const std::vector<std::string> &written,
                const ProgramStepOptions &step, const ordered_json &record) {
  ordered_json outputs = ordered_json::object();
  for (const std::string &file : written) {
    std::optional<std::string> hash = step.hashFile(file);
    if (!hash)
      return; // Gone already: nothing to vouch for.
    outputs[relativeTo(file, outputDir)] = *hash;
  }
  ordered_json stamp = {{"format", kStampFormat},
                        {"key", key},
                        {"outputs", std::move(outputs)},
                        {"record", record}};
  toolchains::writeFileAtomic(stampPath(outputDir), stamp.dump(1) + "\n")
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

} // namespace

Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &succeeded,
                      const fs::path &outputDir, const ProgramStepOptions &step,
                      ordered_json &record) {
  record = ordered_json::object();
  record["path"] = project.program ? ordered_json(project.program->string())
                                   : ordered_json(nullptr);
  record["status"] = project.program ? "failed" : "ok";

  // Standalone kernels are independent of the program and of each other: a
  // failed one is skipped and the rest still build. A failed kernel that
  // substitutes a program executable stops the program (measuring the
  // generated kernel in its place would be wrong).
  const std::set<const Kernel *> failed = failedKernels(succeeded);
  const std::string failedSubstituting = failedNames(
      project, failed, [](const Kernel &k) { return !k.substitutes.empty(); });
  std::optional<MainPlan> main;
  if (project.program && failedSubstituting.empty()) {
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

  const std::string key =
      programStepKey(main ? &*main : nullptr, standalonePlans, outputDir, step);
  if (step.reuse && failed.empty())
    if (std::optional<ordered_json> previous =
            upToDateRecord(outputDir, key, step)) {
      record = std::move(*previous);
      record["cached"] = true;
      return okStatus();
    }
  // From here until every compile succeeded there is no stamp: an
  // interrupted or failed step cannot be mistaken for a finished one.
  removeStamp(outputDir);

  Status status;
  std::vector<std::string> written;
  if (main) {
    status = compileMainProgram(project, *main, outputDir, record, written);
  } else if (project.program) {
    removeStaleModules(outputDir);
    record["status"] = "skipped";
    record["reason"] = "kernel jobs failed: " + failedSubstituting +
                       " (substituting the program's executables)";
  }

  ordered_json standalone = ordered_json::array();
  for (const Kernel &kernel : project.kernels) {
    if (!kernel.bench || !failed.count(&kernel))
      continue;
    std::error_code ec;
    fs::remove_all(outputDir / "standalone" / kernel.name, ec);
    standalone.push_back({{"kernel", kernel.name},
                          {"manifest", displayPath(kernel.manifest)},
                          {"status", "skipped"},
                          {"reason", "its kernel jobs failed"}});
  }
  for (const StandalonePlan &plan : standalonePlans) {
    ordered_json entry = ordered_json::object();
    Status one = compileStandalone(plan, outputDir, entry, written);
    standalone.push_back(std::move(entry));
    if (!one.ok())
      status = status.ok()
                   ? one
                   : invalidArgument(status.message() + "\n" + one.message());
  }
  if (!standalone.empty())
    record["standalone"] = std::move(standalone);
  if (!status.ok()) {
    record["status"] = "failed";
    return status;
  }
  record["cached"] = false;
  if (failed.empty())
    writeStamp(outputDir, key, written, step, record);
  return okStatus();
}

void discardProgramOutputs(const Project &project, const fs::path &outputDir) {
  removeStamp(outputDir);
  if (project.program)
    removeStaleModules(outputDir);
  std::error_code ec;
  for (const Kernel &kernel : project.kernels)
    if (kernel.bench)
      fs::remove_all(outputDir / "standalone" / kernel.name, ec);
}

} // namespace kb::workbench

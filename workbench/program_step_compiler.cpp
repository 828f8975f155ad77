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
//===----------------------------------------------------------------------===//
#include "workbench/program_step.h"

#include "kb/Driver/Driver.h"

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
  const char *kind =
      job.result.target.kind == toolchains::Target::Kind::Cuda ? "ptx" : "spv";
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
    entry["manifest"] = s.origin.empty() ? ordered_json(nullptr)
                                         : ordered_json(s.origin);
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

/// Synthesizes and compiles the one-dispatch program of a standalone
/// kernel into OUT_DIR/standalone/<kernel>/.
Status compileStandalone(const Kernel &kernel,
                         const std::vector<const JobRecord *> &succeeded,
                         const fs::path &outputDir, ordered_json &record) {
  const BenchSettings &bench = *kernel.bench;
  const std::string prefix = "standalone/" + kernel.name + "/";
  const fs::path dir = outputDir / "standalone" / kernel.name;
  const std::string origin = displayPath(kernel.manifest);
  record["kernel"] = kernel.name;
  record["manifest"] = origin;
  record["status"] = "failed";

  auto objects = objectsOf(kernel, succeeded);
  std::error_code ec;
  if (objects.empty()) {
    // Built for none of this build's targets (--target): nothing to compare.
    fs::remove_all(dir, ec);
    record["status"] = "skipped";
    record["reason"] = "the kernel was built for no target in this build";
    return okStatus();
  }

  const KernelAbi &abi = kernel.specs.front().abi;
  driver::StandaloneKernel standalone;
  standalone.name = kernel.name;
  standalone.entry = bench.exportName;
  for (size_t i = 0; i < abi.bindings.size(); ++i)
    standalone.bindings.push_back({abi.bindings[i].name,
                                   toString(abi.bindings[i].elementType),
                                   toString(abi.bindings[i].access),
                                   bench.elementCounts[i]});
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

  driver::CompileOptions options;
  options.outputDir = dir.string();
  options.programPath = (dir / "program.mlir").string();
  for (const auto &[job, object] : objects) {
    std::string file = absoluteIn(object->path, outputDir).string();
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

  fs::create_directories(dir, ec);
  if (ec)
    return invalidArgument("cannot create " + displayPath(dir) + ": " +
                           ec.message());
  std::string error;
  if (!driver::writeStandaloneProgram(standalone, options.programPath, error)) {
    fs::remove_all(dir, ec);
    record["error"] = error;
    return invalidArgument(origin + ": [bench]: " + error);
  }
  record["program"] = prefix + "program.mlir";

  driver::CompileResult result = driver::compile(options);
  record["targets"] = toJsonArray(options.targets);
  record["diagnostics"] = result.diagnostics;
  if (!result.ok) {
    fs::remove_all(dir, ec);
    return invalidArgument(
        compilerError("compiling the benchmark program of standalone kernel " +
                          kernel.name + " (" + origin + ")",
                      result.diagnostics));
  }
  recordResult(result, {{origin, &kernel}}, outputDir, prefix, record);
  return okStatus();
}

/// The project's program with the substituting kernels' objects.
Status compileMainProgram(const Project &project,
                          const std::vector<const JobRecord *> &succeeded,
                          const fs::path &outputDir, ordered_json &record) {
  driver::CompileOptions options;
  options.programPath = project.program->string();
  for (const toolchains::Target &target : project.targets)
    options.targets.push_back(target.toString());
  options.outputDir = outputDir.string();
  // A `substitutes` that names no executable of the program is a mistake in
  // a kernel.toml, not an option to ignore (IREE's flags only warn).
  options.strict = true;

  // The kernel behind each origin (its kernel.toml), to report
  // substitutions by kernel.
  std::map<std::string, const Kernel *> kernelByOrigin;
  for (const JobRecord *job : succeeded) {
    if (!job->result.status.ok() || !job->kernel ||
        job->kernel->substitutes.empty())
      continue;
    const toolchains::OutputFile *object = substitutionObject(*job);
    if (!object)
      return internalError("the " + job->result.target.toString() +
                           " build of kernel " + job->kernel->name +
                           " published no " +
                           (job->result.target.kind ==
                                    toolchains::Target::Kind::Cuda
                                ? "PTX"
                                : "SPIR-V") +
                           " to substitute");
    std::string variant =
        driver::variantNameForTarget(job->result.target.toString());
    if (variant.empty())
      return internalError("the compiler does not know the target " +
                           job->result.target.toString() + " of kernel " +
                           job->kernel->name);
    std::string origin = displayPath(job->kernel->manifest);
    kernelByOrigin[origin] = job->kernel;
    fs::path file = absoluteIn(object->path, outputDir);
    options.objectSubstitutions.push_back(
        {job->kernel->substitutes + "/" + variant, file.string(), origin});
  }

  // Two kernels that substitute the same variant: the compiler names both
  // kernel.toml files too, but only for the variants they both built; this
  // names them whatever the targets.
  {
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
              ") by two kernels: " + displayPath(it->second->manifest) +
              " and " + displayPath(kernel.manifest) +
              "; keep `substitutes` in only one of them";
          record["error"] = message;
          removeStaleModules(outputDir);
          return invalidArgument(message);
        }
    }
  }

  driver::CompileResult result = driver::compile(options);

  std::string diagnostics = result.diagnostics;
  record["targets"] = toJsonArray(options.targets);
  record["diagnostics"] = diagnostics;
  if (!result.ok) {
    removeStaleModules(outputDir);
    return invalidArgument(
        compilerError("compiling " + displayPath(*project.program), diagnostics));
  }

  recordResult(result, kernelByOrigin, outputDir, "", record);
  return okStatus();
}

} // namespace

Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &succeeded,
                      const fs::path &outputDir, ordered_json &record) {
  record = ordered_json::object();
  record["path"] = project.program ? ordered_json(project.program->string())
                                   : ordered_json(nullptr);
  record["status"] = project.program ? "failed" : "ok";
  if (project.program)
    KB_RETURN_IF_ERROR(compileMainProgram(project, succeeded, outputDir, record));

  ordered_json standalone = ordered_json::array();
  Status status;
  for (const Kernel &kernel : project.kernels) {
    if (!kernel.bench)
      continue;
    ordered_json entry = ordered_json::object();
    status = compileStandalone(kernel, succeeded, outputDir, entry);
    standalone.push_back(std::move(entry));
    if (!status.ok())
      break;
  }
  if (!standalone.empty())
    record["standalone"] = std::move(standalone);
  if (!status.ok())
    record["status"] = "failed";
  return status;
}

void discardProgramOutputs(const Project &project, const fs::path &outputDir) {
  if (project.program)
    removeStaleModules(outputDir);
  std::error_code ec;
  for (const Kernel &kernel : project.kernels)
    if (kernel.bench)
      fs::remove_all(outputDir / "standalone" / kernel.name, ec);
}

} // namespace kb::workbench

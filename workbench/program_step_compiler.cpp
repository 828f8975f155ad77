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

} // namespace

Status compileProgram(const Project &project,
                      const std::vector<const JobRecord *> &succeeded,
                      const fs::path &outputDir, ordered_json &record) {
  record = ordered_json::object();
  record["path"] = project.program->string();
  record["status"] = "failed";

  driver::CompileOptions options;
  options.programPath = project.program->string();
  for (const toolchains::Target &target : project.targets)
    options.targets.push_back(target.toString());
  options.outputDir = outputDir.string();

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
    fs::path file = object->path.is_absolute() ? object->path
                                               : outputDir / object->path;
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
    if (diagnostics.empty())
      diagnostics = "the compiler failed without a diagnostic";
    while (!diagnostics.empty() && diagnostics.back() == '\n')
      diagnostics.pop_back();
    return invalidArgument("compiling " + displayPath(*project.program) +
                           " failed:\n" + diagnostics);
  }

  record["status"] = "ok";
  record["module"] = "program.kbm";

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
    entry["file"] = b.file;
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
  return okStatus();
}

} // namespace kb::workbench

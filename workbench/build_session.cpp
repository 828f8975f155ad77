//===- workbench/build_session.cpp - What a build sets up before its jobs -===//
#include "workbench/build_session.h"

#include "workbench/program_step.h"
#include "workbench/workbench_toml.h"

#include "common/paths.h"

#include <algorithm>
#include <map>
#include <set>
#include <thread>

namespace fs = std::filesystem;

namespace kb::workbench {

using toolchains::KernelSpec;

namespace {

/// `--strict`: warnings are errors in every tool that has warnings, and
/// ptxas spill warnings too. The flags become part of each tool's argv, so
/// the cache keeps strict and non-strict results apart.
KernelSpec strictSpec(KernelSpec spec) {
  auto add = [&](const char *tool, std::vector<std::string> flags) {
    auto &list = spec.extraFlags[tool];
    list.insert(list.end(), flags.begin(), flags.end());
  };
  add("nvcc", {"-Werror", "all-warnings"});
  add("ptxas", {"--warning-as-error"});
  add("glslc", {"-Werror"});
  spec.spillsAreErrors = true;
  return spec;
}

/// The program step also synthesizes and compiles the one-dispatch program
/// of every standalone kernel (`[bench]`); a build that has one needs the
/// compiler.
Status checkProgramStep(const BuildFlags &flags, BuildSession &session) {
  const Project &project = session.project;
  const Kernel *standalone = nullptr;
  for (const Kernel &kernel : project.kernels)
    if (kernel.bench && !standalone)
      standalone = &kernel;
  session.compileProgramStep =
      (project.program || standalone) && !flags.kernelsOnly;
  if (!session.compileProgramStep || canCompilePrograms())
    return okStatus();
  return invalidArgument(
      (project.program ? displayPath(project.manifest) + " names a program (" +
                             displayPath(*project.program) + ")"
                       : displayPath(standalone->manifest) +
                             " has a [bench] table (its benchmark program is "
                             "compiled)") +
      " but " + programCompilerUnavailableReason() +
      "; pass --kernels-only to build just the kernels");
}

Status createOutputDir(const BuildFlags &flags, BuildSession &session) {
  session.outputDir = flags.outputDir.empty() ? session.project.outputDir
                                              : absoluteNormal(flags.outputDir);
  std::error_code ec;
  fs::create_directories(session.outputDir, ec);
  if (ec)
    return invalidArgument("cannot create the output directory " +
                           displayPath(session.outputDir) + ": " +
                           ec.message());
  return okStatus();
}

/// The cache directory: `--cache-dir`, else [build] cache_dir, else the
/// default location.
Status openCache(const BuildFlags &flags, BuildSession &session) {
  if (flags.noCache)
    return okStatus();
  if (!flags.cacheDir.empty()) {
    session.cacheDir = absoluteNormal(flags.cacheDir);
  } else if (!session.project.build.cacheDir.empty()) {
    session.cacheDir = session.project.build.cacheDir;
  } else {
    StatusOr<fs::path> defaultDir = toolchains::BuildCache::defaultDirectory();
    if (!defaultDir.ok())
      return Status(defaultDir.status().code(),
                    defaultDir.status().message() +
                        "; pass --cache-dir DIR or --no-cache");
    session.cacheDir = *defaultDir;
  }
  StatusOr<std::unique_ptr<toolchains::BuildCache>> opened =
      toolchains::BuildCache::open(session.cacheDir);
  if (!opened.ok())
    return Status(opened.status().code(),
                  opened.status().message() +
                      "; pass another --cache-dir or --no-cache");
  session.cache = std::move(*opened);
  return okStatus();
}

} // namespace

StatusOr<std::vector<Target>>
parseRequestedTargets(const std::vector<std::string> &texts) {
  std::vector<Target> requested;
  for (const std::string &text : texts) {
    StatusOr<Target> target = Target::parse(text);
    if (!target.ok())
      return invalidArgument("--target " + text + ": " +
                             target.status().message());
    if (std::find(requested.begin(), requested.end(), *target) ==
        requested.end())
      requested.push_back(*target);
  }
  return requested;
}

StatusOr<std::unique_ptr<BuildSession>>
openBuildSession(const BuildFlags &flags, std::vector<Target> requested) {
  auto session = std::make_unique<BuildSession>();
  session->requested = std::move(requested);
  KB_ASSIGN_OR_RETURN(session->project, loadProject(flags.projectDir));
  KB_RETURN_IF_ERROR(checkProgramStep(flags, *session));
  KB_ASSIGN_OR_RETURN(session->plan,
                      planJobs(session->project, session->requested));
  KB_RETURN_IF_ERROR(createOutputDir(flags, *session));

  const BuildSettings &settings = session->project.build;
  session->jobs = flags.jobs ? flags.jobs : settings.jobs;
  if (session->jobs == 0)
    session->jobs = std::max(1u, std::thread::hardware_concurrency());
  session->timeoutSeconds = flags.timeoutSeconds > 0
                                ? flags.timeoutSeconds
                                : settings.timeoutSeconds.value_or(120.0);
  KB_RETURN_IF_ERROR(openCache(flags, *session));

  toolchains::ToolchainsConfig toolConfig;
  toolConfig.overrides = session->project.toolOverrides;
  // Tool --version probes are remembered next to the cache, so a no-op
  // build spawns no process at all.
  toolConfig.probeCacheDirectory = session->cacheDir;
  session->tools = std::make_unique<toolchains::Toolchains>(toolConfig);

  // Strict specs are copies; records point at the project's own specs.
  session->specs.reserve(session->plan.size());
  for (const PlannedJob &job : session->plan)
    session->specs.push_back(flags.strict ? strictSpec(*job.spec) : *job.spec);
  return session;
}

Status checkToolsAvailable(const BuildSession &session) {
  std::map<std::string, std::set<std::string>> neededBy; // tool -> targets
  for (const PlannedJob &job : session.plan) {
    std::vector<const char *> needed;
    if (job.target.isCuda())
      needed = {"nvcc", "ptxas", "host-cxx"};
    else
      needed = {"glslc", "spirv-val"};
    if (job.target.isVulkan() && job.spec->optimizeSpirv)
      needed.push_back("spirv-opt");
    for (const char *tool : needed)
      neededBy[tool].insert(job.target.toString());
  }
  std::string messages;
  std::set<std::string> dropped, kept;
  for (const auto &[tool, targets] : neededBy) {
    StatusOr<toolchains::ToolIdentity> found = session.tools->find(tool);
    if (found.ok())
      continue;
    if (!found.status().isUnavailable())
      return found.status();
    messages += found.status().message() + "\n";
    dropped.insert(targets.begin(), targets.end());
  }
  if (dropped.empty())
    return okStatus();
  for (const PlannedJob &job : session.plan)
    if (!dropped.count(job.target.toString()))
      kept.insert(job.target.toString());
  std::string advice = "cannot build ";
  bool first = true;
  for (const std::string &t : dropped) {
    advice += (first ? "" : ", ") + t;
    first = false;
  }
  advice += " on this machine: install the missing tool (or point "
            "[toolchains] in workbench.toml at it)";
  if (!kept.empty()) {
    advice += ", or build only the other targets:";
    for (const std::string &t : kept)
      advice += " --target " + t;
  }
  return unavailable(messages + advice);
}

} // namespace kb::workbench

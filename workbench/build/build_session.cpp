//===- workbench/build/build_session.cpp - What a build sets up before ----===//
#include "workbench/build/build_session.h"

#include "workbench/build/program_step.h"
#include "workbench/project/workbench_toml.h"
#include "workbench/project/problem_sizes.h"

#include "common/paths.h"
#include "common/sha256.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

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
Status checkProgramStep(const BuildRequest &flags, BuildSession &session) {
  const Project &project = *session.project;
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

/// Whether |path| is |dir| or lies below it (lexically, both absolute).
bool isWithin(const fs::path &path, const fs::path &dir) {
  fs::path relative = path.lexically_normal().lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

/// A build deletes stale outputs in its output directory: one that holds
/// the project's own files (`-o .` in the project) is refused outright.
Status checkOutputDirHoldsNoSources(const BuildSession &session) {
  const Project &project = *session.project;
  std::vector<fs::path> owned = {project.directory, project.manifest};
  if (project.program)
    owned.push_back(*project.program);
  for (const Kernel &kernel : project.kernels) {
    owned.push_back(kernel.manifest);
    for (const KernelSpec &spec : kernel.specs)
      owned.push_back(spec.source);
  }
  for (const fs::path &file : owned)
    if (isWithin(file, session.outputDir))
      return invalidArgument(
          "the output directory " + displayPath(session.outputDir) +
          " contains the project's sources (" + displayPath(file) +
          "); a build removes stale outputs there, so it must be a "
          "directory of its own: pass -o DIR outside the sources (the "
          "default is PROJECT_DIR/kb-out)");
  return okStatus();
}

/// Whether |text| is well-formed UTF-8 (no overlongs, surrogates or values
/// above U+10FFFF).
bool isUtf8(const std::string &text) {
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  const auto *end = p + text.size();
  while (p < end) {
    unsigned c = *p++;
    int extra = c < 0x80         ? 0
                : (c >> 5) == 6  ? 1
                : (c >> 4) == 14 ? 2
                : (c >> 3) == 30 ? 3
                                 : -1;
    if (extra < 0 || end - p < extra)
      return false;
    unsigned value = extra == 0 ? c : c & (0x3f >> extra);
    for (int i = 0; i < extra; ++i, ++p) {
      if ((*p & 0xc0) != 0x80)
        return false;
      value = (value << 6) | (*p & 0x3f);
    }
    static const unsigned kMin[] = {0, 0x80, 0x800, 0x10000};
    if (value < kMin[extra] || value > 0x10ffff ||
        (value >= 0xd800 && value <= 0xdfff))
      return false;
  }
  return true;
}

/// build.json is JSON, whose strings are Unicode: a path that is not UTF-8
/// could only be written lossily, so it is refused up front.
Status checkPathsAreUtf8(const BuildSession &session) {
  const Project &project = *session.project;
  std::vector<fs::path> paths = {project.directory, project.manifest,
                                 session.outputDir};
  if (project.program)
    paths.push_back(*project.program);
  for (const Kernel &kernel : project.kernels) {
    paths.push_back(kernel.manifest);
    for (const KernelSpec &spec : kernel.specs) {
      paths.push_back(spec.source);
      paths.insert(paths.end(), spec.includeDirs.begin(),
                   spec.includeDirs.end());
    }
  }
  for (const fs::path &path : paths)
    if (!isUtf8(path.string()))
      return invalidArgument(
          "the path `" + path.string() +
          "` is not valid UTF-8; build.json records every path as a JSON "
          "string, which cannot hold it exactly. Rename it (or the directory "
          "holding it) to a UTF-8 name, e.g. with convmv.");
  return okStatus();
}

/// The outputs of a device model a kernel's tuned.toml no longer names
/// (`kernels/<kernel>@<model>/`), or of a twin reference the kernel no
/// longer has (`kernels/<kernel>@reference/`), removed as far as a build
/// provably wrote them, so nothing stale sits beside what this build writes.
void removeDroppedTunedOutputs(BuildSession &session) {
  std::set<std::string> kept;
  for (const Kernel &kernel : session.project->kernels)
    for (const std::vector<KernelSpec> *specs :
         {&kernel.tunedSpecs, &kernel.referenceSpecs})
      for (const KernelSpec &spec : *specs)
        kept.insert(spec.name);
  std::set<std::string> kernels;
  for (const Kernel &kernel : session.project->kernels)
    kernels.insert(kernel.name);
  std::error_code ec;
  std::vector<fs::path> dropped;
  for (const auto &entry :
       fs::directory_iterator(session.outputDir / "kernels", ec)) {
    std::string name = entry.path().filename().string();
    size_t at = name.find('@');
    if (at != std::string::npos && entry.is_directory(ec) &&
        kernels.count(name.substr(0, at)) && !kept.count(name))
      dropped.push_back(entry.path());
  }
  for (const fs::path &dir : dropped)
    session.outputs->removeOwnedTree(dir);
}

Status createOutputDir(const BuildRequest &flags, BuildSession &session,
                       BuildObserver &observer) {
  session.outputDir = outputDirFor(flags, *session.project);
  KB_RETURN_IF_ERROR(checkOutputDirHoldsNoSources(session));
  KB_RETURN_IF_ERROR(checkPathsAreUtf8(session));
  std::error_code ec;
  fs::create_directories(session.outputDir, ec);
  if (ec)
    return invalidArgument("cannot create the output directory " +
                           displayPath(session.outputDir) + ": " +
                           ec.message());
  // Locked before anything in it is touched; a concurrent build waits here.
  KB_ASSIGN_OR_RETURN(
      OutputLock lock,
      OutputLock::acquire(
          session.outputDir, !flags.noWait,
          [&observer](const std::string &message) { observer.note(message); }));
  session.outputLock.emplace(std::move(lock));
  BuildSession *owner = &session;
  // Hashes through the cache's stat-keyed memo once it is open: a no-op
  // build then only stats its outputs.
  session.outputs = std::make_unique<OutputManifest>(
      session.outputDir,
      [owner](const std::string &path) -> std::optional<std::string> {
        if (owner->cache)
          return owner->cache->hashFile(path);
        StatusOr<std::string> hash = sha256File(path);
        return hash.ok() ? std::optional<std::string>(*hash) : std::nullopt;
      });
  return okStatus();
}

/// The cache directory: `--cache-dir`, else [build] cache_dir, else the
/// default location.
Status openCache(const BuildRequest &flags, BuildSession &session) {
  if (flags.noCache)
    return okStatus();
  if (!flags.cacheDir.empty()) {
    session.cacheDir = absoluteNormal(flags.cacheDir);
  } else if (!session.project->build.cacheDir.empty()) {
    session.cacheDir = session.project->build.cacheDir;
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

/// The remote tier (docs/remote-cache.md): `--remote-cache`, else
/// $KB_REMOTE_CACHE, else [build] remote_cache (CI points its runners at a
/// server without editing the project); none with --no-cache or
/// --no-remote-cache. Credentials and the timeout come from the
/// environment only.
Status openRemoteCache(const BuildRequest &flags, BuildSession &session,
                       BuildObserver &observer) {
  if (!session.cache || flags.noRemoteCache)
    return okStatus();
  std::string url = flags.remoteCache, from = "--remote-cache";
  if (const char *env = std::getenv("KB_REMOTE_CACHE");
      url.empty() && env && *env) {
    url = env;
    from = "KB_REMOTE_CACHE";
  }
  if (url.empty()) {
    url = session.project->build.remoteCache;
    from = "[build] remote_cache";
  }
  if (url.empty())
    return okStatus();
  if (Status bad = toolchains::checkRemoteCacheUrl(url); !bad.ok())
    return bad.withContext(from);
  toolchains::RemoteTierConfig config;
  config.url = url;
  KB_RETURN_IF_ERROR(toolchains::applyRemoteTimeoutFromEnvironment(config));
  KB_ASSIGN_OR_RETURN(config.credentials,
                      toolchains::remoteCredentialsFromEnvironment());
  StatusOr<std::unique_ptr<toolchains::RemoteTier>> tier =
      toolchains::openRemoteTier(std::move(config));
  if (tier.status().code() == StatusCode::Unavailable) {
    // A runtime-only kernel-bench: building locally is still right.
    observer.warning(tier.status().message() + " (from " + from + ")");
    return okStatus();
  }
  if (!tier.ok())
    return tier.status();
  session.cache->setRemote(std::move(*tier));
  return okStatus();
}

} // namespace

namespace {

/// Half the machine's memory: a runaway tool (an `#include "/dev/zero"`, a
/// macro bomb) fails instead of taking the machine, while nvcc, cicc, ptxas
/// and glslc, which need well under 1 GiB for a kernel, never meet it.
uint64_t defaultToolMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return uint64_t(pages) * uint64_t(pageSize) / 2;
}

} // namespace

toolchains::BuildOptions toolOptions(const BuildSession &session) {
  toolchains::BuildOptions options;
  options.timeout = std::chrono::milliseconds(
      static_cast<int64_t>(std::llround(session.timeoutSeconds * 1000)));
  options.memoryLimitBytes = session.toolMemoryBytes;
  return options;
}

fs::path outputDirFor(const BuildRequest &request, const Project &project) {
  return request.outputDir.empty() ? project.outputDir
                                   : absoluteNormal(request.outputDir);
}

StatusOr<std::unique_ptr<BuildSession>>
openBuildSession(const BuildRequest &flags, BuildObserver &observer) {
  auto session = std::make_unique<BuildSession>();
  session->requested = flags.targets;
  if (flags.project) {
    session->project = std::make_shared<Project>(*flags.project);
  } else {
    KB_ASSIGN_OR_RETURN(Project loaded, loadProject(flags.projectDir));
    session->project = std::make_shared<Project>(std::move(loaded));
  }
  // One benchmark per sweep point: each point is a kernel of its own.
  KB_RETURN_IF_ERROR(expandSweeps(*session->project));
  // A kernel.toml that did not load may be why nothing can be planned (the
  // only kernel for a --target): its error goes with the one returned.
  auto withBroken = [&](Status status) {
    std::string message = status.message();
    for (const BrokenKernel &b : session->project->brokenKernels)
      message += "\n" + b.error + " (this kernel was not loaded)";
    return Status(status.code(), message);
  };
  if (Status checked = checkProgramStep(flags, *session); !checked.ok())
    return withBroken(checked);
  StatusOr<std::vector<PlannedJob>> plan =
      planJobs(*session->project, session->requested);
  if (!plan.ok())
    return withBroken(plan.status());
  session->plan = std::move(*plan);
  KB_RETURN_IF_ERROR(createOutputDir(flags, *session, observer));

  const BuildSettings &settings = session->project->build;
  session->jobs = flags.jobs ? flags.jobs : settings.jobs;
  if (session->jobs == 0)
    session->jobs = std::max(1u, std::thread::hardware_concurrency());
  session->timeoutSeconds = flags.timeoutSeconds > 0
                                ? flags.timeoutSeconds
                                : settings.timeoutSeconds.value_or(120.0);
  session->toolMemoryBytes = flags.toolMemoryBytes.value_or(
      settings.toolMemoryBytes.value_or(defaultToolMemoryBytes()));
  KB_RETURN_IF_ERROR(openCache(flags, *session));
  KB_RETURN_IF_ERROR(openRemoteCache(flags, *session, observer));
  if (!isUtf8(session->cacheDir.string()))
    return invalidArgument("the cache directory `" +
                           session->cacheDir.string() +
                           "` is not valid UTF-8 (build.json records it); "
                           "choose another with --cache-dir");

  toolchains::ToolchainsConfig toolConfig;
  toolConfig.overrides = session->project->toolOverrides;
  // Tool --version probes are remembered next to the cache, so a no-op
  // build spawns no process at all.
  toolConfig.probeCacheDirectory = session->cacheDir;
  session->tools = std::make_unique<toolchains::Toolchains>(toolConfig);

  // Strict specs are copies; records point at the project's own specs.
  session->specs.reserve(session->plan.size());
  for (const PlannedJob &job : session->plan)
    session->specs.push_back(flags.strict ? strictSpec(*job.spec) : *job.spec);
  removeDroppedTunedOutputs(*session);
  return session;
}

Status skipUnavailableTargets(BuildSession &session, bool strict) {
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
  std::map<std::string, std::string> dropped; // target -> why
  for (const auto &[tool, targets] : neededBy) {
    StatusOr<toolchains::ToolIdentity> found = session.tools->find(tool);
    if (found.ok())
      continue;
    if (!found.status().isUnavailable())
      return found.status();
    messages += found.status().message() + "\n";
    for (const std::string &target : targets)
      dropped[target] +=
          (dropped[target].empty() ? "" : "\n") + found.status().message();
  }
  if (dropped.empty())
    return okStatus();
  std::set<std::string> kept;
  for (const PlannedJob &job : session.plan)
    if (!dropped.count(job.target.toString()))
      kept.insert(job.target.toString());
  std::string asked;
  for (const Target &t : session.requested)
    if (dropped.count(t.toString()))
      asked += " --target " + t.toString();
  if (strict || !asked.empty() || kept.empty()) {
    std::string advice = "cannot build ";
    bool first = true;
    for (const auto &[target, why] : dropped) {
      advice += (first ? "" : ", ") + target;
      first = false;
    }
    advice += " on this machine";
    if (strict)
      advice += " (--strict: a target whose toolchain is missing is an "
                "error, not skipped)";
    else if (!asked.empty())
      advice += " (asked for with" + asked + ")";
    advice += ": install the missing tool (or point [toolchains] in "
              "workbench.toml at it)";
    if (!kept.empty()) {
      advice += ", or build only the other targets:";
      for (const std::string &t : kept)
        advice += " --target " + t;
    }
    return unavailable(messages + advice);
  }
  // Drop the jobs of the skipped targets (plan and specs are parallel).
  std::vector<PlannedJob> plan;
  std::vector<toolchains::KernelSpec> specs;
  for (size_t i = 0; i < session.plan.size(); ++i) {
    if (dropped.count(session.plan[i].target.toString()))
      continue;
    plan.push_back(session.plan[i]);
    specs.push_back(std::move(session.specs[i]));
  }
  session.plan = std::move(plan);
  session.specs = std::move(specs);
  for (const auto &[target, why] : dropped)
    session.skipped.push_back({*Target::parse(target), why});
  return okStatus();
}

} // namespace kb::workbench

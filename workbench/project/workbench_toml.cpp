//===- workbench/project/workbench_toml.cpp - The workbench.toml schema ---===//
#include "workbench/project/workbench_toml.h"
#include "workbench/support/duration_check.h"

#include "workbench/project/kernel_toml.h"
#include "workbench/project/toml_file.h"

#include "common/byte_size.h"
#include "common/paths.h"
#include "toolchains/remote_tier.h"
#include "toolchains/toolchains.h"

#include <glob.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

const std::vector<std::string> kProjectFileKeys = {"project", "build",
                                                   "toolchains"};
const std::vector<std::string> kProjectKeys = {"name", "program", "kernels",
                                               "targets", "output_dir"};
const std::vector<std::string> kBuildKeys = {"jobs", "timeout", "tool_memory",
                                             "cache_dir", "remote_cache"};

/// Escapes glob metacharacters in a literal path prefix.
std::string escapeGlob(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

bool hasGlobChars(const std::string &text) {
  return text.find_first_of("*?[") != std::string::npos;
}

/// Every kernel.toml below |dir| (the default when `kernels` is absent),
/// skipping hidden directories and the output directory; every directory
/// walked goes to |listed|.
std::vector<fs::path> findKernelManifests(const fs::path &dir,
                                          const fs::path &outputDir,
                                          std::vector<fs::path> &listed) {
  std::vector<fs::path> out;
  listed.push_back(dir);
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path &p = it->path();
    if (it->is_directory(ec)) {
      if (p.filename().string().rfind('.', 0) == 0 || p == outputDir)
        it.disable_recursion_pending();
      else
        listed.push_back(p.lexically_normal());
      continue;
    }
    if (p.filename() == "kernel.toml" && it->is_regular_file(ec))
      out.push_back(p.lexically_normal());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The directories ::glob lists to expand |pattern| (absolute, escaped
/// prefix included): at each component that has a wildcard, every directory
/// the components before it match.
void addGlobListings(const std::string &pattern,
                     std::vector<fs::path> &listed) {
  std::string prefix;
  std::istringstream components(pattern);
  for (std::string component; std::getline(components, component, '/');) {
    if (hasGlobChars(component) && !prefix.empty()) {
      glob_t matches{};
      if (::glob(prefix.c_str(), GLOB_ONLYDIR, nullptr, &matches) == 0)
        for (size_t i = 0; i < matches.gl_pathc; ++i)
          listed.push_back(fs::path(matches.gl_pathv[i]).lexically_normal());
      ::globfree(&matches);
    }
    prefix += (prefix.empty() && pattern.front() == '/' ? "/" : "") +
              component + (component.empty() ? "" : "/");
  }
}

/// `[project]`: name, program, targets, output_dir (`kernels` is read by
/// findManifests).
Status readProjectTable(const TomlFile &file, const toml::table &pt,
                        Project &project) {
  KB_RETURN_IF_ERROR(file.checkKeys(pt, "[project]", kProjectKeys));

  KB_ASSIGN_OR_RETURN(auto name, file.string(pt, "name"));
  project.name = name.value_or(project.directory.filename().string());

  KB_ASSIGN_OR_RETURN(auto program, file.string(pt, "program"));
  if (program) {
    fs::path path = (project.directory / *program).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      return file.error(*pt.get("program"), "`program`: file `" + *program +
                                                "` not found (looked for " +
                                                displayPath(path) + ")");
    project.program = path;
  }

  KB_ASSIGN_OR_RETURN(auto targets, file.targets(pt));
  project.targets = targets.value_or(std::vector<Target>());

  KB_ASSIGN_OR_RETURN(auto outputDir, file.string(pt, "output_dir"));
  project.outputDir =
      (project.directory / outputDir.value_or("kb-out")).lexically_normal();
  return okStatus();
}

/// `[build]`: jobs, timeout, cache_dir, remote_cache.
Status readBuildTable(const TomlFile &file, const toml::table &bt,
                      const fs::path &projectDir, BuildSettings &build) {
  KB_RETURN_IF_ERROR(file.checkKeys(bt, "[build]", kBuildKeys));
  KB_ASSIGN_OR_RETURN(auto jobs, file.integer(bt, "jobs", 0, 1024,
                                              "a job count from 0 (all "
                                              "cores) to 1024"));
  build.jobs = static_cast<unsigned>(jobs.value_or(0));
  if (const toml::node *t = bt.get("timeout")) {
    std::optional<double> seconds;
    if (t->is_integer())
      seconds = static_cast<double>(t->as_integer()->get());
    else if (t->is_floating_point())
      seconds = t->as_floating_point()->get();
    // TOML allows inf and nan: the one range check for durations.
    if (!seconds || !checkSeconds(*seconds).empty())
      return file.expected(*t, "timeout", secondsRangeText());
    build.timeoutSeconds = seconds;
  }
  KB_ASSIGN_OR_RETURN(auto toolMemory, file.string(bt, "tool_memory"));
  if (toolMemory) {
    build.toolMemoryBytes = parseByteSize(*toolMemory);
    if (!build.toolMemoryBytes)
      return file.expected(*bt.get("tool_memory"), "tool_memory",
                           std::string(byteSizeSyntax()) + "; \"0\" for no "
                                                           "limit");
  }
  KB_ASSIGN_OR_RETURN(auto cacheDir, file.string(bt, "cache_dir"));
  if (cacheDir && !cacheDir->empty())
    build.cacheDir = (projectDir / *cacheDir).lexically_normal();
  KB_ASSIGN_OR_RETURN(auto remote, file.string(bt, "remote_cache"));
  if (remote && !remote->empty()) {
    // Project files are committed: a password in the URL would be too.
    // The code stays the check's: credentials are a usage error.
    if (Status bad = toolchains::checkRemoteCacheUrl(*remote); !bad.ok())
      return Status(bad.code(),
                    file.error(*bt.get("remote_cache"),
                               "[build] remote_cache: " + bad.message())
                        .message());
    build.remoteCache = *remote;
  }
  return okStatus();
}

/// `[toolchains]`: tool name -> executable, relative to the project like
/// every other path in workbench.toml.
Status readToolchainsTable(const TomlFile &file, const toml::table &tt,
                           Project &project) {
  KB_RETURN_IF_ERROR(
      file.checkKeys(tt, "[toolchains]", toolchains::Toolchains::knownTools()));
  for (auto &&[key, value] : tt) {
    if (!value.is_string() || value.as_string()->get().empty())
      return file.expected(value, std::string(key.str()),
                           "the path of the executable (a string)");
    fs::path path =
        (project.directory / value.as_string()->get()).lexically_normal();
    project.toolOverrides[std::string(key.str())] = path;
  }
  return okStatus();
}

/// The manifests the `kernels` globs match, each at most once; a pattern
/// that matches no kernel directory is an error.
StatusOr<std::vector<fs::path>>
globManifests(const TomlFile &file, const toml::table &pt, Project &project) {
  std::vector<fs::path> manifests;
  KB_ASSIGN_OR_RETURN(auto patterns, file.strings(pt, "kernels"));
  std::set<fs::path> seen;
  std::error_code ec;
  for (const auto &[pattern, node] : patterns) {
    std::string full = escapeGlob(project.directory.string() + "/") + pattern;
    addGlobListings(full, project.listedDirectories);
    glob_t matches{};
    int rc = ::glob(full.c_str(), 0, nullptr, &matches);
    size_t found = 0;
    for (size_t i = 0; rc == 0 && i < matches.gl_pathc; ++i) {
      fs::path match = fs::path(matches.gl_pathv[i]).lexically_normal();
      fs::path manifest =
          fs::is_directory(match, ec) ? match / "kernel.toml" : match;
      if (manifest.filename() != "kernel.toml" ||
          !fs::is_regular_file(manifest, ec))
        continue;
      ++found;
      // Its kernel.toml could go: the directory holding it is listed.
      project.listedDirectories.push_back(manifest.parent_path());
      if (seen.insert(manifest).second)
        manifests.push_back(manifest);
    }
    ::globfree(&matches);
    if (found == 0)
      return file.error(*node,
                        "`kernels`: `" + pattern + "` " +
                            (hasGlobChars(pattern) ? "matches no directory"
                                                   : "is not a directory") +
                            " with a kernel.toml (looked in " +
                            displayPath(project.directory) + ")");
  }
  return manifests;
}

/// Kernel manifests: the `kernels` globs, else every kernel.toml below
/// (none is an error only without a program).
StatusOr<std::vector<fs::path>>
findManifests(const TomlFile &file, const toml::table &pt, Project &project) {
  if (pt.get("kernels"))
    return globManifests(file, pt, project);
  std::vector<fs::path> manifests = findKernelManifests(
      project.directory, project.outputDir, project.listedDirectories);
  // A program with no kernels yet builds (the program alone), so that `abi`
  // and `new-kernel` can show what a first kernel must fit.
  if (manifests.empty() && !project.program)
    return invalidArgument(
        displayPath(project.manifest) +
        ": no kernel.toml found below the project directory; add kernel "
        "directories or set [project] kernels = [\"path/*\"]");
  return manifests;
}

/// Loads every manifest; kernel names must be unique. A manifest that does
/// not load is recorded in |project.brokenKernels| and the others still
/// load; two kernels of one name are the project's error, since neither is
/// the one to drop.
Status loadKernels(const std::vector<fs::path> &manifests, Project &project) {
  std::map<std::string, std::string> nameWhere;
  for (const fs::path &manifest : manifests) {
    std::string where;
    StatusOr<Kernel> loaded = loadKernel(manifest, project.targets, &where);
    if (!loaded.ok()) {
      project.brokenKernels.push_back(
          {manifest, loaded.status().message(), loaded.status().code()});
      continue;
    }
    Kernel kernel = std::move(*loaded);
    auto [it, inserted] = nameWhere.emplace(kernel.name, where);
    if (!inserted)
      return invalidArgument(where + ": duplicate kernel name `" + kernel.name +
                             "`: already defined at " + it->second +
                             "; kernel names must be unique (set [kernel] "
                             "name in one of them)");
    project.kernels.push_back(std::move(kernel));
  }
  std::sort(project.kernels.begin(), project.kernels.end(),
            [](const Kernel &a, const Kernel &b) { return a.name < b.name; });
  return okStatus();
}

} // namespace

namespace {

/// workbench.toml, parsed: the project's own settings read, its kernels
/// not yet.
struct ProjectFile {
  Project project;
  std::optional<TomlFile> file;
  toml::table root;
  const toml::table *projectTable = nullptr;
};

Status readProjectFile(const fs::path &directoryIn, ProjectFile &out) {
  Project &project = out.project;
  project.directory = absoluteNormal(directoryIn);
  project.manifest = project.directory / "workbench.toml";
  std::error_code ec;
  if (!fs::is_directory(project.directory, ec))
    return notFound(displayPath(project.directory) +
                    ": project directory not found; pass the directory that "
                    "holds workbench.toml");
  if (!fs::exists(project.manifest, ec))
    return notFound(displayPath(project.manifest) +
                    ": no workbench.toml in the project directory; create one "
                    "(see kernels/README.md) or pass the right directory");

  const TomlFile &file = out.file.emplace(project.manifest);
  KB_RETURN_IF_ERROR(out.file->load(out.root));
  KB_RETURN_IF_ERROR(
      file.checkKeys(out.root, "workbench.toml", kProjectFileKeys));

  KB_ASSIGN_OR_RETURN(out.projectTable, file.table(out.root, "project"));
  if (!out.projectTable)
    return invalidArgument(displayPath(project.manifest) +
                           ": missing [project] table (name, kernels, "
                           "targets); see kernels/README.md");
  KB_RETURN_IF_ERROR(readProjectTable(file, *out.projectTable, project));
  KB_ASSIGN_OR_RETURN(const toml::table *bt, file.table(out.root, "build"));
  if (bt)
    KB_RETURN_IF_ERROR(
        readBuildTable(file, *bt, project.directory, project.build));
  KB_ASSIGN_OR_RETURN(const toml::table *tt,
                      file.table(out.root, "toolchains"));
  if (tt)
    KB_RETURN_IF_ERROR(readToolchainsTable(file, *tt, project));
  return okStatus();
}

} // namespace

StatusOr<Project> loadProjectSettings(const fs::path &directory) {
  ProjectFile read;
  KB_RETURN_IF_ERROR(readProjectFile(directory, read));
  return std::move(read.project);
}

StatusOr<Project> loadProject(const fs::path &directory) {
  ProjectFile read;
  KB_RETURN_IF_ERROR(readProjectFile(directory, read));
  KB_ASSIGN_OR_RETURN(
      std::vector<fs::path> manifests,
      findManifests(*read.file, *read.projectTable, read.project));
  KB_RETURN_IF_ERROR(loadKernels(manifests, read.project));
  return std::move(read.project);
}

} // namespace kb::workbench

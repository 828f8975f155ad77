//===- workbench/build/declared_figures.h - Declared figures in -----------===//
//
// `kernel-bench build` records each job's bench::KernelDeclared
// (runtime/bench/declared.h) in build.json as `jobs[].declared`; a bench worker
// reads them back by the sha256 of the object it runs (as build_resources.h
// does for ptxas's figures), so a GPU host needs neither the kernel.toml nor
// the project.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_DECLARED_FIGURES_H_
#define KB_WORKBENCH_BUILD_DECLARED_FIGURES_H_

#include "common/status.h"
#include "runtime/bench/declared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kb::workbench {

/// `jobs[].declared`: null when the kernel declares nothing.
nlohmann::ordered_json declaredJson(const bench::KernelDeclared &declared);

/// A job's kernel and what it declares (empty when nothing).
struct JobDeclared {
  std::string kernel;
  bench::KernelDeclared declared;
};

/// sha256 of an object file -> every job that wrote it: kernels of one
/// source that share a compile can write the same bytes.
using DeclaredByObject = std::map<std::string, std::vector<JobDeclared>>;

/// Reads |buildJson|: every job with its outputs (a job without `declared`,
/// written before it existed, declares nothing). InvalidArgument for a file
/// this version cannot read or a `declared` of the wrong shape (naming the
/// job); NotFound when it does not exist.
StatusOr<DeclaredByObject>
readDeclaredFigures(const std::filesystem::path &buildJson);

/// What the kernel of the object |sha256| declares, run as executable
/// |executable|: the job of the kernel named so (a standalone kernel's
/// executable is its name), else the only job that wrote the object. Null
/// when none did; null with |ambiguity| set when several kernels did and
/// none is named |executable|.
const bench::KernelDeclared *findDeclared(const DeclaredByObject &byObject,
                                          const std::string &sha256,
                                          const std::string &executable,
                                          std::string &ambiguity);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_DECLARED_FIGURES_H_

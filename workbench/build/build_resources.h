//===- workbench/build/build_resources.h - ptxas figures of a build's -----===//
//
// `kernel-bench build` records, per job, the objects it wrote (with their
// sha256) and what ptxas reported for the kernel (registers, spills, stack,
// shared memory) in build.json. A benchmark variant names its object by the
// same sha256 (the bytes substituted into the module are the object file's),
// so `bench` reports the build's figures next to the timings without running
// ptxas again (a GPU host has none).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_RESOURCES_H_
#define KB_WORKBENCH_BUILD_BUILD_RESOURCES_H_

#include "common/status.h"
#include "toolchains/kernel_builder.h"

#include <filesystem>
#include <map>
#include <string>

namespace kb::workbench {

/// sha256 of an object file -> ptxas's resource usage of its kernel.
using ObjectResources = std::map<std::string, toolchains::ResourceUsage>;

/// Reads |buildJson| (OUT/build.json). Jobs without resources (SPIR-V,
/// failed) add nothing. InvalidArgument when the file is not a build.json
/// this version can read (not JSON, a newer schema, wrong field types);
/// NotFound when it does not exist.
StatusOr<ObjectResources>
readObjectResources(const std::filesystem::path &buildJson);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_RESOURCES_H_

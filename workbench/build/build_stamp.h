//===- workbench/build/build_stamp.h - A no-op build that only stats ------===//
//
// Ninja decides that there is nothing to do from stat() alone, and so does
// `kernel-bench build`: a build that succeeded leaves OUT/.kernel-bench-stamp
// with
//  * a key: what the command line and the environment ask for (the project,
//    the output and cache directories, targets, --strict, --timeout,
//    --tool-memory, --kernels-only, the variables that decide where tools
//    and caches are);
//  * what stat() said, when the build ended, of every path its results
//    depend on: workbench.toml and each kernel.toml (and tuned.toml, present
//    or not), every file the cache hashed (sources, each header a compile
//    read, the program, references, .npy data, kernel-bench itself), the
//    tools it ran, the directories whose listings decided what the project
//    and the tool search found, and every output it wrote;
//  * the figures of its summary line.
// The next build with the same key that finds every path as recorded has
// nothing to do: it prints the same summary line and ends, without loading
// the kernels, opening the cache or starting a process. Anything else (no
// stamp, another key, one path changed, a corrupted stamp) runs the full
// build, whose cache lookups re-check contents, and which writes build.json
// only when the record changed.
//
// Not stamped, so always fully checked: a build that failed, was
// interrupted, skipped a target or printed a warning (the full check prints
// it again), with --no-cache, of a project made in memory (tune), and one
// that found an input modified less than a second before it started (it
// could change again within the same timestamp tick and look the same:
// git's "racily clean" files).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_BUILD_STAMP_H_
#define KB_WORKBENCH_BUILD_BUILD_STAMP_H_

#include "workbench/build/build_request.h"
#include "workbench/build/build_summary.h"

#include "common/status.h"

#include <chrono>
#include <filesystem>
#include <string>

namespace kb::workbench {

struct BuildSession;

inline constexpr const char *kBuildStampName = ".kernel-bench-stamp";

/// Whether a build of |request| leaves a stamp and may be decided by one: a
/// project read from disk, with the cache (--no-cache asks to check
/// everything again). A --verbose build leaves one but is never decided by
/// it: it prints every job.
bool stampable(const BuildRequest &request);

/// sha256 of what |request| and the environment ask for (not --jobs, which
/// changes no result).
std::string buildStampKey(const BuildRequest &request);

/// The figures of the build |outputDir|'s stamp vouches for, when it has
/// |key| and every path it lists is as it was; otherwise why not (the first
/// difference found: `--explain` prints it).
StatusOr<BuildSummaryFigures>
checkBuildStamp(const std::filesystem::path &outputDir, const std::string &key);

/// Writes the stamp of a build that ended with |report| (build.json
/// written; |warned|: it gave the user a warning) when it qualifies (see
/// above), unless the stamp there already says the same. One that does not
/// qualify leaves the stamp alone: it no longer matches what this build found.
/// The error says why none was written.
Status recordBuildStamp(const BuildSession &session, const BuildReport &report,
                        bool warned, const std::string &key,
                        std::chrono::system_clock::time_point started);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_BUILD_STAMP_H_

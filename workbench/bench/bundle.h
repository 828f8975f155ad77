//===- workbench/bench/bundle.h - What a GPU runner needs, in one file
//-----------===//
//
// `kernel-bench bundle BUILD -o OUT.tar` packs the benchmark modules of a
// build (bench_plan.h: benchModuleFiles) and its build.json into one POSIX
// ustar archive (common/ustar.h), led by a manifest in `sha256sum` format:
//
//   kernel-bench-bundle.sha256
//     # kernel-bench bundle 1
//     # bytes 2841 build.json       (sizes: comments to `sha256sum -c`)
//     <sha256>  build.json
//     <sha256>  bench/saxpy_1048576x1x1.kbm
//     ...
//
// No sources and no toolchain outputs other than the modules (which embed
// every variant's object) and the .npy files of kernels' fixed inputs and
// expected outputs that build.json records (`standalone/K/data/*/*.npy`),
// listed and checked like the modules. `kernel-bench bench BUNDLE.tar` opens it
// with openBundle: every member's name and size are checked against the
// manifest from its header before it is read, then it is streamed (never
// held in memory) and hashed into a private directory
// (toolchains/scratch_dir.h) removed when the OpenedBundle goes away. The bench
// worker is a separate process that loads modules by path, so a directory it
// can read is what it needs; docs/ci.md says why the format is plain ustar.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_BUNDLE_H_
#define KB_WORKBENCH_BENCH_BUNDLE_H_

#include "common/status.h"
#include "toolchains/scratch_dir.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

/// The first member of every bundle, and its first line.
inline constexpr const char *kBundleManifestName = "kernel-bench-bundle.sha256";
inline constexpr int kBundleFormatVersion = 1;

struct BundleMember {
  std::string name; // relative, '/'-separated: "bench/x.kbm"
  std::string sha256;
  uint64_t bytes = 0;
};

/// What createBundle wrote.
struct BundleSummary {
  std::vector<BundleMember> members; // manifest not included
  uint64_t archiveBytes = 0;
};

/// Packs |buildDir| into |archive| (atomically). FailedPrecondition when the
/// directory has no build.json or no benchmark module.
StatusOr<BundleSummary> createBundle(const std::filesystem::path &buildDir,
                                     const std::filesystem::path &archive);

/// A bundle checked and extracted into a private directory.
class OpenedBundle {
public:
  /// The build directory the bundle holds (build.json, bench/, ...).
  std::filesystem::path root() const { return scratch_.path() / "bundle"; }
  const std::filesystem::path &archive() const { return archive_; }
  const std::vector<BundleMember> &members() const { return members_; }

  /// |path| under root() as the bundle names it: "ARCHIVE:bench/x.kbm";
  /// other paths unchanged. For reports, which outlive the directory.
  std::string displayPath(const std::string &path) const;

private:
  friend StatusOr<OpenedBundle> openBundle(const std::filesystem::path &);
  OpenedBundle(toolchains::ScratchDir scratch, std::filesystem::path archive)
      : scratch_(std::move(scratch)), archive_(std::move(archive)) {}
  toolchains::ScratchDir scratch_;
  std::filesystem::path archive_;
  std::vector<BundleMember> members_;
};

/// Checks and extracts |archive|. InvalidArgument for something that is not
/// a bundle (or a member the manifest does not list, a path-traversal name,
/// a link); DataLoss for a truncated archive or a member whose sha256 does
/// not match (naming the member); FailedPrecondition for a newer bundle
/// format.
StatusOr<OpenedBundle> openBundle(const std::filesystem::path &archive);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_BUNDLE_H_

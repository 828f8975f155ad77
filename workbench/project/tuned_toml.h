//===- workbench/project/tuned_toml.h - tuned.toml, what `tune` chose -----===//
//
// `kernel-bench tune` writes the best configuration per device model into
// tuned.toml beside the kernel.toml (human-readable, diff-able, one
// `[[best]]` entry per device model); `build` reads it
// (kernel_toml_tune.h) for the defaults of the tuned names.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_TUNED_TOML_H_
#define KB_WORKBENCH_PROJECT_TUNED_TOML_H_

#include "common/status.h"
#include "workbench/project/tune_space.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

struct TunedEntry {
  std::string device;  // the device model ("llvmpipe (LLVM 15.0.6, 256 bits)")
  std::string backend; // "cuda" or "vulkan": which source it applies to
  std::string target;  // the target it was built for ("vulkan:1.2")
  std::optional<double> medianNs;
  TuneValues values;
  std::string where; // `tuned.toml:LINE:COL` of the entry, when read
};

/// Reads |path|. Every value must be a tuned name of |space| and one of
/// the values [tune] gives it (an error naming it, the tuned names or the
/// values otherwise): a value `tune` never measured is not used silently.
StatusOr<std::vector<TunedEntry>>
readTunedToml(const std::filesystem::path &path, const TuneSpace &space);

/// Writes |entries| to |path| atomically, with a comment saying what wrote
/// it and what `build` does with it.
Status writeTunedToml(const std::filesystem::path &path,
                      const std::vector<TunedEntry> &entries);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_TUNED_TOML_H_

//===- toolchains/target.h - Build targets (cuda:sm_90, vulkan:1.2) -------===//
#ifndef KB_TOOLCHAINS_TARGET_H_
#define KB_TOOLCHAINS_TARGET_H_

#include "common/status.h"

#include <string>
#include <string_view>

namespace kb::toolchains {

/// A build target: `cuda:sm_XX` (nvcc/ptxas architecture) or `vulkan:X.Y`
/// (Vulkan environment for glslc/spirv-val).
struct Target {
  enum class Kind { Cuda, Vulkan };
  Kind kind = Kind::Cuda;
  /// "sm_90" for CUDA; "1.2" for Vulkan.
  std::string arch;

  /// "cuda:sm_90" / "vulkan:1.2" (the spelling users write).
  std::string toString() const;
  /// File stem of outputs: "sm_90" / "vulkan1.2".
  std::string fileStem() const;
  /// Vulkan only: "vulkan1.2" (the --target-env value).
  std::string vulkanEnv() const;

  /// Parses a user spelling. The error lists the valid forms
  /// (cuda:sm_75 ... sm_121, vulkan:1.0 ... 1.3).
  static StatusOr<Target> parse(std::string_view text);

  bool operator==(const Target &o) const {
    return kind == o.kind && arch == o.arch;
  }
  bool operator<(const Target &o) const {
    return kind != o.kind ? kind < o.kind : arch < o.arch;
  }
};

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_TARGET_H_

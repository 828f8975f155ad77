//===- common/target.h - What a kernel is built for (cuda:sm_90, vulkan:1.2) =//
//
// The one model of a build target for toolchains/, compiler/ and runtime/:
// its spellings (`cuda:sm_90` on command lines and in TOML, `sm_90` /
// `vulkan1.2` as the architecture that nvcc, glslc, the kb dialect's
// `target(...)` and .kbm variants carry), the names derived from it (variant
// `cuda_sm_90`, file stem `sm_90`), the set of valid targets with the one
// message that lists them, and, for Vulkan, the SPIR-V version and
// capabilities an environment takes. Every `sm_XX` and every Vulkan -> SPIR-V
// version question in the project is answered here.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_TARGET_H_
#define KB_COMMON_TARGET_H_

#include "common/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// `sm_90` -> {90, 0}, `sm_90a` -> {90, 'a'}, `sm_100f` -> {100, 'f'}.
struct SmArch {
  int number = 0;
  /// 0, 'a' (architecture-specific features) or 'f' (family features).
  char suffix = 0;
};

/// Reads `sm_<1-3 digits>[a|f]` without checking that such a GPU exists: the
/// form a PTX `.target` or a .kbm variant carries, which may name an
/// architecture older than any valid Target (PTX JIT-compiles forward).
/// nullopt when |text| is not of that form. Target::parse adds the range
/// check.
std::optional<SmArch> parseSmArch(std::string_view text);

/// A SPIR-V capability by its enum value in the SPIR-V specification, with its
/// name for messages.
struct SpirvCapability {
  uint32_t id = 0;
  const char *name = "";
};

/// What the compiler may declare in a SPIR-V module for a Vulkan environment.
struct SpirvEnvironment {
  /// The newest SPIR-V version the environment consumes (0x00010500 = 1.5).
  uint32_t version = 0;
  /// Capabilities generated kernels may use (the scalar widths of the kernel
  /// ABI's element and constant types).
  std::vector<SpirvCapability> capabilities;
  /// SPIR-V extensions those capabilities need in this environment.
  std::vector<std::string> extensions;
};

/// The newest SPIR-V version Vulkan |major|.|minor| consumes: 1.0 -> 1.0,
/// 1.1 -> 1.3, 1.2 -> 1.5, 1.3 and newer -> 1.6 (Vulkan spec, "SPIR-V
/// Environment"). Used for build targets and for a device's API version alike.
uint32_t maxSpirvVersionForVulkan(uint32_t major, uint32_t minor);

/// 0x00010500 -> "1.5".
std::string spirvVersionText(uint32_t version);

/// Every valid target, for messages: "cuda:sm_75, cuda:sm_80, ..., vulkan:1.3"
/// with the suffix rule.
std::string validTargetsText();

/// A valid build target. Only the factories make one (and the default
/// constructor, a valid one too), so every Target in the program names an
/// architecture CUDA 13 compiles for (sm_75 ... sm_121, the list of `nvcc
/// --list-gpu-code`) or a Vulkan environment glslc and spirv-val accept (1.0
/// ... 1.3).
class Target {
public:
  enum class Kind : uint8_t { Cuda, Vulkan };

  /// cuda:sm_75, the oldest valid target: records that hold a Target can be
  /// default-constructed and filled in later.
  Target() : Target(Kind::Cuda, 75, 0) {}

  /// `cuda:sm_90`, `cuda:sm_90a`, `cuda:sm_100f`, `vulkan:1.2`. The error
  /// names |text|, says what is wrong and lists the valid targets.
  static StatusOr<Target> parse(std::string_view text);
  /// The architecture spelling of |kind|: `sm_90a` for Cuda, `vulkan1.2` for
  /// Vulkan (the kb dialect's `target(cuda, "sm_90")`, a .kbm variant).
  static StatusOr<Target> fromArch(Kind kind, std::string_view arch);
  static StatusOr<Target> cuda(int sm, char suffix = 0);
  static StatusOr<Target> vulkan(uint32_t major, uint32_t minor);

  Kind kind() const { return kind_; }
  bool isCuda() const { return kind_ == Kind::Cuda; }
  bool isVulkan() const { return kind_ == Kind::Vulkan; }
  /// "cuda" / "vulkan".
  const char *kindName() const;

  /// CUDA: 90 for sm_90a. 0 for Vulkan.
  int smNumber() const { return isCuda() ? static_cast<int>(first_) : 0; }
  /// CUDA: 0, 'a' or 'f'. 0 for Vulkan.
  char smSuffix() const { return isCuda() ? static_cast<char>(second_) : 0; }
  /// Vulkan: 1 and 2 for vulkan:1.2. 0 for CUDA.
  uint32_t vulkanMajor() const { return isVulkan() ? first_ : 0; }
  uint32_t vulkanMinor() const { return isVulkan() ? second_ : 0; }

  /// "cuda:sm_90" / "vulkan:1.2": what users write; parse(toString()) == *this.
  std::string toString() const;
  /// "sm_90" / "vulkan1.2": nvcc/ptxas `-arch`, glslc/spirv-val
  /// `--target-env`, the kb dialect's `target(...)`, a .kbm variant's target;
  /// fromArch(kind(), arch()) == *this.
  std::string arch() const;
  /// The stem of build outputs ("sm_90.ptx", "vulkan1.2.spv").
  std::string fileStem() const { return arch(); }
  /// The kb.variant symbol the compiler gives the target: "cuda_sm_90",
  /// "vulkan_1_2".
  std::string variantName() const;
  /// Vulkan only: the SPIR-V version and capabilities of the environment.
  SpirvEnvironment spirvEnvironment() const;

  bool operator==(const Target &o) const {
    return kind_ == o.kind_ && first_ == o.first_ && second_ == o.second_;
  }
  bool operator!=(const Target &o) const { return !(*this == o); }
  /// CUDA before Vulkan, then by number (sm_90 < sm_90a < sm_100).
  bool operator<(const Target &o) const {
    if (kind_ != o.kind_)
      return kind_ < o.kind_;
    return first_ != o.first_ ? first_ < o.first_ : second_ < o.second_;
  }

private:
  Target(Kind kind, uint32_t first, uint32_t second)
      : kind_(kind), first_(first), second_(second) {}
  Kind kind_;
  uint32_t first_;  // SM number / Vulkan major
  uint32_t second_; // SM suffix / Vulkan minor
};

} // namespace kb

#endif // KB_COMMON_TARGET_H_

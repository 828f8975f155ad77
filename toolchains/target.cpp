//===- toolchains/target.cpp - Build targets ------------------------------===//

#include "toolchains/target.h"

#include <algorithm>
#include <cctype>

namespace kb::toolchains {
namespace {

// `nvcc --list-gpu-code` of CUDA 13.0: sm_75 is the oldest architecture it
// accepts. The `a` (architecture-specific features) forms exist from sm_90,
// the `f` (family) forms from sm_100 (checked with nvcc 13.0).
constexpr int kCudaArchs[] = {75, 80,  86,  87,  88,  89,
                              90, 100, 103, 110, 120, 121};
constexpr const char *kVulkanVersions[] = {"1.0", "1.1", "1.2", "1.3"};

std::string validForms() {
  std::string cuda;
  for (int arch : kCudaArchs)
    cuda +=
        (cuda.empty() ? "" : ", ") + std::string("sm_") + std::to_string(arch);
  return "expected cuda:sm_XX with XX one of " + cuda +
         " (sm_XXa for XX >= 90, sm_XXf for XX >= 100), or vulkan:1.0, "
         "vulkan:1.1, vulkan:1.2, vulkan:1.3";
}

bool isKnownCudaArch(int arch) {
  return std::find(std::begin(kCudaArchs), std::end(kCudaArchs), arch) !=
         std::end(kCudaArchs);
}

} // namespace

std::string Target::toString() const {
  return (kind == Kind::Cuda ? "cuda:" : "vulkan:") + arch;
}

std::string Target::fileStem() const {
  return kind == Kind::Cuda ? arch : vulkanEnv();
}

std::string Target::vulkanEnv() const {
  return kind == Kind::Vulkan ? "vulkan" + arch : std::string();
}

StatusOr<Target> Target::parse(std::string_view text) {
  auto fail = [&](const std::string &why) -> Status {
    return invalidArgument("invalid target `" + std::string(text) +
                           "`: " + why + "; " + validForms());
  };
  size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail("missing `cuda:` or `vulkan:` prefix");
  std::string_view kind = text.substr(0, colon);
  std::string_view arch = text.substr(colon + 1);
  Target target;
  if (kind == "cuda") {
    target.kind = Kind::Cuda;
    if (arch.substr(0, 3) != "sm_")
      return fail("CUDA targets name a real architecture (`sm_XX`)");
    std::string_view rest = arch.substr(3);
    char suffix = 0;
    if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
      suffix = rest.back();
      rest.remove_suffix(1);
    }
    if (rest.empty() || rest.size() > 3 ||
        !std::all_of(rest.begin(), rest.end(),
                     [](char c) { return std::isdigit((unsigned char)c); }))
      return fail("`" + std::string(arch) + "` is not of the form sm_XX");
    int number = std::stoi(std::string(rest));
    if (!isKnownCudaArch(number))
      return fail("sm_" + std::string(rest) +
                  " is not an architecture CUDA 13 compiles for");
    if ((suffix == 'a' && number < 90) || (suffix == 'f' && number < 100))
      return fail("sm_" + std::string(rest) + suffix + " does not exist");
    target.arch = std::string(arch);
    return target;
  }
  if (kind == "vulkan") {
    target.kind = Kind::Vulkan;
    if (std::find(std::begin(kVulkanVersions), std::end(kVulkanVersions),
                  arch) == std::end(kVulkanVersions))
      return fail("unsupported Vulkan version `" + std::string(arch) + "`");
    target.arch = std::string(arch);
    return target;
  }
  return fail("unknown target kind `" + std::string(kind) + "`");
}

} // namespace kb::toolchains

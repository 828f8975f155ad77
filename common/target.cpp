//===- common/target.cpp - What a kernel is built for ---------------------===//
#include "common/target.h"

#include <algorithm>
#include <iterator>

namespace kb {
namespace {

// `nvcc --list-gpu-code` of CUDA 13.0: sm_75 is the oldest architecture it
// accepts and sm_121 the newest. A range would admit numbers no GPU has
// (sm_76), which nvcc and ptxas then refuse with their own message.
constexpr int kCudaArchs[] = {75, 80,  86,  87,  88,  89,
                              90, 100, 103, 110, 120, 121};
// The `a` (architecture-specific) forms exist from sm_90, the `f` (family)
// forms from sm_100 (checked with nvcc 13.0).
constexpr int kFirstSmWithA = 90;
constexpr int kFirstSmWithF = 100;
// The environments glslc and spirv-val of Debian 12 accept: vulkan1.0 ...
// vulkan1.3.
constexpr uint32_t kNewestVulkanMinor = 3;

bool isKnownCudaArch(int sm) {
  return std::find(std::begin(kCudaArchs), std::end(kCudaArchs), sm) !=
         std::end(kCudaArchs);
}

bool isDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

Status invalidTarget(std::string_view text, const std::string &why) {
  return invalidArgument("invalid target `" + std::string(text) + "`: " + why +
                         "; valid targets: " + validTargetsText());
}

/// Checks |sm| + |suffix| against the list; |text| is what the user wrote.
StatusOr<Target> checkedCuda(std::string_view text, SmArch arch) {
  std::string name = "sm_" + std::to_string(arch.number);
  if (!isKnownCudaArch(arch.number))
    return invalidTarget(text,
                         name + " is not an architecture CUDA 13 compiles for");
  if ((arch.suffix == 'a' && arch.number < kFirstSmWithA) ||
      (arch.suffix == 'f' && arch.number < kFirstSmWithF))
    return invalidTarget(text, name + arch.suffix + " does not exist");
  return Target::cuda(arch.number, arch.suffix);
}

/// "1.2" -> vulkan:1.2; |text| is what the user wrote.
StatusOr<Target> checkedVulkan(std::string_view text,
                               std::string_view version) {
  size_t dot = version.find('.');
  std::string_view major = version.substr(0, dot);
  std::string_view minor =
      dot == std::string_view::npos ? "" : version.substr(dot + 1);
  if (major != "1" || minor.size() != 1 || !isDigits(minor) ||
      uint32_t(minor[0] - '0') > kNewestVulkanMinor)
    return invalidTarget(text, "unsupported Vulkan version `" +
                                   std::string(version) + "`");
  return Target::vulkan(1, minor[0] - '0');
}

} // namespace

std::optional<SmArch> parseSmArch(std::string_view text) {
  if (text.substr(0, 3) != "sm_")
    return std::nullopt;
  std::string_view rest = text.substr(3);
  SmArch arch;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    arch.suffix = rest.back();
    rest.remove_suffix(1);
  }
  // No leading zero, so that every accepted spelling prints back the same.
  if (!isDigits(rest) || rest.size() > 3 || rest[0] == '0')
    return std::nullopt;
  for (char c : rest)
    arch.number = arch.number * 10 + (c - '0');
  return arch;
}

uint32_t maxSpirvVersionForVulkan(uint32_t major, uint32_t minor) {
  if (major > 1 || minor >= 3)
    return 0x00010600;
  if (minor == 2)
    return 0x00010500;
  if (minor == 1)
    return 0x00010300;
  return 0x00010000;
}

std::string spirvVersionText(uint32_t version) {
  return std::to_string((version >> 16) & 0xff) + "." +
         std::to_string((version >> 8) & 0xff);
}

std::string validTargetsText() {
  std::string text;
  for (int sm : kCudaArchs)
    text +=
        std::string(text.empty() ? "" : ", ") + "cuda:sm_" + std::to_string(sm);
  text += " (also sm_XXa from sm_" + std::to_string(kFirstSmWithA) +
          ", sm_XXf from sm_" + std::to_string(kFirstSmWithF) + "), ";
  for (uint32_t minor = 0; minor <= kNewestVulkanMinor; ++minor)
    text += "vulkan:1." + std::to_string(minor) +
            (minor == kNewestVulkanMinor ? "" : ", ");
  return text;
}

StatusOr<Target> Target::parse(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return invalidTarget(text, "missing `cuda:` or `vulkan:` prefix");
  std::string_view kind = text.substr(0, colon);
  std::string_view arch = text.substr(colon + 1);
  if (kind == "cuda") {
    std::optional<SmArch> sm = parseSmArch(arch);
    if (!sm)
      return invalidTarget(text, "`" + std::string(arch) +
                                     "` is not of the form sm_XX (CUDA "
                                     "targets name a real architecture)");
    return checkedCuda(text, *sm);
  }
  if (kind == "vulkan")
    return checkedVulkan(text, arch);
  return invalidTarget(text, "unknown target kind `" + std::string(kind) +
                                 "` (expected `cuda` or `vulkan`)");
}

StatusOr<Target> Target::fromArch(Kind kind, std::string_view arch) {
  if (kind == Kind::Cuda) {
    std::optional<SmArch> sm = parseSmArch(arch);
    if (!sm)
      return invalidTarget(arch, "a CUDA architecture is of the form sm_XX");
    return checkedCuda(arch, *sm);
  }
  if (arch.substr(0, 6) != "vulkan")
    return invalidTarget(arch, "a Vulkan environment is of the form vulkan1.X");
  return checkedVulkan(arch, arch.substr(6));
}

StatusOr<Target> Target::cuda(int sm, char suffix) {
  if (!isKnownCudaArch(sm) || (suffix != 0 && suffix != 'a' && suffix != 'f') ||
      (suffix == 'a' && sm < kFirstSmWithA) ||
      (suffix == 'f' && sm < kFirstSmWithF)) {
    std::string name = "cuda:sm_" + std::to_string(sm);
    if (suffix)
      name += suffix;
    return invalidTarget(name, "no such CUDA architecture");
  }
  return Target(Kind::Cuda, sm, static_cast<unsigned char>(suffix));
}

StatusOr<Target> Target::vulkan(uint32_t major, uint32_t minor) {
  if (major != 1 || minor > kNewestVulkanMinor) {
    std::string name =
        "vulkan:" + std::to_string(major) + "." + std::to_string(minor);
    return invalidTarget(name, "unsupported Vulkan version");
  }
  return Target(Kind::Vulkan, major, minor);
}

const char *Target::kindName() const { return isCuda() ? "cuda" : "vulkan"; }

std::string Target::toString() const {
  if (isCuda())
    return "cuda:" + arch();
  return "vulkan:" + std::to_string(first_) + "." + std::to_string(second_);
}

std::string Target::arch() const {
  if (isCuda()) {
    std::string text = "sm_" + std::to_string(first_);
    if (second_)
      text += static_cast<char>(second_);
    return text;
  }
  return "vulkan" + std::to_string(first_) + "." + std::to_string(second_);
}

std::string Target::variantName() const {
  if (isCuda())
    return "cuda_" + arch();
  return "vulkan_" + std::to_string(first_) + "_" + std::to_string(second_);
}

SpirvEnvironment Target::spirvEnvironment() const {
  SpirvEnvironment env;
  if (!isVulkan())
    return env;
  env.version = maxSpirvVersionForVulkan(first_, second_);
  // Core Vulkan 1.0 offers 16/64-bit integers and doubles as device features.
  env.capabilities = {
      {1, "Shader"}, {22, "Int16"}, {11, "Int64"}, {10, "Float64"}};
  // Storage buffers need the StorageBuffer storage class, an extension before
  // SPIR-V 1.3 (core in Vulkan 1.1).
  env.extensions = {"SPV_KHR_storage_buffer_storage_class"};
  if (second_ >= 1) { // VK_KHR_16bit_storage became core in Vulkan 1.1
    env.capabilities.push_back({4433, "StorageBuffer16BitAccess"});
    env.extensions.push_back("SPV_KHR_16bit_storage");
  }
  if (second_ >= 2) { // VK_KHR_shader_float16_int8, VK_KHR_8bit_storage: 1.2
    env.capabilities.push_back({9, "Float16"});
    env.capabilities.push_back({39, "Int8"});
    env.capabilities.push_back({4448, "StorageBuffer8BitAccess"});
    env.extensions.push_back("SPV_KHR_8bit_storage");
  }
  return env;
}

} // namespace kb

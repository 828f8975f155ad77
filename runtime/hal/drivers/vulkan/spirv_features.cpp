//===- runtime/hal/drivers/vulkan/spirv_features.cpp - What SPIR-V needs --===//
#include "runtime/hal/drivers/vulkan/spirv_features.h"

#include "common/target.h"

#include <cstring>
#include <utility>

namespace kb::hal::vulkan {

namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpCapability = 17;
// Instructions allowed between the capabilities/extensions and the end of
// the preamble we read: OpExtInstImport (11), OpMemoryModel (14) ends it.
constexpr uint32_t kOpMemoryModel = 14;

using Predicate = bool (*)(const EnabledFeatures &);

struct CapabilityRule {
  uint32_t id;
  const char *name;
  const char *needs; // the feature or version, for the message
  Predicate ok;
};

bool always(const EnabledFeatures &) { return true; }

#define KB_FEATURE(id, name, path)                                             \
  {                                                                            \
    id, name, #path,                                                           \
        [](const EnabledFeatures &f) -> bool { return f.path == VK_TRUE; }     \
  }
#define KB_SUBGROUP(id, name, bit)                                             \
  {                                                                            \
    id, name, "subgroup operation " #bit " in the compute stage",              \
        [](const EnabledFeatures &f) -> bool {                                 \
          return (f.computeSubgroupOperations & bit) != 0;                     \
        }                                                                      \
  }
#define KB_VERSION(id, name, major, minor)                                     \
  {                                                                            \
    id, name, "Vulkan " #major "." #minor,                                     \
        [](const EnabledFeatures &f) -> bool {                                 \
          return f.apiVersion >= VK_MAKE_API_VERSION(0, major, minor, 0);      \
        }                                                                      \
  }

// Capabilities a compute kernel may declare on a device with no extensions
// enabled (Vulkan spec, "SPIR-V Environment", capabilities table).
const CapabilityRule kCapabilities[] = {
    {0, "Matrix", "Vulkan 1.0", always},
    {1, "Shader", "Vulkan 1.0", always},
    KB_FEATURE(9, "Float16", v12.shaderFloat16),
    KB_FEATURE(10, "Float64", core.shaderFloat64),
    KB_FEATURE(11, "Int64", core.shaderInt64),
    {12, "Int64Atomics",
     "v12.shaderBufferInt64Atomics (or shaderSharedInt64Atomics)",
     [](const EnabledFeatures &f) -> bool {
       return f.v12.shaderBufferInt64Atomics || f.v12.shaderSharedInt64Atomics;
     }},
    KB_FEATURE(22, "Int16", core.shaderInt16),
    KB_FEATURE(27, "StorageImageMultisample",
               core.shaderStorageImageMultisample),
    KB_FEATURE(28, "UniformBufferArrayDynamicIndexing",
               core.shaderUniformBufferArrayDynamicIndexing),
    KB_FEATURE(29, "SampledImageArrayDynamicIndexing",
               core.shaderSampledImageArrayDynamicIndexing),
    KB_FEATURE(30, "StorageBufferArrayDynamicIndexing",
               core.shaderStorageBufferArrayDynamicIndexing),
    KB_FEATURE(31, "StorageImageArrayDynamicIndexing",
               core.shaderStorageImageArrayDynamicIndexing),
    KB_FEATURE(39, "Int8", v12.shaderInt8),
    KB_FEATURE(41, "SparseResidency", core.shaderResourceResidency),
    KB_FEATURE(42, "MinLod", core.shaderResourceMinLod),
    {43, "Sampled1D", "Vulkan 1.0", always},
    {44, "Image1D", "Vulkan 1.0", always},
    {46, "SampledBuffer", "Vulkan 1.0", always},
    {47, "ImageBuffer", "Vulkan 1.0", always},
    {49, "StorageImageExtendedFormats", "Vulkan 1.0", always},
    {50, "ImageQuery", "Vulkan 1.0", always},
    KB_FEATURE(55, "StorageImageReadWithoutFormat",
               core.shaderStorageImageReadWithoutFormat),
    KB_FEATURE(56, "StorageImageWriteWithoutFormat",
               core.shaderStorageImageWriteWithoutFormat),
    KB_SUBGROUP(61, "GroupNonUniform", VK_SUBGROUP_FEATURE_BASIC_BIT),
    KB_SUBGROUP(62, "GroupNonUniformVote", VK_SUBGROUP_FEATURE_VOTE_BIT),
    KB_SUBGROUP(63, "GroupNonUniformArithmetic",
                VK_SUBGROUP_FEATURE_ARITHMETIC_BIT),
    KB_SUBGROUP(64, "GroupNonUniformBallot", VK_SUBGROUP_FEATURE_BALLOT_BIT),
    KB_SUBGROUP(65, "GroupNonUniformShuffle", VK_SUBGROUP_FEATURE_SHUFFLE_BIT),
    KB_SUBGROUP(66, "GroupNonUniformShuffleRelative",
                VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT),
    KB_SUBGROUP(67, "GroupNonUniformClustered",
                VK_SUBGROUP_FEATURE_CLUSTERED_BIT),
    KB_SUBGROUP(68, "GroupNonUniformQuad", VK_SUBGROUP_FEATURE_QUAD_BIT),
    KB_FEATURE(4433, "StorageBuffer16BitAccess", v11.storageBuffer16BitAccess),
    KB_FEATURE(4434, "UniformAndStorageBuffer16BitAccess",
               v11.uniformAndStorageBuffer16BitAccess),
    KB_FEATURE(4435, "StoragePushConstant16", v11.storagePushConstant16),
    KB_VERSION(4437, "DeviceGroup", 1, 1),
    KB_FEATURE(4441, "VariablePointersStorageBuffer",
               v11.variablePointersStorageBuffer),
    KB_FEATURE(4442, "VariablePointers", v11.variablePointers),
    KB_FEATURE(4448, "StorageBuffer8BitAccess", v12.storageBuffer8BitAccess),
    KB_FEATURE(4449, "UniformAndStorageBuffer8BitAccess",
               v12.uniformAndStorageBuffer8BitAccess),
    KB_FEATURE(4450, "StoragePushConstant8", v12.storagePushConstant8),
    KB_VERSION(4464, "DenormPreserve", 1, 2),
    KB_VERSION(4465, "DenormFlushToZero", 1, 2),
    KB_VERSION(4466, "SignedZeroInfNanPreserve", 1, 2),
    KB_VERSION(4467, "RoundingModeRTE", 1, 2),
    KB_VERSION(4468, "RoundingModeRTZ", 1, 2),
    KB_VERSION(5301, "ShaderNonUniform", 1, 2),
    KB_FEATURE(5302, "RuntimeDescriptorArray", v12.runtimeDescriptorArray),
    KB_FEATURE(5306, "UniformBufferArrayNonUniformIndexing",
               v12.shaderUniformBufferArrayNonUniformIndexing),
    KB_FEATURE(5307, "SampledImageArrayNonUniformIndexing",
               v12.shaderSampledImageArrayNonUniformIndexing),
    KB_FEATURE(5308, "StorageBufferArrayNonUniformIndexing",
               v12.shaderStorageBufferArrayNonUniformIndexing),
    KB_FEATURE(5309, "StorageImageArrayNonUniformIndexing",
               v12.shaderStorageImageArrayNonUniformIndexing),
    KB_FEATURE(5345, "VulkanMemoryModel", v12.vulkanMemoryModel),
    KB_FEATURE(5346, "VulkanMemoryModelDeviceScope",
               v12.vulkanMemoryModelDeviceScope),
    KB_FEATURE(5347, "PhysicalStorageBufferAddresses", v12.bufferDeviceAddress),
    KB_FEATURE(5379, "DemoteToHelperInvocation",
               v13.shaderDemoteToHelperInvocation),
    KB_FEATURE(6016, "DotProductInputAll", v13.shaderIntegerDotProduct),
    KB_FEATURE(6017, "DotProductInput4x8Bit", v13.shaderIntegerDotProduct),
    KB_FEATURE(6018, "DotProductInput4x8BitPacked",
               v13.shaderIntegerDotProduct),
    KB_FEATURE(6019, "DotProduct", v13.shaderIntegerDotProduct),
};

#undef KB_FEATURE
#undef KB_SUBGROUP
#undef KB_VERSION

struct ExtensionRule {
  const char *name;
  uint32_t minApiVersion; // the core version that promoted it
};

// SPIR-V extensions promoted to core Vulkan; others need a device extension
// this driver does not enable.
const ExtensionRule kExtensions[] = {
    {"SPV_KHR_storage_buffer_storage_class", VK_API_VERSION_1_1},
    {"SPV_KHR_variable_pointers", VK_API_VERSION_1_1},
    {"SPV_KHR_16bit_storage", VK_API_VERSION_1_1},
    {"SPV_KHR_device_group", VK_API_VERSION_1_1},
    {"SPV_KHR_multiview", VK_API_VERSION_1_1},
    {"SPV_KHR_shader_draw_parameters", VK_API_VERSION_1_1},
    {"SPV_KHR_8bit_storage", VK_API_VERSION_1_2},
    {"SPV_KHR_float_controls", VK_API_VERSION_1_2},
    {"SPV_KHR_vulkan_memory_model", VK_API_VERSION_1_2},
    {"SPV_KHR_physical_storage_buffer", VK_API_VERSION_1_2},
    {"SPV_KHR_no_integer_wrap_decoration", VK_API_VERSION_1_2},
    {"SPV_EXT_descriptor_indexing", VK_API_VERSION_1_2},
    {"SPV_EXT_shader_viewport_index_layer", VK_API_VERSION_1_2},
    {"SPV_KHR_non_semantic_info", VK_API_VERSION_1_3},
    {"SPV_KHR_terminate_invocation", VK_API_VERSION_1_3},
    {"SPV_EXT_demote_to_helper_invocation", VK_API_VERSION_1_3},
    {"SPV_KHR_integer_dot_product", VK_API_VERSION_1_3},
};

/// "v12.shaderInt8" -> "the Vulkan 1.2 feature shaderInt8".
std::string describeNeed(const char *needs) {
  std::string s(needs);
  static const std::pair<const char *, const char *> kPrefixes[] = {
      {"core.", "the device feature "},
      {"v11.", "the Vulkan 1.1 feature "},
      {"v12.", "the Vulkan 1.2 feature "},
      {"v13.", "the Vulkan 1.3 feature "}};
  for (const auto &[prefix, text] : kPrefixes)
    if (s.rfind(prefix, 0) == 0)
      return text + s.substr(std::strlen(prefix));
  return s;
}

std::string versionText(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

} // namespace

StatusOr<SpirvRequirements> readSpirvRequirements(std::string_view bytes) {
  if (bytes.size() < 20 || bytes.size() % 4 != 0)
    return invalidArgument(
        "SPIR-V must be at least 5 whole 32-bit words; got " +
        std::to_string(bytes.size()) + " bytes");
  size_t count = bytes.size() / 4;
  auto word = [&](size_t i) {
    uint32_t w;
    std::memcpy(&w, bytes.data() + i * 4, 4);
    return w;
  };
  if (word(0) != kMagic)
    return invalidArgument("not SPIR-V (magic word is not 0x07230203)");
  SpirvRequirements out;
  out.version = word(1);
  for (size_t i = 5; i < count;) {
    uint32_t first = word(i);
    uint32_t op = first & 0xffff, length = first >> 16;
    if (length == 0 || length > count - i)
      return invalidArgument("SPIR-V instruction at word " + std::to_string(i) +
                             " has word count " + std::to_string(length) +
                             ", which is zero or runs past the end");
    if (op == kOpCapability) {
      if (length != 2)
        return invalidArgument("OpCapability at word " + std::to_string(i) +
                               " has " + std::to_string(length) +
                               " words, expected 2");
      out.capabilities.push_back(word(i + 1));
    } else if (op == kOpExtension) {
      const char *text = bytes.data() + (i + 1) * 4;
      size_t maxLength = (length - 1) * 4;
      size_t n = strnlen(text, maxLength);
      if (n == maxLength)
        return invalidArgument("OpExtension at word " + std::to_string(i) +
                               " has an unterminated name");
      out.extensions.emplace_back(text, n);
    } else if (op == kOpMemoryModel) {
      break;
    }
    i += length;
  }
  return out;
}

Status checkSpirvRequirements(const SpirvRequirements &requirements,
                              const EnabledFeatures &features,
                              const std::string &deviceName,
                              const std::string &where) {
  std::vector<std::string> problems;
  uint32_t maxVersion =
      maxSpirvVersionForVulkan(VK_API_VERSION_MAJOR(features.apiVersion),
                               VK_API_VERSION_MINOR(features.apiVersion));
  if (requirements.version > maxVersion)
    problems.push_back("SPIR-V " + spirvVersionText(requirements.version) +
                       " is newer than the SPIR-V " +
                       spirvVersionText(maxVersion) + " that Vulkan " +
                       versionText(VK_API_VERSION_MAJOR(features.apiVersion),
                                   VK_API_VERSION_MINOR(features.apiVersion)) +
                       " takes; compile for an older --target-env");
  for (uint32_t id : requirements.capabilities) {
    const CapabilityRule *rule = nullptr;
    for (const CapabilityRule &r : kCapabilities)
      if (r.id == id)
        rule = &r;
    if (!rule) {
      problems.push_back("capability " + std::to_string(id) +
                         " is not one a compute kernel can use on core "
                         "Vulkan (it needs a device extension, which this "
                         "runtime does not enable, or is not for compute)");
      continue;
    }
    if (!rule->ok(features))
      problems.push_back(std::string("capability ") + rule->name + " (" +
                         std::to_string(id) + ") needs " +
                         describeNeed(rule->needs) +
                         ", which the device does not support");
  }
  for (const std::string &name : requirements.extensions) {
    const ExtensionRule *rule = nullptr;
    for (const ExtensionRule &r : kExtensions)
      if (name == r.name)
        rule = &r;
    if (!rule)
      problems.push_back("extension " + name +
                         " needs a Vulkan device extension, which this "
                         "runtime does not enable");
    else if (features.apiVersion < rule->minApiVersion)
      problems.push_back(
          "extension " + name + " needs Vulkan " +
          versionText(VK_API_VERSION_MAJOR(rule->minApiVersion),
                      VK_API_VERSION_MINOR(rule->minApiVersion)) +
          "; the device has " +
          versionText(VK_API_VERSION_MAJOR(features.apiVersion),
                      VK_API_VERSION_MINOR(features.apiVersion)));
  }
  if (problems.empty())
    return okStatus();
  std::string message = where + ": " + deviceName +
                        " cannot run this SPIR-V module (refused before any "
                        "driver call):";
  for (const std::string &p : problems)
    message += "\n  " + p;
  return invalidArgument(message);
}

} // namespace kb::hal::vulkan

//===- runtime/hal/drivers/vulkan/vulkan_executable.cpp - Pipelines -------===//
#include "runtime/hal/drivers/vulkan/vulkan_driver.h"

#include "common/spirv_reader.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace kb::hal::vulkan {

namespace {
constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr uint32_t kGLCompute = 5;

/// VkSpecializationInfo over |values|: one map entry per SpecId, the data
/// packed in order (little-endian, as the device reads it).
struct SpecializationData {
  explicit SpecializationData(const std::vector<SpecializationValue> &values) {
    for (const SpecializationValue &v : values) {
      VkSpecializationMapEntry entry{};
      entry.constantID = v.id;
      entry.offset = static_cast<uint32_t>(data.size());
      entry.size = v.size;
      entries.push_back(entry);
      for (uint32_t b = 0; b < v.size; ++b)
        data.push_back(static_cast<char>((v.bits >> (8 * b)) & 0xff));
    }
    info.mapEntryCount = static_cast<uint32_t>(entries.size());
    info.pMapEntries = entries.data();
    info.dataSize = data.size();
    info.pData = data.data();
  }
  SpecializationData(const SpecializationData &) = delete; // info points in
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<char> data;
  VkSpecializationInfo info{};
};

/// The compute stage of |abi|'s pipeline: entry, specialization constants
/// and the required subgroup size (checked against the device before).
/// |info| points into this object.
struct ComputeStage {
  ComputeStage(VkShaderModule module, const KernelAbi &abi)
      : specialization(abi.specialization) {
    info.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.module = module;
    info.pName = abi.entry.c_str();
    if (!abi.specialization.empty())
      info.pSpecializationInfo = &specialization.info;
    if (abi.subgroupSize) {
      subgroupSize.requiredSubgroupSize = abi.subgroupSize;
      info.pNext = &subgroupSize;
      if (abi.fullSubgroups)
        info.flags |=
            VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    }
  }
  ComputeStage(const ComputeStage &) = delete;
  SpecializationData specialization;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroupSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  VkPipelineShaderStageCreateInfo info{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
};
} // namespace

/// Set 0 of |abi|'s pipeline: storage buffer i at binding i, and the
/// uniform block of constants at its own binding (after them) when the
/// kernel takes its constants so.
static std::vector<VkDescriptorSetLayoutBinding>
setLayoutBindings(const KernelAbi &abi) {
  std::vector<VkDescriptorSetLayoutBinding> bindings(abi.bindings.size());
  for (uint32_t b = 0; b < bindings.size(); ++b) {
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  if (abi.uniformConstants) {
    VkDescriptorSetLayoutBinding uniform{};
    uniform.binding = abi.uniformConstants->binding;
    uniform.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    uniform.descriptorCount = 1;
    uniform.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(uniform);
  }
  return bindings;
}

/// Everything checked before any Vulkan call: untrusted input some drivers
/// crash on, and what drivers need not refuse (workgroup memory over the
/// limit, missing capabilities, another subgroup size).
static Status checkBeforeTheDriver(VulkanDevice &device,
                                   const ExecutableSpec &spec,
                                   const std::string &where) {
  if (spec.format != ExecutableFormat::Spirv)
    return unimplemented(where + ": the Vulkan driver loads SPIR-V, not " +
                         toString(spec.format));
  // Untrusted input: check what the driver would otherwise trip over (some
  // drivers crash on malformed SPIR-V) before any Vulkan call.
  if (spec.data.size() < 20 || spec.data.size() % 4 != 0)
    return invalidArgument(where +
                           ": SPIR-V must be a non-empty sequence of "
                           "32-bit words; got " +
                           std::to_string(spec.data.size()) + " bytes");
  uint32_t magic = 0;
  std::memcpy(&magic, spec.data.data(), 4);
  if (magic != kSpirvMagic)
    return invalidArgument(where +
                           ": not SPIR-V (magic word is not 0x07230203)");
  auto reflected = readSpirvBytes(spec.data);
  if (!reflected.ok())
    return reflected.status().withContext(where);
  if (spec.exports.empty())
    return invalidArgument(where + ": no exports");
  // Static workgroup memory (GLSL `shared`) is in the module, not the ABI:
  // drivers need not refuse a module over the device's limit (lavapipe
  // runs it and corrupts memory), so it is checked here, at load.
  uint32_t sharedLimit = device.properties().limits.maxSharedMemoryBytes;
  for (size_t i = 0; i < spec.exports.size(); ++i) {
    uint64_t shared = reflected->workgroupMemoryBytes +
                      spec.exports[i].dynamicSharedMemoryBytes;
    if (sharedLimit && shared > sharedLimit)
      return invalidArgument(
          where + " export " + std::to_string(i) + " (`" +
          spec.exports[i].entry + "`): " + std::to_string(shared) +
          " bytes of workgroup (shared) memory, but " +
          device.properties().name + " allows " + std::to_string(sharedLimit) +
          " per workgroup (maxComputeSharedMemorySize); refused before any "
          "driver call: use smaller shared arrays (tiles)");
  }
  // Capabilities and extensions the device lacks: drivers need not reject
  // them (Mesa's SPIR-V front end only warns), so they are refused here.
  auto requirements = readSpirvRequirements(spec.data);
  if (!requirements.ok())
    return requirements.status().withContext(where);
  std::string exportNames;
  for (const KernelAbi &abi : spec.exports)
    exportNames += (exportNames.empty() ? "`" : ", `") + abi.entry + "`";
  KB_RETURN_IF_ERROR(checkSpirvRequirements(
      *requirements, device.enabledFeatures(), device.properties().name,
      where + " (export" + (spec.exports.size() > 1 ? "s " : " ") +
          exportNames + ")"));
  for (size_t i = 0; i < spec.exports.size(); ++i) {
    const KernelAbi &abi = spec.exports[i];
    const SpirvEntryPoint *entry = reflected->findEntryPoint(abi.entry);
    if (!entry || entry->executionModel != kGLCompute)
      return invalidArgument(where + " export " + std::to_string(i) +
                             ": the SPIR-V has no GLCompute entry point `" +
                             abi.entry + "`");
    KB_RETURN_IF_ERROR(
        checkExportFitsDevice(spec.name, i, abi, device.properties().limits));
    // Two descriptors at one binding make an invalid set layout.
    if (abi.uniformConstants &&
        abi.uniformConstants->binding < abi.bindings.size())
      return invalidArgument(
          where + " export " + std::to_string(i) + " (`" + abi.entry +
          "`): its uniform block of constants is at binding " +
          std::to_string(abi.uniformConstants->binding) +
          ", a storage buffer's; it must follow them");
    // A kernel written for another subgroup size computes a wrong answer,
    // not an error: refused here, before any pipeline exists.
    KB_RETURN_IF_ERROR(
        checkSubgroupSize(spec.name, i, abi, device.properties()));
  }

  return okStatus();
}

StatusOr<std::shared_ptr<Executable>>
VulkanExecutable::create(VulkanDevice &device, const ExecutableSpec &spec) {
  std::string where = "executable `" + spec.name + "` (" + spec.target + ")";
  KB_RETURN_IF_ERROR(checkBeforeTheDriver(device, spec, where));
  std::unique_ptr<VulkanExecutable> exe(new VulkanExecutable(device, spec));
  const DeviceSymbols &s = device.syms();
  VkDevice vkDevice = device.handle();
  VkShaderModuleCreateInfo moduleInfo{
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = spec.data.size();
  moduleInfo.pCode = reinterpret_cast<const uint32_t *>(spec.data.data());
  VkResult result =
      s.vkCreateShaderModule(vkDevice, &moduleInfo, nullptr, &exe->module_);
  if (result != VK_SUCCESS)
    return invalidArgument(where +
                           ": the Vulkan driver rejected the SPIR-V "
                           "module: vkCreateShaderModule returned " +
                           std::string(vkResultName(result)));

  for (size_t i = 0; i < spec.exports.size(); ++i) {
    const KernelAbi &abi = spec.exports[i];
    ExportPipeline pipeline;
    std::vector<VkDescriptorSetLayoutBinding> bindings = setLayoutBindings(abi);
    VkDescriptorSetLayoutCreateInfo setInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = static_cast<uint32_t>(bindings.size());
    setInfo.pBindings = bindings.data();
    exe->pipelines_.push_back(pipeline);
    ExportPipeline &p = exe->pipelines_.back();
    KB_VK_RETURN_IF_ERROR(s.vkCreateDescriptorSetLayout(vkDevice, &setInfo,
                                                        nullptr, &p.setLayout),
                          "vkCreateDescriptorSetLayout");

    // Push-constant ranges are sized in whole words; a kernel that takes
    // its constants from a uniform block has none.
    if (abi.uniformConstants)
      p.uniformBinding = abi.uniformConstants->binding;
    else
      p.pushConstantBytes = (pushConstantSize(abi) + 3) & ~3u;
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              p.pushConstantBytes};
    VkPipelineLayoutCreateInfo layoutInfo{
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &p.setLayout;
    layoutInfo.pushConstantRangeCount = p.pushConstantBytes ? 1 : 0;
    layoutInfo.pPushConstantRanges = &range;
    KB_VK_RETURN_IF_ERROR(
        s.vkCreatePipelineLayout(vkDevice, &layoutInfo, nullptr, &p.layout),
        "vkCreatePipelineLayout");

    VkComputePipelineCreateInfo pipelineInfo{
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ComputeStage stage(exe->module_, abi);
    pipelineInfo.stage = stage.info;
    pipelineInfo.layout = p.layout;
    if (exe->captured_)
      pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    result = s.vkCreateComputePipelines(vkDevice, device.pipelineCache(), 1,
                                        &pipelineInfo, nullptr, &p.pipeline);
    if (result != VK_SUCCESS)
      return invalidArgument(where + " export " + std::to_string(i) + " (`" +
                             abi.entry +
                             "`): the Vulkan driver rejected the compute "
                             "pipeline: vkCreateComputePipelines returned " +
                             vkResultName(result));
  }
  return std::shared_ptr<Executable>(std::move(exe));
}

namespace {

/// A statistic as the driver typed it, and as a number.
DriverStatistic
describeStatistic(const VkPipelineExecutableStatisticKHR &statistic) {
  DriverStatistic out{statistic.name, statistic.description, "", 0};
  const VkPipelineExecutableStatisticValueKHR &v = statistic.value;
  switch (statistic.format) {
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
    out.number = v.b32 ? 1 : 0;
    out.value = v.b32 ? "true" : "false";
    break;
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
    out.number = static_cast<double>(v.i64);
    out.value = std::to_string(v.i64);
    break;
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
    out.number = static_cast<double>(v.u64);
    out.value = std::to_string(v.u64);
    break;
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: {
    out.number = v.f64;
    char text[32];
    std::snprintf(text, sizeof text, "%g", v.f64);
    out.value = text;
    break;
  }
  default:
    out.value = "?";
  }
  return out;
}

} // namespace

StatusOr<std::vector<DriverExecutable>>
VulkanExecutable::driverStatistics(size_t exportIndex) const {
  if (!captured_)
    return unavailable(device_.statisticsMissing().empty()
                           ? "the executable was created without "
                             "captureStatistics"
                           : device_.statisticsMissing());
  if (exportIndex >= pipelines_.size())
    return outOfRange("export " + std::to_string(exportIndex));
  const DeviceSymbols &s = device_.syms();
  if (!s.vkGetPipelineExecutablePropertiesKHR ||
      !s.vkGetPipelineExecutableStatisticsKHR)
    return unavailable("the driver does not resolve the "
                       "VK_KHR_pipeline_executable_properties commands");
  VkPipelineInfoKHR pipeline{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipeline.pipeline = pipelines_[exportIndex].pipeline;
  uint32_t count = 0;
  KB_VK_RETURN_IF_ERROR(s.vkGetPipelineExecutablePropertiesKHR(
                            device_.handle(), &pipeline, &count, nullptr),
                        "vkGetPipelineExecutablePropertiesKHR");
  std::vector<VkPipelineExecutablePropertiesKHR> properties(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  KB_VK_RETURN_IF_ERROR(
      s.vkGetPipelineExecutablePropertiesKHR(device_.handle(), &pipeline,
                                             &count, properties.data()),
      "vkGetPipelineExecutablePropertiesKHR");
  std::vector<DriverExecutable> out;
  for (uint32_t i = 0; i < count; ++i) {
    const VkPipelineExecutablePropertiesKHR &p = properties[i];
    DriverExecutable executable{p.name, p.description, p.subgroupSize, {}};
    VkPipelineExecutableInfoKHR info{
        VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    info.pipeline = pipeline.pipeline;
    info.executableIndex = i;
    uint32_t n = 0;
    KB_VK_RETURN_IF_ERROR(s.vkGetPipelineExecutableStatisticsKHR(
                              device_.handle(), &info, &n, nullptr),
                          "vkGetPipelineExecutableStatisticsKHR");
    std::vector<VkPipelineExecutableStatisticKHR> statistics(
        n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    KB_VK_RETURN_IF_ERROR(s.vkGetPipelineExecutableStatisticsKHR(
                              device_.handle(), &info, &n, statistics.data()),
                          "vkGetPipelineExecutableStatisticsKHR");
    for (uint32_t j = 0; j < n; ++j)
      executable.statistics.push_back(describeStatistic(statistics[j]));
    out.push_back(std::move(executable));
  }
  return out;
}

VulkanExecutable::~VulkanExecutable() {
  if (device_.lost()) // a pipeline may still be executing
    return;
  const DeviceSymbols &s = device_.syms();
  VkDevice d = device_.handle();
  for (ExportPipeline &p : pipelines_) {
    if (p.pipeline)
      s.vkDestroyPipeline(d, p.pipeline, nullptr);
    if (p.layout)
      s.vkDestroyPipelineLayout(d, p.layout, nullptr);
    if (p.setLayout)
      s.vkDestroyDescriptorSetLayout(d, p.setLayout, nullptr);
  }
  if (module_)
    s.vkDestroyShaderModule(d, module_, nullptr);
}

//===----------------------------------------------------------------------===//
// VulkanTimer
//===----------------------------------------------------------------------===//

StatusOr<std::shared_ptr<Timer>> VulkanTimer::create(VulkanDevice &device,
                                                     uint32_t slotCount) {
  if (device.properties().timestampValidBits == 0)
    return unimplemented("the compute queue of " + device.properties().name +
                         " has no timestamps (timestampValidBits is 0)");
  if (slotCount == 0)
    return invalidArgument("a timer needs at least one slot");
  std::unique_ptr<VulkanTimer> timer(new VulkanTimer(device, slotCount));
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = slotCount;
  const DeviceSymbols &s = device.syms();
  KB_VK_RETURN_IF_ERROR(
      s.vkCreateQueryPool(device.handle(), &info, nullptr, &timer->pool_),
      "vkCreateQueryPool");
  // Queries are undefined until reset; reset them all once so that reading
  // a slot that was never written reports "not available" instead of junk.
  VkQueryPool pool = timer->pool_;
  KB_RETURN_IF_ERROR(device.runOnce(
      [&](VkCommandBuffer cb) {
        s.vkCmdResetQueryPool(cb, pool, 0, slotCount);
      },
      "timestamp query pool reset"));
  return std::shared_ptr<Timer>(std::move(timer));
}

VulkanTimer::~VulkanTimer() {
  if (pool_ && !device_.lost())
    device_.syms().vkDestroyQueryPool(device_.handle(), pool_, nullptr);
}

StatusOr<uint64_t> VulkanTimer::read(uint32_t slot) {
  KB_RETURN_IF_ERROR(checkSlot(slot));
  uint64_t data[2] = {0, 0}; // value, availability
  VkResult result = device_.syms().vkGetQueryPoolResults(
      device_.handle(), pool_, slot, 1, sizeof(data), data, sizeof(data),
      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  if (result != VK_SUCCESS && result != VK_NOT_READY)
    return vkResultToStatus(result, "vkGetQueryPoolResults");
  if (result == VK_NOT_READY || data[1] == 0)
    return failedPrecondition("timestamp slot " + std::to_string(slot) +
                              " has not been written by a completed command "
                              "buffer");
  uint32_t bits = device_.properties().timestampValidBits;
  return bits >= 64 ? data[0] : data[0] & ((uint64_t(1) << bits) - 1);
}

StatusOr<double> VulkanTimer::elapsedNs(uint32_t begin, uint32_t end) {
  KB_ASSIGN_OR_RETURN(uint64_t t0, read(begin));
  KB_ASSIGN_OR_RETURN(uint64_t t1, read(end));
  uint64_t ticks =
      timestampDelta(t0, t1, device_.properties().timestampValidBits);
  return static_cast<double>(ticks) * device_.properties().timestampPeriodNs;
}

} // namespace kb::hal::vulkan

//===- runtime/bench/cache_flush.cpp - How much to write to flush L2 ------===//
#include "runtime/bench/cache_flush.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace kb::bench {

namespace {
struct KnownL2 {
  const char *nameFragment;
  uint64_t mib;
};
// Published L2 sizes; the first fragment found in the device name wins, so
// longer names come before their prefixes.
constexpr KnownL2 kKnownL2[] = {
    {"H200", 60},     {"H100", 50},     {"GH200", 60},   {"B200", 126},
    {"A100", 40},     {"A10G", 6},      {"L40", 96},     {"L4", 48},
    {"RTX 4090", 72}, {"RTX 4080", 64}, {"RTX 3090", 6}, {"V100", 6},
    {"T4", 4},        {"MI300", 256},   {"MI250", 16},   {"Radeon RX 7900", 6},
};
} // namespace

uint64_t parseCacheSize(const std::string &text) {
  uint64_t value = 0;
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    value = value * 10 + uint64_t(text[i++] - '0');
  if (i == 0)
    return 0;
  std::string unit = text.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back())))
    unit.pop_back();
  if (unit.empty())
    return value;
  if (unit == "K")
    return value << 10;
  if (unit == "M")
    return value << 20;
  if (unit == "G")
    return value << 30;
  return 0;
}

uint64_t hostLastLevelCacheBytes() {
  namespace fs = std::filesystem;
  std::error_code ec;
  uint64_t largest = 0;
  for (const auto &entry :
       fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    std::ifstream in(entry.path() / "size");
    std::string text;
    if (in >> text)
      largest = std::max(largest, parseCacheSize(text));
  }
  return largest;
}

L2Size selectL2Size(const hal::DeviceProperties &device,
                    std::optional<uint64_t> override, uint64_t hostLlcBytes) {
  if (override && *override > 0)
    return {*override, "flag"};
  if (device.l2CacheBytes > 0)
    return {device.l2CacheBytes, "driver"};
  for (const KnownL2 &known : kKnownL2)
    if (device.name.find(known.nameFragment) != std::string::npos)
      return {known.mib << 20, "table"};
  if (device.type == hal::DeviceType::Cpu && hostLlcBytes > 0)
    return {hostLlcBytes, "host-llc"};
  return {kDefaultL2Bytes, "default"};
}

StatusOr<std::shared_ptr<hal::Buffer>> allocateFlushBuffer(hal::Device &device,
                                                           const L2Size &l2) {
  uint64_t bytes = l2.flushBytes();
  if (uint64_t limit = device.properties().limits.maxAllocationBytes)
    bytes = std::min(bytes, limit / 4 * 4);
  if (bytes == 0)
    return std::shared_ptr<hal::Buffer>();
  return device.allocateBuffer(bytes, hal::MemoryType::DeviceLocal);
}

Status recordFlush(hal::CommandBuffer &commands, hal::Buffer *flush) {
  if (!flush)
    return okStatus();
  KB_RETURN_IF_ERROR(commands.fillBuffer(*flush, 0, 0, 0x5a5a5a5a));
  return commands.barrier();
}

} // namespace kb::bench

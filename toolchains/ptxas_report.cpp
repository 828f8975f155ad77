//===- toolchains/ptxas_report.cpp - Read `ptxas -v` resource reports ----===//

#include "toolchains/ptxas_report.h"

#include <regex>
#include <string>

namespace kb::toolchains {
namespace {

uint32_t toU32(const std::string &text) {
  try {
    return uint32_t(std::stoul(text));
  } catch (...) {
    return 0;
  }
}

} // namespace

std::optional<ResourceUsage>
parsePtxasResourceUsage(std::string_view stderrText, std::string_view entry) {
  static const std::regex compiling(
      R"(^ptxas info\s*: Compiling entry function '([^']+)' for '[^']*'$)");
  static const std::regex properties(
      R"(^ptxas info\s*: Function properties for (\S+)$)");
  static const std::regex frame(
      R"(^\s*(?:ptxas\s+\.\s+)?(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads$)");
  static const std::regex used(R"(^ptxas info\s*: Used (.*)$)");
  static const std::regex field(R"(^\s*(?:used )?(\d+) (.+?)\s*$)");

  std::optional<ResourceUsage> usage;
  std::string compilingEntry; // the entry whose "Used" line comes next
  std::string propertiesOf;   // the function the frame line belongs to
  size_t pos = 0;
  while (pos < stderrText.size()) {
    size_t end = stderrText.find('\n', pos);
    if (end == std::string_view::npos)
      end = stderrText.size();
    std::string line(stderrText.substr(pos, end - pos));
    pos = end + 1;
    std::smatch m;
    if (std::regex_match(line, m, compiling)) {
      compilingEntry = m[1];
      if (compilingEntry == entry && !usage)
        usage = ResourceUsage();
    } else if (std::regex_match(line, m, properties)) {
      propertiesOf = m[1];
    } else if (std::regex_match(line, m, frame)) {
      if (propertiesOf == entry) {
        if (!usage)
          usage = ResourceUsage();
        usage->stackFrameBytes = toU32(m[1]);
        usage->spillStoreBytes = toU32(m[2]);
        usage->spillLoadBytes = toU32(m[3]);
      }
    } else if (std::regex_match(line, m, used)) {
      if (compilingEntry != entry || !usage)
        continue;
      std::string list = m[1];
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos
                                                          : comma - start);
        start = comma == std::string::npos ? list.size() + 1 : comma + 1;
        std::smatch f;
        if (!std::regex_match(item, f, field))
          continue;
        uint32_t value = toU32(f[1]);
        std::string what = f[2];
        if (what == "registers")
          usage->registers = value;
        else if (what == "barriers")
          usage->barriers = value;
        else if (what == "bytes smem")
          usage->sharedMemoryBytes = value;
        else if (what == "bytes cmem[0]")
          usage->constantMemoryBytes = value;
      }
    }
  }
  return usage;
}

} // namespace kb::toolchains

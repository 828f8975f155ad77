//===- common/benchmark_name.cpp - How a benchmark is named ---------------===//
#include "common/benchmark_name.h"

namespace kb {

namespace {
bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
} // namespace

std::string benchmarkStem(std::string_view executable,
                          std::string_view readableExport) {
  std::string prefix = std::string(executable) + "_";
  if (readableExport == executable || startsWith(readableExport, prefix))
    return std::string(readableExport);
  // A copy of a kernel, named after it and what it measures (a sweep point
  // `copy-n4096`, a tune configuration `copy-t0003`), already says it.
  if (!readableExport.empty() &&
      startsWith(executable, std::string(readableExport) + "-"))
    return std::string(executable);
  return prefix + std::string(readableExport);
}

std::string currentBenchmarkName(std::string_view name,
                                 std::string_view executable,
                                 std::string_view readableExport) {
  std::string old = std::string(executable) + "_" + std::string(readableExport);
  std::string stem = benchmarkStem(executable, readableExport);
  if (stem == old || !startsWith(name, old + "_"))
    return std::string(name);
  return stem + std::string(name.substr(old.size()));
}

} // namespace kb

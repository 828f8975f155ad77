//===- runtime/bench/peak_cache.cpp - Measured peaks, once per device -----===//
#include "runtime/bench/peak_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kb::bench {

StatusOr<CachedPeak>
cachedPeak(const std::string &cacheFile, const std::string &key,
           const std::function<StatusOr<double>()> &measure) {
  if (!cacheFile.empty()) {
    std::ifstream in(cacheFile);
    std::string line;
    while (std::getline(in, line)) {
      size_t tab = line.rfind('\t');
      if (tab == std::string::npos || line.substr(0, tab) != key)
        continue;
      char *end = nullptr;
      double value = std::strtod(line.c_str() + tab + 1, &end);
      if (end && *end == '\0' && value > 0 && value < 1e18)
        return CachedPeak{value, true};
    }
  }
  KB_ASSIGN_OR_RETURN(double measured, measure());
  if (!cacheFile.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(
        std::filesystem::path(cacheFile).parent_path(), ec);
    std::ofstream out(cacheFile, std::ios::app);
    std::ostringstream value;
    value.precision(17);
    value << measured;
    out << key << '\t' << value.str() << '\n';
  }
  return CachedPeak{measured, false};
}

} // namespace kb::bench

//===- common/resource_usage.h - What ptxas reports for a kernel ----------===//
//
// The toolchains parse it from ptxas's -v output and record it in
// build.json; a benchmark report carries it next to the kernel's timings.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_RESOURCE_USAGE_H_
#define KB_COMMON_RESOURCE_USAGE_H_

#include <cstdint>

namespace kb {

struct ResourceUsage {
  uint32_t registers = 0;
  uint32_t stackFrameBytes = 0;
  uint32_t spillStoreBytes = 0;
  uint32_t spillLoadBytes = 0;
  uint32_t sharedMemoryBytes = 0;
  uint32_t barriers = 0;
  uint32_t constantMemoryBytes = 0; // cmem[0], where ptxas reports it
};

} // namespace kb

#endif // KB_COMMON_RESOURCE_USAGE_H_

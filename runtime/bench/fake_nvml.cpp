//===- runtime/bench/fake_nvml.cpp - An NVML for the tests ----------------===//
//
// A shared library with NVML's entry points (the ones nvml_environment.cpp
// opens), so the dlopen path is tested on a machine without the NVIDIA
// driver: one GPU, UUID GPU-00112233-4455-6677-8899-aabbccddeeff, SM at
// 1200 of a default 1980 MHz, memory at 2619 MHz, throttled by the software
// power cap, with two compute processes (pids 1 and 4242, one without a
// memory figure).
//
//===----------------------------------------------------------------------===//
#include <cstring>

namespace {
int gDevice;
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
} // namespace

extern "C" {
int nvmlInit_v2() { return 0; }
int nvmlShutdown() { return 0; }
int nvmlDeviceGetHandleByUUID(const char *uuid, void **device) {
  if (std::strcmp(uuid, "GPU-00112233-4455-6677-8899-aabbccddeeff") != 0)
    return 6; // NVML_ERROR_NOT_FOUND
  *device = &gDevice;
  return 0;
}
int nvmlDeviceGetClockInfo(void *, int type, unsigned int *mhz) {
  if (type == 1)
    *mhz = 1200;
  else if (type == 2)
    *mhz = 2619;
  else
    return 3; // NVML_ERROR_NOT_SUPPORTED
  return 0;
}
int nvmlDeviceGetDefaultApplicationsClock(void *, int, unsigned int *mhz) {
  *mhz = 1980;
  return 0;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void *,
                                              unsigned long long *reasons) {
  *reasons = 0x4; // sw power cap
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses(void *, unsigned int *count,
                                         ProcessInfo *infos) {
  if (*count < 2) {
    *count = 2;
    return 7; // NVML_ERROR_INSUFFICIENT_SIZE
  }
  *count = 2;
  infos[0] = {1, 1u << 20};
  infos[1] = {4242, ~0ull};
  return 0;
}
}

//===- runtime/bench/nvml_environment.h - GPU clocks, throttling, sharing -===//
//
// What NVML says about the GPU a benchmark runs on, recorded with the
// results: SM and memory clocks, the default SM clock, the throttle-reason
// bitmask, and the other processes using the GPU. A throttled or shared GPU
// gives numbers that are not the kernel's: `bench` warns.
//
// NVML is opened with dlopen (libnvidia-ml.so.1): kernel-bench links
// nothing of the NVIDIA driver, and a host without it (a Vulkan-only or
// CPU machine) just records nothing. Only the few entry points used are
// declared here, by their documented C signatures.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_NVML_ENVIRONMENT_H_
#define KB_RUNTIME_BENCH_NVML_ENVIRONMENT_H_

#include "common/status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::bench {

/// The default library name (the NVIDIA driver installs it).
inline constexpr const char *kNvmlLibrary = "libnvidia-ml.so.1";

struct GpuProcessInfo {
  uint32_t pid = 0;
  std::string name;                    // /proc/PID/comm; empty if unknown
  std::optional<uint64_t> memoryBytes; // none when NVML does not say
};

struct NvmlEnvironment {
  std::optional<double> smClockMHz;
  std::optional<double> defaultSmClockMHz;
  std::optional<double> memoryClockMHz;
  std::optional<uint64_t> throttleReasons; // NVML bitmask
  std::vector<GpuProcessInfo> processes;   // compute processes, ours too
};

/// NVML's view of the GPU whose UUID is |uuid| (lowercase 8-4-4-4-12 hex,
/// as hal::DeviceProperties has it). Unavailable (naming |library| and
/// dlerror) when NVML cannot be opened; NotFound when it has no such GPU.
/// A query NVML does not support leaves its field empty.
StatusOr<NvmlEnvironment> queryNvml(const std::string &uuid,
                                    const std::string &library = kNvmlLibrary);

/// The names of the bits set in an NVML throttle-reason mask, e.g.
/// "sw-power-cap", "hw-thermal-slowdown"; unknown bits as "0x...".
std::vector<std::string> throttleReasonNames(uint64_t mask);

/// Warnings for a measurement on this GPU: throttled (any reason but idle
/// and the application clock setting), or shared with a process other
/// than |ownPid| (the benchmark's).
std::vector<std::string> nvmlWarnings(const NvmlEnvironment &environment,
                                      uint32_t ownPid);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_NVML_ENVIRONMENT_H_

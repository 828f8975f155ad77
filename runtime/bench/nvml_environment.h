//===- runtime/bench/nvml_environment.h - GPU clocks, throttling, sharing -===//
//
// What NVML says about the GPU a benchmark runs on, recorded with the
// results: SM and memory clocks, the default SM clock, the throttle-reason
// bitmask, and the other processes using the GPU. A throttled or shared GPU
// gives numbers that are not the kernel's: `bench` warns. NVML is read
// before timing and again right after it: before, the GPU idles and shows
// no power or thermal throttling; after, it still carries the benchmark's
// load.
//
// NVML reports PIDs of the host's (initial) PID namespace. A process in
// another one (a container) has another getpid() and a /proc where NVML's
// PIDs are other processes or none, so there it can neither pick itself out
// of NVML's list nor name the others (OwnProcess).
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
  uint32_t pid = 0;                    // NVML's: the host's PID namespace
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

/// This process as NVML can see it.
struct OwnProcess {
  uint32_t pid = 0;
  /// Whether NVML's PIDs are in this process's PID namespace (it runs in
  /// the initial one), so that |pid| and /proc can be matched against them.
  bool pidsComparable = false;
  /// Whether NVML lists this process among the compute processes (it holds
  /// a CUDA context on the GPU; a Vulkan process is not a compute process).
  bool holdsComputeContext = false;
};
/// getpid() and whether this process runs in the initial PID namespace.
OwnProcess ownProcess(bool holdsComputeContext);

/// |environment|'s processes other than |self|, named from /proc. When
/// |self| cannot be matched (!pidsComparable): every process NVML lists,
/// unnamed, this one possibly among them.
std::vector<GpuProcessInfo> otherProcesses(const NvmlEnvironment &environment,
                                           const OwnProcess &self);

/// The names of the bits set in an NVML throttle-reason mask, e.g.
/// "sw-power-cap", "hw-thermal-slowdown"; unknown bits as "0x...".
std::vector<std::string> throttleReasonNames(uint64_t mask);

/// Warnings for a measurement on this GPU: throttled before or after
/// timing (any reason but idle and the application clock setting), or
/// shared with another process: one that is not |self| where PIDs compare,
/// else more compute processes than |self| accounts for. Never a claim
/// that the GPU is not shared.
std::vector<std::string> nvmlWarnings(const NvmlEnvironment &beforeTiming,
                                      const NvmlEnvironment *afterTiming,
                                      const OwnProcess &self);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_NVML_ENVIRONMENT_H_

//===- runtime/bench/nvml_environment.cpp - GPU clocks, throttling, sharing
//===//
#include "runtime/bench/nvml_environment.h"

#include "common/dynamic_library.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace kb::bench {

namespace {

// nvml.h, by value: nvmlReturn_t is an enum (0 = NVML_SUCCESS), a device
// handle an opaque pointer, nvmlClockType_t 0 = graphics, 1 = SM, 2 = memory.
using NvmlReturn = int;
using NvmlDevice = void *;
constexpr int kClockSm = 1;
constexpr int kClockMemory = 2;

/// nvmlProcessInfo_v1_t (nvmlDeviceGetComputeRunningProcesses, the
/// unversioned entry point every driver since 2014 exports).
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory; // NVML_VALUE_NOT_AVAILABLE = ~0ull
};

struct Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*byUuid)(const char *, NvmlDevice *) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int *) = nullptr;
  NvmlReturn (*defaultClock)(NvmlDevice, int, unsigned int *) = nullptr;
  NvmlReturn (*throttle)(NvmlDevice, unsigned long long *) = nullptr;
  NvmlReturn (*processes)(NvmlDevice, unsigned int *,
                          NvmlProcessInfo *) = nullptr;
};

template <typename F>
void bind(const DynamicLibrary &library, const char *name, F &out) {
  out = library.function<F>(name);
}

std::string processName(uint32_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

void queryDevice(const Api &api, NvmlDevice device, NvmlEnvironment &out) {
  unsigned int mhz = 0;
  if (api.clock && api.clock(device, kClockSm, &mhz) == 0)
    out.smClockMHz = mhz;
  if (api.clock && api.clock(device, kClockMemory, &mhz) == 0)
    out.memoryClockMHz = mhz;
  if (api.defaultClock && api.defaultClock(device, kClockSm, &mhz) == 0)
    out.defaultSmClockMHz = mhz;
  unsigned long long reasons = 0;
  if (api.throttle && api.throttle(device, &reasons) == 0)
    out.throttleReasons = reasons;
  if (!api.processes)
    return;
  std::vector<NvmlProcessInfo> infos(64);
  unsigned int count = static_cast<unsigned int>(infos.size());
  if (api.processes(device, &count, infos.data()) != 0)
    return;
  for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
    GpuProcessInfo p;
    p.pid = infos[i].pid;
    if (infos[i].usedGpuMemory != ~0ull)
      p.memoryBytes = infos[i].usedGpuMemory;
    out.processes.push_back(std::move(p));
  }
}

} // namespace

StatusOr<NvmlEnvironment> queryNvml(const std::string &uuid,
                                    const std::string &library) {
  StatusOr<DynamicLibrary> handle = DynamicLibrary::open(library);
  if (!handle.ok())
    return unavailable("NVML is not available (" + handle.status().message() +
                       "): GPU clocks, throttling and other processes are "
                       "not recorded");
  Api api;
  bind(*handle, "nvmlInit_v2", api.init);
  bind(*handle, "nvmlShutdown", api.shutdown);
  bind(*handle, "nvmlDeviceGetHandleByUUID", api.byUuid);
  bind(*handle, "nvmlDeviceGetClockInfo", api.clock);
  bind(*handle, "nvmlDeviceGetDefaultApplicationsClock", api.defaultClock);
  bind(*handle, "nvmlDeviceGetCurrentClocksThrottleReasons", api.throttle);
  bind(*handle, "nvmlDeviceGetComputeRunningProcesses", api.processes);
  if (!api.init || !api.shutdown || !api.byUuid)
    return unavailable(library + " lacks nvmlInit_v2, nvmlShutdown or "
                                 "nvmlDeviceGetHandleByUUID: not an NVML "
                                 "this kernel-bench can use");
  if (NvmlReturn r = api.init(); r != 0)
    return unavailable("nvmlInit_v2 failed (NVML error " + std::to_string(r) +
                       "): GPU clocks, throttling and other processes are "
                       "not recorded");
  NvmlDevice device = nullptr;
  NvmlEnvironment environment;
  bool found = api.byUuid(("GPU-" + uuid).c_str(), &device) == 0;
  if (found)
    queryDevice(api, device, environment);
  api.shutdown(); // before |handle| closes the library
  if (!found)
    return notFound("NVML has no GPU with UUID GPU-" + uuid);
  return environment;
}

std::vector<std::string> throttleReasonNames(uint64_t mask) {
  static const char *const kNames[] = {"gpu-idle",
                                       "applications-clocks-setting",
                                       "sw-power-cap",
                                       "hw-slowdown",
                                       "sync-boost",
                                       "sw-thermal-slowdown",
                                       "hw-thermal-slowdown",
                                       "hw-power-brake-slowdown",
                                       "display-clock-setting"};
  std::vector<std::string> names;
  for (uint32_t bit = 0; bit < 64; ++bit) {
    if (!(mask & (uint64_t(1) << bit)))
      continue;
    if (bit < sizeof kNames / sizeof *kNames) {
      names.push_back(kNames[bit]);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx",
                    static_cast<unsigned long long>(uint64_t(1) << bit));
      names.push_back(buf);
    }
  }
  return names;
}

OwnProcess ownProcess(bool holdsComputeContext) {
  // The initial PID namespace's inode is fixed (PROC_PID_INIT_INO); any
  // other namespace, a container's, numbers its processes apart from the
  // host's PIDs that NVML reports.
  constexpr ino_t kInitialPidNamespace = 0xEFFFFFFCu;
  struct stat ns {};
  OwnProcess self;
  self.pid = static_cast<uint32_t>(::getpid());
  self.pidsComparable = ::stat("/proc/self/ns/pid", &ns) == 0 &&
                        ns.st_ino == kInitialPidNamespace;
  self.holdsComputeContext = holdsComputeContext;
  return self;
}

std::vector<GpuProcessInfo> otherProcesses(const NvmlEnvironment &environment,
                                           const OwnProcess &self) {
  std::vector<GpuProcessInfo> others;
  for (const GpuProcessInfo &p : environment.processes) {
    if (self.pidsComparable && p.pid == self.pid)
      continue;
    GpuProcessInfo other = p;
    // In another PID namespace /proc/PID is some other process, or none.
    other.name = self.pidsComparable ? processName(p.pid) : std::string();
    others.push_back(std::move(other));
  }
  return others;
}

namespace {

/// "the GPU is throttled ..." for a throttle mask with a slowdown in it;
/// empty otherwise. |when| says which reading it was.
std::string throttleWarning(const NvmlEnvironment &environment,
                            const std::string &when) {
  // Idle (nothing running at the query) and the application clock setting
  // are not slowdowns.
  constexpr uint64_t kBenign = 0x1 | 0x2;
  if (!environment.throttleReasons ||
      !(*environment.throttleReasons & ~kBenign))
    return "";
  std::string names;
  for (const std::string &n :
       throttleReasonNames(*environment.throttleReasons & ~kBenign))
    names += (names.empty() ? "" : ", ") + n;
  return "the GPU is throttled " + when + " (" + names +
         "): its timings are slower than the kernel's";
}

std::string sharingWarning(const NvmlEnvironment &environment,
                           const OwnProcess &self) {
  std::vector<GpuProcessInfo> others = otherProcesses(environment, self);
  std::string listed;
  for (const GpuProcessInfo &p : others)
    listed += (listed.empty() ? "" : ", ") + std::to_string(p.pid) +
              (p.name.empty() ? "" : " (" + p.name + ")");
  if (self.pidsComparable)
    return others.empty()
               ? ""
               : "the GPU is shared with other processes (" + listed +
                     "): their work competes with the benchmark's";
  // NVML's PIDs are the host's: which entry is this process is unknown, so
  // only a count beyond what this process accounts for says "shared".
  size_t ours = self.holdsComputeContext ? 1 : 0;
  if (others.size() <= ours)
    return "";
  return "the GPU is shared: NVML lists " + std::to_string(others.size()) +
         " compute processes (host PIDs " + listed + "), " +
         std::to_string(others.size() - ours) +
         " or more besides the benchmark (in its own PID namespace it "
         "cannot tell which is itself); their work competes with the "
         "benchmark's";
}

} // namespace

std::vector<std::string> nvmlWarnings(const NvmlEnvironment &beforeTiming,
                                      const NvmlEnvironment *afterTiming,
                                      const OwnProcess &self) {
  std::vector<std::string> warnings;
  for (std::string w :
       {throttleWarning(beforeTiming, "before timing"),
        afterTiming ? throttleWarning(*afterTiming, "after timing") : "",
        sharingWarning(beforeTiming, self)})
    if (!w.empty())
      warnings.push_back(std::move(w));
  return warnings;
}

} // namespace kb::bench

//===- runtime/bench/fma_peak.cpp - The measured compute peak -------------===//
#include "runtime/bench/fma_peak.h"

#include "runtime/bench/copy_bandwidth.h"
#include "runtime/bench/peak_cache.h"
#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/timer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

namespace kb::bench {

namespace {
constexpr uint32_t kWorkgroupSize = 256;
constexpr uint32_t kChains = 8, kUnroll = 16;
/// Warm-up until this much time has run (clocks ramp up), then the best of
/// kSamples: a ceiling is what the device reaches, not what it usually does.
constexpr double kWarmupNs = 100e6;
constexpr int kSamples = 9;
/// The chains' multiplier and addend: they converge to b / (1 - a) = 1.
constexpr float kA = 0.999f, kB = 0.001f;

/// Each chain x <- a x + b approaches its fixed point 1 as 1 + (x0 - 1) a^n
/// after n steps: the eight chains start at 0, 1/8, ..., 7/8 (a sum of 3.5),
/// so every thread stores 8 - 4.5 a^n. A kernel that skipped its chains, or
/// ran some of them, stores something else.
Status checkResult(hal::Buffer &out, uint32_t threads, uint32_t iterations) {
  double steps = double(iterations) * kUnroll;
  double expected = 8.0 - 4.5 * std::pow(double(kA), steps);
  float first = 0, last = 0;
  KB_RETURN_IF_ERROR(out.download(0, &first, 4));
  KB_RETURN_IF_ERROR(out.download(uint64_t(threads - 1) * 4, &last, 4));
  for (float v : {first, last})
    if (!(std::fabs(v - expected) < 0.01))
      return internalError("FMA-peak probe: a thread's result is " +
                           std::to_string(v) + ", expected " +
                           std::to_string(expected) +
                           ": the kernel did not run its chains");
  return okStatus();
}
} // namespace

double FmaProbeSize::flops() const {
  return 2.0 * double(workgroups) * kWorkgroupSize * double(iterations) *
         kChains * kUnroll;
}

std::string fmaPeakCacheKey(const hal::DeviceProperties &device) {
  return deviceIdentity(device) + "|fma probe v" +
         std::to_string(kFmaProbeVersion);
}

KernelAbi fmaPeakAbi() {
  KernelAbi abi;
  abi.entry = "kb_fma_peak";
  abi.bindings = {{"out", ElementType::F32, Access::WriteOnly}};
  abi.constants = {{"a", ScalarType::F32},
                   {"b", ScalarType::F32},
                   {"iterations", ScalarType::U32}};
  abi.workgroupSize = {kWorkgroupSize, 1, 1};
  return abi;
}

std::string_view fmaPeakSpirv() {
  static const uint32_t kWords[] = {
#include "runtime/bench/kernels/fma_peak.spv.inc"
  };
  return std::string_view(reinterpret_cast<const char *>(kWords),
                          sizeof(kWords));
}

FmaProbeSize fmaProbeSize(const hal::DeviceProperties &device) {
  // A GPU: 64 workgroups of 256 per SM (more than fit at once), ~1 ms of
  // FMAs; a CPU device: a few cores' worth, ~10 ms on llvmpipe.
  if (device.type == hal::DeviceType::Cpu)
    return {64, 64};
  uint32_t units = device.computeUnits ? device.computeUnits : 128;
  return {std::min<uint32_t>(units * 64, 65535), 256};
}

StatusOr<double> measureFmaPeak(hal::Device &device) {
  FmaProbeSize size = fmaProbeSize(device.properties());
  KB_ASSIGN_OR_RETURN(
      hal::ExecutableSpec spec,
      probeKernelSpec(device, fmaPeakAbi(), fmaPeakPtx(), fmaPeakSpirv()));
  KB_ASSIGN_OR_RETURN(auto kernel, device.createExecutable(spec));
  uint32_t threads = size.workgroups * kWorkgroupSize;
  KB_ASSIGN_OR_RETURN(auto out,
                      device.allocateBuffer(uint64_t(threads) * 4,
                                            hal::MemoryType::DeviceLocal));
  KB_ASSIGN_OR_RETURN(auto timer, device.createTimer(2));
  hal::DispatchParams params;
  params.executable = kernel.get();
  params.workgroupCount = {size.workgroups, 1, 1};
  params.bindings = {{out.get(), 0, 0}};
  params.constants.resize(12);
  std::memcpy(params.constants.data(), &kA, 4);
  std::memcpy(params.constants.data() + 4, &kB, 4);
  std::memcpy(params.constants.data() + 8, &size.iterations, 4);
  params.label = "FMA-peak probe (kb_fma_peak)";
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  KB_RETURN_IF_ERROR(commands->writeTimestamp(*timer, 0));
  KB_RETURN_IF_ERROR(commands->dispatch(params));
  KB_RETURN_IF_ERROR(commands->writeTimestamp(*timer, 1));
  double warm = 0, best = 0;
  for (int run = 0, samples = 0; samples < kSamples; ++run) {
    KB_RETURN_IF_ERROR(commands->submitAndWait());
    KB_ASSIGN_OR_RETURN(double ns, timer->elapsedNs(0, 1));
    if (warm < kWarmupNs && run < 1000) {
      warm += std::max(ns, 1.0);
      continue;
    }
    best = samples++ == 0 ? ns : std::min(best, ns);
  }
  KB_RETURN_IF_ERROR(checkResult(*out, threads, size.iterations));
  if (best <= 0)
    return internalError("FMA-peak probe: the device timestamps measured no "
                         "time");
  return size.flops() / (best * 1e-9);
}

StatusOr<double> peakFmaThroughput(hal::Device &device,
                                   const std::string &cacheFile, bool *cached) {
  KB_ASSIGN_OR_RETURN(CachedPeak peak,
                      cachedPeak(cacheFile,
                                 fmaPeakCacheKey(device.properties()),
                                 [&] { return measureFmaPeak(device); }));
  if (cached)
    *cached = peak.cached;
  return peak.value;
}

} // namespace kb::bench

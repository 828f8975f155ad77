//===- bench/runtime_overhead/runtime_overhead.cpp - HAL overheads --------===//
//
//   runtime_overhead [KERNEL_DIR]   (default: the HAL CTS kernels/ dir)
//
// 1. CUDA: host cost per dispatch of an empty kernel through the HAL
//    (record + submit of 100 dispatches, then a sync) vs raw cuLaunchKernel
//    in batches of 100, same kernel, same stream discipline; target ratio
//    <= 1.1. Then the raw two-event figure of one empty launch (latency
//    included), the anchor of the latency-bound rows of the GPU script.
// 2. CUDA: module load time from cubin vs from PTX, the PTX both cold (the
//    driver JIT-compiles it: a child process with CUDA_CACHE_DISABLE=1,
//    whose first load is measured) and warm (the driver's compute cache
//    serves every load after the first, in this process).
// 3. Vulkan: compute pipeline creation with and without a VkPipelineCache.
// Prints ratios; not a test (numbers depend on the machine).
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/api.h"
#include "runtime/hal/drivers/registration.h"
#include "common/process.h"

#ifdef KB_HAVE_CUDA_DRIVER
#include "runtime/hal/drivers/cuda/cuda_driver.h"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

using namespace kb;
using Clock = std::chrono::steady_clock;

namespace {

double medianUs(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double timeUs(const std::function<void()> &fn) {
  auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const char *kEmptyPtx = ".version 7.8\n.target sm_75\n.address_size 64\n"
                        ".visible .entry empty()\n{\n  ret;\n}\n";

#ifdef KB_HAVE_CUDA_DRIVER
/// One createExecutable of the CTS module in |format|, in microseconds.
double loadUs(hal::Device &device, hal::ExecutableFormat format,
              const std::string &data) {
  hal::ExecutableSpec sp;
  sp.name = "cts";
  sp.format = format;
  sp.target = format == hal::ExecutableFormat::Cubin ? "sm_90" : "sm_75";
  sp.data = data;
  KernelAbi k;
  k.entry = "double_plus_one";
  k.bindings = {{"a", ElementType::U32, Access::ReadOnly},
                {"b", ElementType::U32, Access::WriteOnly}};
  k.constants = {{"n", ScalarType::U32}};
  k.workgroupSize = {64, 1, 1};
  sp.exports = {k};
  return timeUs([&] { device.createExecutable(sp).status().ignoreError(); });
}

constexpr const char *kColdLoadFlag = "--cold-ptx-load";

/// The child of coldPtxLoadUs: prints the time of its first PTX load.
int coldPtxLoadChild(const std::string &kernelDir) {
  if (!std::getenv("CUDA_CACHE_DISABLE"))
    return 2; // would measure the cache, not the JIT
  auto selected = hal::selectDevice(hal::builtinDrivers(), "cuda");
  std::string ptx = readFile(kernelDir + "/cts_kernels.ptx");
  if (!selected.ok() || ptx.empty())
    return 1;
  std::printf("load_us %.1f\n",
              loadUs(*selected->device, hal::ExecutableFormat::Ptx, ptx));
  return 0;
}

/// Median over three fresh processes of the first PTX load with the
/// driver's compute cache disabled: what a first run on a new machine pays.
StatusOr<double> coldPtxLoadUs(const std::string &kernelDir) {
  std::vector<double> t;
  for (int r = 0; r < 3; ++r) {
    kb::ProcessOptions options;
    options.argv = {"/proc/self/exe", kColdLoadFlag, kernelDir};
    options.env = {{"CUDA_CACHE_DISABLE", "1"}};
    options.timeout = std::chrono::seconds(120);
    KB_ASSIGN_OR_RETURN(kb::ProcessResult run, kb::runProcess(options));
    double us = 0;
    if (!run.succeeded() ||
        std::sscanf(run.stdoutText.c_str(), "load_us %lf", &us) != 1)
      return internalError("the measuring child failed: " + run.describe());
    t.push_back(us);
  }
  return medianUs(t);
}

/// The figure a kernel author gets from two CUDA events around one launch
/// of an empty kernel on an idle stream: launch latency included. A cold
/// sample of a latency-bound kernel should come in well under it, since the
/// L2 flush ahead of it hides the launch.
void printTwoEventFigure(const hal::cuda::CudaSymbols &s,
                         hal::cuda::CUfunction function,
                         hal::cuda::CUstream stream) {
  using namespace hal::cuda;
  CUevent begin = nullptr, end = nullptr;
  if (s.cuEventCreate(&begin, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      s.cuEventCreate(&end, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    std::printf("cuda empty kernel between two events: events unavailable\n");
    return;
  }
  std::vector<double> t;
  for (int i = 0; i < 101; ++i) {
    s.cuEventRecord(begin, stream);
    s.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr);
    s.cuEventRecord(end, stream);
    s.cuStreamSynchronize(stream);
    float ms = 0;
    if (i > 0 && s.cuEventElapsedTime(&ms, begin, end) == CUDA_SUCCESS)
      t.push_back(ms * 1e3);
  }
  s.cuEventDestroy(begin);
  s.cuEventDestroy(end);
  std::printf("cuda empty kernel between two events: %.2f us (median of %zu; "
              "launch latency included)\n",
              medianUs(t), t.size());
}

void benchCuda(const std::string &kernelDir) {
  auto selected = hal::selectDevice(hal::builtinDrivers(), "cuda");
  if (!selected.ok()) {
    std::printf("cuda: skipped (%s)\n", selected.status().message().c_str());
    return;
  }
  hal::Device &device = *selected->device;
  auto *cuDevice = dynamic_cast<hal::cuda::CudaDevice *>(&device);
  const hal::cuda::CudaSymbols &s = cuDevice->syms();
  hal::ExecutableSpec spec;
  spec.name = "empty";
  spec.format = hal::ExecutableFormat::Ptx;
  spec.target = "sm_75";
  spec.data = kEmptyPtx;
  KernelAbi abi;
  abi.entry = "empty";
  abi.workgroupSize = {32, 1, 1};
  spec.exports = {abi};
  auto exe = device.createExecutable(spec);
  if (!exe.ok()) {
    std::printf("cuda: %s\n", exe.status().message().c_str());
    return;
  }
  auto *cuExe = dynamic_cast<hal::cuda::CudaExecutable *>(exe->get());
  // Batches of 100 with a sync between, so the launch queue (about 1000
  // entries) never fills: a full queue makes both sides wait for the GPU's
  // launch rate and the ratio says nothing about host cost.
  const int batch = 100, batches = 20, reps = 7;
  std::vector<double> hal, raw;
  for (int r = 0; r < reps; ++r) {
    double halUs = 0, rawUs = 0;
    for (int b = 0; b < batches; ++b) {
      auto cb = device.createCommandBuffer();
      halUs += timeUs([&] {
        for (int i = 0; i < batch; ++i) {
          hal::DispatchParams d;
          d.executable = exe->get();
          (*cb)->dispatch(d).ignoreError();
        }
        (*cb)->submitAndWait().ignoreError();
      });
      rawUs += timeUs([&] {
        for (int i = 0; i < batch; ++i)
          s.cuLaunchKernel(cuExe->function(0), 1, 1, 1, 32, 1, 1, 0,
                           cuDevice->stream(), nullptr, nullptr);
        s.cuStreamSynchronize(cuDevice->stream());
      });
    }
    hal.push_back(halUs / (batch * batches));
    raw.push_back(rawUs / (batch * batches));
  }
  double h = medianUs(hal), w = medianUs(raw);
  std::printf(
      "cuda dispatch host cost (batches of %d, sync between): HAL %.2f us, "
      "raw cuLaunchKernel %.2f us, ratio %.2fx (target <= 1.10x)\n",
      batch, h, w, h / w);
  printTwoEventFigure(s, cuExe->function(0), cuDevice->stream());

  std::string ptx = readFile(kernelDir + "/cts_kernels.ptx");
  std::string cubin = readFile(kernelDir + "/cts_kernels.sm_90.cubin");
  if (ptx.empty() || cubin.empty() || device.properties().ccMajor != 9) {
    std::printf(
        "cuda module load: skipped (needs %s/cts_kernels.{ptx,sm_90.cubin} "
        "and an sm_90 device)\n",
        kernelDir.c_str());
    return;
  }
  auto load = [&](hal::ExecutableFormat format, const std::string &data) {
    std::vector<double> t;
    for (int r = 0; r < 5; ++r)
      t.push_back(loadUs(device, format, data));
    return medianUs(t);
  };
  // Warm: the first PTX load in this process fills the driver's compute
  // cache (unless an earlier run did), the median is of the cached ones.
  double first = loadUs(device, hal::ExecutableFormat::Ptx, ptx);
  double tp = load(hal::ExecutableFormat::Ptx, ptx);
  double tc = load(hal::ExecutableFormat::Cubin, cubin);
  auto cold = coldPtxLoadUs(kernelDir);
  if (cold.ok())
    std::printf("cuda module load: PTX cold %.0f us (JIT: new process, "
                "CUDA_CACHE_DISABLE=1, median of 3), PTX warm %.0f us (compute "
                "cache; first in this process %.0f us), cubin %.0f us; "
                "cold/cubin %.1fx, warm/cubin %.1fx\n",
                *cold, tp, first, tc, *cold / tc, tp / tc);
  else
    std::printf("cuda module load: PTX cold not measured (%s), PTX warm %.0f "
                "us (first in this process %.0f us), cubin %.0f us, "
                "warm/cubin %.1fx\n",
                cold.status().message().c_str(), tp, first, tc, tp / tc);
}
#endif

void benchVulkan(const std::string &kernelDir) {
  std::string spirv = readFile(kernelDir + "/double_plus_one.spv");
  if (spirv.empty()) {
    std::printf("vulkan: skipped (%s/double_plus_one.spv missing)\n",
                kernelDir.c_str());
    return;
  }
  hal::ExecutableSpec spec;
  spec.name = "double_plus_one";
  spec.format = hal::ExecutableFormat::Spirv;
  spec.target = "vulkan1.1";
  spec.data = spirv;
  KernelAbi k;
  k.entry = "main";
  k.bindings = {{"a", ElementType::U32, Access::ReadOnly},
                {"b", ElementType::U32, Access::WriteOnly}};
  k.constants = {{"n", ScalarType::U32}};
  k.workgroupSize = {64, 1, 1};
  spec.exports = {k};
  double results[2] = {0, 0};
  for (int withCache = 0; withCache < 2; ++withCache) {
    hal::DeviceOptions options;
    options.pipelineCache = withCache;
    auto selected =
        hal::selectDevice(hal::builtinDrivers(), "vulkan", {}, options);
    if (!selected.ok()) {
      std::printf("vulkan: skipped (%s)\n",
                  selected.status().message().c_str());
      return;
    }
    if (withCache == 0)
      std::printf("vulkan device: %s\n", selected->reason.c_str());
    // The first creation fills the cache; the median is of the later ones.
    std::vector<double> t;
    for (int r = 0; r < 9; ++r)
      t.push_back(timeUs([&] {
        selected->device->createExecutable(spec).status().ignoreError();
      }));
    t.erase(t.begin());
    results[withCache] = medianUs(t);
  }
  std::printf("vulkan pipeline creation: no cache %.0f us, with cache %.0f us, "
              "speedup %.1fx\n",
              results[0], results[1], results[0] / results[1]);
}

} // namespace

int main(int argc, char **argv) {
#ifdef KB_HAVE_CUDA_DRIVER
  if (argc == 3 && std::strcmp(argv[1], kColdLoadFlag) == 0)
    return coldPtxLoadChild(argv[2]);
#endif
  std::string kernelDir = argc > 1 ? argv[1] : KB_CTS_KERNEL_DIR;
#ifdef KB_HAVE_CUDA_DRIVER
  benchCuda(kernelDir);
#else
  std::printf("cuda: not in this build\n");
#endif
  benchVulkan(kernelDir);
  return 0;
}

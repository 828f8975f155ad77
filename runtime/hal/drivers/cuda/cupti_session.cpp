//===- runtime/hal/drivers/cuda/cupti_session.cpp - Counters by CUPTI -----===//
#include "runtime/hal/drivers/cuda/cupti_session.h"

#if KB_HAVE_CUPTI
#include "runtime/hal/drivers/cuda/cupti_symbols.h"

#include <cmath>
#include <cstring>
#include <vector>
#endif

namespace kb::hal::cuda {

#if !KB_HAVE_CUPTI

namespace {
Status builtWithoutCupti() {
  return unavailable(
      "this kernel-bench was built without CUPTI's headers (the CUDA "
      "toolkit's cupti_range_profiler.h), so it cannot read hardware "
      "counters; rebuild it where the CUDA toolkit is installed");
}
} // namespace

CuptiLibrary::CuptiLibrary(std::shared_ptr<const CuptiSymbols> preset)
    : syms_(std::move(preset)) {}

StatusOr<const CuptiSymbols *> CuptiLibrary::get() {
  return builtWithoutCupti();
}

StatusOr<std::unique_ptr<CounterSession>>
createCuptiSession(const CuptiSymbols &, CuptiTarget) {
  return builtWithoutCupti();
}

#else

namespace {

constexpr size_t kMetricCount = std::size(kCounterMetrics);

/// A parameter block as CUPTI wants it: zeroed, with its own size.
#define KB_CUPTI_PARAMS(Type, var)                                             \
  Type var;                                                                    \
  std::memset(&var, 0, sizeof var);                                            \
  var.structSize = Type##_STRUCT_SIZE

/// A failed call as a Status. A host that keeps counters from this user and
/// a GPU without them are Unavailable (a skip, with what to do); anything
/// else is an error of the session.
Status cuptiStatus(const CuptiSymbols &s, CUptiResult result,
                   const char *what) {
  if (result == CUPTI_SUCCESS)
    return okStatus();
  std::string text = std::string(what) + " failed with " + s.describe(result);
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
      result == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
    return unavailable(
        "the NVIDIA driver keeps GPU performance counters from this user (" +
        text +
        "): it was loaded with NVreg_RestrictProfilingToAdminUsers=1, the "
        "default; run as root, or load the nvidia module with "
        "NVreg_RestrictProfilingToAdminUsers=0 "
        "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
  if (result == CUPTI_ERROR_HARDWARE_BUSY ||
      result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
      result == CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED)
    return unavailable(
        "another profiler holds this GPU's counters (" + text +
        "): a running ncu or nsys, or DCGM's profiling metrics (pause them "
        "with `dcgmi profile --pause`)");
  if (result == CUPTI_ERROR_NOT_COMPATIBLE)
    return unavailable("this libcupti does not work with the installed "
                       "NVIDIA driver (" +
                       text + "): use the CUPTI of the driver's CUDA version");
  if (result == CUPTI_ERROR_NOT_SUPPORTED || result == CUPTI_ERROR_DISABLED ||
      result == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED ||
      result == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED ||
      result == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED ||
      result == CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED ||
      result == CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED ||
      result == CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED)
    return unavailable("CUPTI cannot count on this GPU (" + text + ")");
  return internalError(text);
}

#define KB_CUPTI_RETURN_IF_ERROR(syms, expr, what)                             \
  do {                                                                         \
    CUptiResult kb_cupti_result_ = (expr);                                     \
    if (kb_cupti_result_ != CUPTI_SUCCESS)                                     \
      return cuptiStatus((syms), kb_cupti_result_, (what));                    \
  } while (false)

class CuptiSession final : public CounterSession {
public:
  CuptiSession(const CuptiSymbols &syms, CuptiTarget target)
      : s_(syms), target_(std::move(target)) {
    for (const char *metric : kCounterMetrics)
      metrics_.push_back(metric);
  }
  ~CuptiSession() override;

  Status open();
  Status beginPass() override;
  StatusOr<bool> endPass() override;
  StatusOr<KernelCounters> values() override;

private:
  Status initializeHost();
  Status buildConfigImage();
  Status enableRanges();
  /// The metrics of kernel |range|, in kCounterMetrics' order.
  Status evaluate(size_t range, double (&values)[kMetricCount]);

  const CuptiSymbols &s_;
  CuptiTarget target_;
  std::vector<const char *> metrics_;
  bool initialized_ = false; // cuptiProfilerInitialize
  CUpti_Profiler_Host_Object *host_ = nullptr;
  CUpti_RangeProfiler_Object *ranges_ = nullptr;
  std::vector<uint8_t> config_, counterData_;
  bool inPass_ = false, allSubmitted_ = false;
  uint32_t passes_ = 0;
};

CuptiSession::~CuptiSession() {
  // Errors are ignored: a destructor has nobody to tell. The context is
  // made current so that CUPTI unhooks the right one.
  if (target_.makeCurrent)
    (void)target_.makeCurrent();
  if (ranges_) {
    KB_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, p);
    p.pRangeProfilerObject = ranges_;
    (void)s_.cuptiRangeProfilerDisable(&p);
  }
  if (host_) {
    KB_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p);
    p.pHostObject = host_;
    (void)s_.cuptiProfilerHostDeinitialize(&p);
  }
  if (initialized_) {
    KB_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, p);
    (void)s_.cuptiProfilerDeInitialize(&p);
  }
}

/// The host side for this GPU: its chip, which counters this context may
/// read (the first call a restricted host refuses), the host object.
Status CuptiSession::initializeHost() {
  KB_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, chip);
  chip.deviceIndex = target_.deviceIndex;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiDeviceGetChipName(&chip),
                           "cuptiDeviceGetChipName");
  if (!chip.pChipName)
    return internalError("cuptiDeviceGetChipName named no chip");
  KB_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, avail);
  avail.ctx = static_cast<CUcontext>(target_.context);
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerGetCounterAvailability(&avail),
                           "cuptiProfilerGetCounterAvailability");
  std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = image.data();
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerGetCounterAvailability(&avail),
                           "cuptiProfilerGetCounterAvailability");
  KB_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, host);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = image.data();
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerHostInitialize(&host),
                           "cuptiProfilerHostInitialize");
  host_ = host.pHostObject;
  return okStatus();
}

/// The config image: which counters to program on which pass.
Status CuptiSession::buildConfigImage() {
  KB_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
  add.pHostObject = host_;
  add.ppMetricNames = metrics_.data();
  add.numMetrics = metrics_.size();
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerHostConfigAddMetrics(&add),
                           "cuptiProfilerHostConfigAddMetrics");
  KB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
  size.pHostObject = host_;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerHostGetConfigImageSize(&size),
                           "cuptiProfilerHostGetConfigImageSize");
  config_.assign(size.configImageSize, 0);
  KB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, image);
  image.pHostObject = host_;
  image.configImageSize = config_.size();
  image.pConfigImage = config_.data();
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerHostGetConfigImage(&image),
                           "cuptiProfilerHostGetConfigImage");
  return okStatus();
}

/// Range profiling on the context, a counter-data image for the kernels of
/// one pass, and the configuration: a range per kernel, passes the caller
/// replays.
Status CuptiSession::enableRanges() {
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
  enable.ctx = static_cast<CUcontext>(target_.context);
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerEnable(&enable),
                           "cuptiRangeProfilerEnable");
  ranges_ = enable.pRangeProfilerObject;
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
  size.pRangeProfilerObject = ranges_;
  size.pMetricNames = metrics_.data();
  size.numMetrics = metrics_.size();
  size.maxNumOfRanges = kMaxCountedKernels;
  size.maxNumRangeTreeNodes = kMaxCountedKernels;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerGetCounterDataSize(&size),
                           "cuptiRangeProfilerGetCounterDataSize");
  counterData_.assign(size.counterDataSize, 0);
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
  init.pRangeProfilerObject = ranges_;
  init.counterDataSize = counterData_.size();
  init.pCounterData = counterData_.data();
  KB_CUPTI_RETURN_IF_ERROR(
      s_, s_.cuptiRangeProfilerCounterDataImageInitialize(&init),
      "cuptiRangeProfilerCounterDataImageInitialize");
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
  config.pRangeProfilerObject = ranges_;
  config.configSize = config_.size();
  config.pConfig = config_.data();
  config.counterDataImageSize = counterData_.size();
  config.pCounterDataImage = counterData_.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_UserReplay;
  config.maxRangesPerPass = kMaxCountedKernels;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.targetNestingLevel = 1;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerSetConfig(&config),
                           "cuptiRangeProfilerSetConfig");
  return okStatus();
}

Status CuptiSession::open() {
  KB_RETURN_IF_ERROR(target_.makeCurrent());
  KB_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, init);
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerInitialize(&init),
                           "cuptiProfilerInitialize");
  initialized_ = true;
  KB_RETURN_IF_ERROR(initializeHost());
  KB_RETURN_IF_ERROR(buildConfigImage());
  return enableRanges();
}

Status CuptiSession::beginPass() {
  if (inPass_ || allSubmitted_)
    return failedPrecondition(
        inPass_ ? "beginPass: the previous pass was not ended"
                : "beginPass: every pass the counters need has run");
  KB_RETURN_IF_ERROR(target_.makeCurrent());
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
  start.pRangeProfilerObject = ranges_;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerStart(&start),
                           "cuptiRangeProfilerStart");
  inPass_ = true;
  return okStatus();
}

StatusOr<bool> CuptiSession::endPass() {
  if (!inPass_)
    return failedPrecondition("endPass: no pass was begun");
  inPass_ = false;
  KB_RETURN_IF_ERROR(target_.makeCurrent());
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = ranges_;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerStop(&stop),
                           "cuptiRangeProfilerStop");
  ++passes_;
  allSubmitted_ = stop.isAllPassSubmitted != 0;
  return allSubmitted_;
}

Status CuptiSession::evaluate(size_t range, double (&values)[kMetricCount]) {
  KB_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, eval);
  eval.pHostObject = host_;
  eval.pCounterDataImage = counterData_.data();
  eval.counterDataImageSize = counterData_.size();
  eval.rangeIndex = range;
  eval.ppMetricNames = metrics_.data();
  eval.numMetrics = metrics_.size();
  eval.pMetricValues = values;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiProfilerHostEvaluateToGpuValues(&eval),
                           "cuptiProfilerHostEvaluateToGpuValues");
  // A value the report could not hold (a ratio over no active cycles).
  for (size_t i = 0; i < kMetricCount; ++i)
    if (!std::isfinite(values[i]) || values[i] < 0)
      return internalError(
          std::string("CUPTI evaluated ") + kCounterMetrics[i] + " of kernel " +
          std::to_string(range) + " to " + std::to_string(values[i]));
  return okStatus();
}

StatusOr<KernelCounters> CuptiSession::values() {
  if (!allSubmitted_)
    return failedPrecondition("values: the counters need more passes");
  KB_RETURN_IF_ERROR(target_.makeCurrent());
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
  decode.pRangeProfilerObject = ranges_;
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerDecodeData(&decode),
                           "cuptiRangeProfilerDecodeData");
  KB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
  info.pCounterDataImage = counterData_.data();
  info.counterDataImageSize = counterData_.size();
  KB_CUPTI_RETURN_IF_ERROR(s_, s_.cuptiRangeProfilerGetCounterDataInfo(&info),
                           "cuptiRangeProfilerGetCounterDataInfo");
  if (info.numTotalRanges == 0 || decode.numOfRangeDropped != 0)
    return internalError(
        "CUPTI counted " + std::to_string(info.numTotalRanges) +
        " kernel(s) and dropped " + std::to_string(decode.numOfRangeDropped) +
        " (at most " + std::to_string(kMaxCountedKernels) + " per pass)");
  // Sums over the kernels; percentages weighted by each kernel's GPU time.
  KernelCounters c;
  double occupancy = 0, throughput = 0;
  for (size_t range = 0; range < info.numTotalRanges; ++range) {
    double v[kMetricCount] = {};
    KB_RETURN_IF_ERROR(evaluate(range, v));
    c.dramBytesRead += v[0];
    c.dramBytesWritten += v[1];
    occupancy += v[2] * v[4];
    throughput += v[3] * v[4];
    c.gpuTimeNs += v[4];
  }
  if (c.gpuTimeNs > 0) {
    c.achievedOccupancyPct = occupancy / c.gpuTimeNs;
    c.smThroughputPct = throughput / c.gpuTimeNs;
  }
  c.kernels = static_cast<uint32_t>(info.numTotalRanges);
  c.passes = passes_;
  return c;
}

/// Resolves every entry point of |library|, found as |path|.
StatusOr<std::shared_ptr<const CuptiSymbols>>
resolveCupti(DynamicLibrary library, const std::string &path) {
  auto syms = std::make_shared<CuptiSymbols>();
  syms->library = std::move(library);
  syms->path = path;
#define KB_CUPTI_RESOLVE(name)                                                 \
  syms->name =                                                                 \
      reinterpret_cast<decltype(syms->name)>(syms->library.symbol(#name));     \
  if (!syms->name)                                                             \
    return unavailable(path + " has no " #name                                 \
                              ": CUPTI before CUDA 12.6 has no range "         \
                              "profiler; install a newer CUDA toolkit");
  KB_CUPTI_FUNCTIONS(KB_CUPTI_RESOLVE)
#undef KB_CUPTI_RESOLVE
  return std::shared_ptr<const CuptiSymbols>(std::move(syms));
}

/// libcupti by soname on the loader's path, then where the CUDA toolkit
/// installs it (it is not on the default path).
StatusOr<std::shared_ptr<const CuptiSymbols>> loadCupti() {
  static const char *const kCandidates[] = {
      "libcupti.so.13",
      "libcupti.so",
      "/usr/local/cuda/lib64/libcupti.so.13",
      "/usr/local/cuda/lib64/libcupti.so",
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
  };
  std::string tried;
  for (const char *candidate : kCandidates) {
    // Never unloaded: CUPTI hooks the driver when it is initialized.
    StatusOr<DynamicLibrary> library =
        DynamicLibrary::open(candidate, DynamicLibrary::Unload::Never);
    if (library.ok())
      return resolveCupti(std::move(*library), candidate);
    tried += std::string(tried.empty() ? "" : "; ") + candidate;
  }
  return unavailable(
      "NVIDIA's CUPTI (libcupti.so) was not found (tried " + tried +
      "); install the CUDA toolkit's CUPTI, or put its lib64 directory on "
      "LD_LIBRARY_PATH");
}

} // namespace

std::string CuptiSymbols::describe(CUptiResult result) const {
  const char *text = nullptr;
  if (cuptiGetResultString && cuptiGetResultString(result, &text) == 0 && text)
    return text;
  return "CUptiResult " + std::to_string(static_cast<int>(result));
}

CuptiLibrary::CuptiLibrary(std::shared_ptr<const CuptiSymbols> preset)
    : syms_(std::move(preset)) {}

StatusOr<const CuptiSymbols *> CuptiLibrary::get() {
  if (syms_)
    return syms_.get();
  if (failure_)
    return *failure_;
  StatusOr<std::shared_ptr<const CuptiSymbols>> loaded = loadCupti();
  if (!loaded.ok()) {
    failure_ = loaded.status();
    return *failure_;
  }
  syms_ = std::move(*loaded);
  return syms_.get();
}

StatusOr<std::unique_ptr<CounterSession>>
createCuptiSession(const CuptiSymbols &syms, CuptiTarget target) {
  auto session = std::make_unique<CuptiSession>(syms, std::move(target));
  KB_RETURN_IF_ERROR(session->open());
  return std::unique_ptr<CounterSession>(std::move(session));
}

#endif // KB_HAVE_CUPTI

} // namespace kb::hal::cuda

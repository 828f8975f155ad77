//===- runtime/hal/drivers/cuda/cupti_fake.cpp - Recording fake of CUPTI --===//
#include "runtime/hal/drivers/cuda/cupti_fake.h"

#include "runtime/hal/drivers/cuda/cupti_symbols.h"

#include <cstring>

namespace kb::hal::cuda::testing {
namespace {

FakeCupti *gFake = nullptr;

// Opaque handles the fake hands out; never dereferenced.
auto *const kHost = reinterpret_cast<CUpti_Profiler_Host_Object *>(0x1000);
auto *const kRanges = reinterpret_cast<CUpti_RangeProfiler_Object *>(0x2000);
constexpr size_t kAvailabilityBytes = 64, kConfigBytes = 128,
                 kCounterDataBytes = 256;

/// Records |fn|; the scripted refusal when it is the one.
CUptiResult call(const char *fn, std::string detail = "") {
  gFake->calls.push_back(detail.empty() ? fn : std::string(fn) + " " + detail);
  if (gFake->onCall)
    gFake->onCall(fn);
  return gFake->refuse == fn ? CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                             : CUPTI_SUCCESS;
}

#define KB_FAKE_CALL(...)                                                      \
  if (CUptiResult r = call(__VA_ARGS__); r != CUPTI_SUCCESS)                   \
  return r

CUptiResult resultString(CUptiResult result, const char **text) {
  *text = result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
              ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
              : "CUPTI_ERROR_UNKNOWN";
  return CUPTI_SUCCESS;
}

CUptiResult initialize(CUpti_Profiler_Initialize_Params *) {
  return call("cuptiProfilerInitialize");
}
CUptiResult deinitialize(CUpti_Profiler_DeInitialize_Params *) {
  return call("cuptiProfilerDeInitialize");
}
CUptiResult chipName(CUpti_Device_GetChipName_Params *p) {
  KB_FAKE_CALL("cuptiDeviceGetChipName");
  gFake->deviceIndex = p->deviceIndex;
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}
CUptiResult availability(CUpti_Profiler_GetCounterAvailability_Params *p) {
  KB_FAKE_CALL("cuptiProfilerGetCounterAvailability");
  gFake->context = p->ctx;
  if (p->pCounterAvailabilityImage)
    std::memset(p->pCounterAvailabilityImage, 1,
                std::min(p->counterAvailabilityImageSize, kAvailabilityBytes));
  p->counterAvailabilityImageSize = kAvailabilityBytes;
  return CUPTI_SUCCESS;
}
CUptiResult hostInitialize(CUpti_Profiler_Host_Initialize_Params *p) {
  KB_FAKE_CALL("cuptiProfilerHostInitialize");
  if (!p->pChipName || p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->pHostObject = kHost;
  return CUPTI_SUCCESS;
}
CUptiResult hostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p) {
  KB_FAKE_CALL("cuptiProfilerHostDeinitialize");
  return p->pHostObject == kHost ? CUPTI_SUCCESS
                                 : CUPTI_ERROR_INVALID_PARAMETER;
}
CUptiResult addMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p) {
  KB_FAKE_CALL("cuptiProfilerHostConfigAddMetrics");
  for (size_t i = 0; i < p->numMetrics; ++i)
    gFake->configuredMetrics.push_back(p->ppMetricNames[i]);
  return CUPTI_SUCCESS;
}
CUptiResult configSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p) {
  KB_FAKE_CALL("cuptiProfilerHostGetConfigImageSize");
  p->configImageSize = kConfigBytes;
  return CUPTI_SUCCESS;
}
CUptiResult configImage(CUpti_Profiler_Host_GetConfigImage_Params *p) {
  KB_FAKE_CALL("cuptiProfilerHostGetConfigImage");
  if (p->configImageSize != kConfigBytes || !p->pConfigImage)
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pConfigImage, 2, kConfigBytes);
  return CUPTI_SUCCESS;
}
CUptiResult evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p) {
  KB_FAKE_CALL("cuptiProfilerHostEvaluateToGpuValues",
               std::to_string(p->rangeIndex));
  if (p->rangeIndex >= gFake->kernels.size() ||
      p->counterDataImageSize != kCounterDataBytes)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const std::map<std::string, double> &kernel = gFake->kernels[p->rangeIndex];
  for (size_t i = 0; i < p->numMetrics; ++i) {
    auto it = kernel.find(p->ppMetricNames[i]);
    if (it == kernel.end())
      return CUPTI_ERROR_INVALID_METRIC_NAME;
    p->pMetricValues[i] = it->second;
  }
  return CUPTI_SUCCESS;
}

CUptiResult enable(CUpti_RangeProfiler_Enable_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerEnable");
  gFake->context = p->ctx;
  p->pRangeProfilerObject = kRanges;
  return CUPTI_SUCCESS;
}
CUptiResult disable(CUpti_RangeProfiler_Disable_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerDisable");
  return p->pRangeProfilerObject == kRanges ? CUPTI_SUCCESS
                                            : CUPTI_ERROR_INVALID_PARAMETER;
}
CUptiResult dataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerGetCounterDataSize");
  p->counterDataSize = kCounterDataBytes;
  return CUPTI_SUCCESS;
}
CUptiResult
dataInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerCounterDataImageInitialize");
  return p->counterDataSize == kCounterDataBytes && p->pCounterData
             ? CUPTI_SUCCESS
             : CUPTI_ERROR_INVALID_PARAMETER;
}
CUptiResult setConfig(CUpti_RangeProfiler_SetConfig_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerSetConfig");
  gFake->stops = 0; // a configuration starts its passes from the first
  bool valid =
      p->pRangeProfilerObject == kRanges && p->configSize == kConfigBytes &&
      p->counterDataImageSize == kCounterDataBytes &&
      p->range == CUPTI_AutoRange && p->replayMode == CUPTI_UserReplay &&
      p->maxRangesPerPass >= gFake->kernels.size();
  return valid ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}
CUptiResult start(CUpti_RangeProfiler_Start_Params *) {
  KB_FAKE_CALL("cuptiRangeProfilerStart");
  if (gFake->open)
    return CUPTI_ERROR_INVALID_OPERATION;
  gFake->open = 1;
  return CUPTI_SUCCESS;
}
CUptiResult stop(CUpti_RangeProfiler_Stop_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerStop");
  if (!gFake->open)
    return CUPTI_ERROR_INVALID_OPERATION;
  gFake->open = 0;
  p->isAllPassSubmitted = ++gFake->stops >= gFake->passes;
  return CUPTI_SUCCESS;
}
CUptiResult decode(CUpti_RangeProfiler_DecodeData_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerDecodeData");
  p->numOfRangeDropped = 0;
  return gFake->stops >= gFake->passes ? CUPTI_SUCCESS
                                       : CUPTI_ERROR_INVALID_OPERATION;
}
CUptiResult dataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p) {
  KB_FAKE_CALL("cuptiRangeProfilerGetCounterDataInfo");
  p->numTotalRanges = gFake->kernels.size();
  return CUPTI_SUCCESS;
}

} // namespace

FakeCupti::FakeCupti() { gFake = this; }
FakeCupti::~FakeCupti() { gFake = nullptr; }

std::shared_ptr<const CuptiSymbols> FakeCupti::symbols() const {
  auto s = std::make_shared<CuptiSymbols>();
  s->path = "(fake)";
  s->cuptiGetResultString = resultString;
  s->cuptiProfilerInitialize = initialize;
  s->cuptiProfilerDeInitialize = deinitialize;
  s->cuptiDeviceGetChipName = chipName;
  s->cuptiProfilerGetCounterAvailability = availability;
  s->cuptiProfilerHostInitialize = hostInitialize;
  s->cuptiProfilerHostDeinitialize = hostDeinitialize;
  s->cuptiProfilerHostConfigAddMetrics = addMetrics;
  s->cuptiProfilerHostGetConfigImageSize = configSize;
  s->cuptiProfilerHostGetConfigImage = configImage;
  s->cuptiProfilerHostEvaluateToGpuValues = evaluate;
  s->cuptiRangeProfilerEnable = enable;
  s->cuptiRangeProfilerDisable = disable;
  s->cuptiRangeProfilerGetCounterDataSize = dataSize;
  s->cuptiRangeProfilerCounterDataImageInitialize = dataInitialize;
  s->cuptiRangeProfilerSetConfig = setConfig;
  s->cuptiRangeProfilerStart = start;
  s->cuptiRangeProfilerStop = stop;
  s->cuptiRangeProfilerDecodeData = decode;
  s->cuptiRangeProfilerGetCounterDataInfo = dataInfo;
  return s;
}

size_t FakeCupti::count(const std::string &fn) const {
  size_t n = 0;
  for (const std::string &c : calls)
    n += c == fn || c.rfind(fn + " ", 0) == 0;
  return n;
}

std::string FakeCupti::trace() const {
  std::string out;
  for (const std::string &c : calls)
    out += c + "\n";
  return out;
}

} // namespace kb::hal::cuda::testing

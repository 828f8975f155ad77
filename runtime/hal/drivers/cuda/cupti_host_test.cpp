//===- runtime/hal/drivers/cuda/cupti_host_test.cpp - Real CUPTI, host side
//===//
//
// What can be checked against NVIDIA's own libcupti without a GPU: the
// library has every entry point the counter sessions resolve, and its
// metric database (the host side of the range profiler) knows the metrics
// we ask for, on the chips of the GPUs we run on, and schedules them in a
// few passes. A misspelled metric would otherwise surface only on a GPU
// host, as a failed session. Skips where libcupti is not installed.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cupti_session.h"
#include "runtime/hal/drivers/cuda/cupti_symbols.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace kb::hal::cuda {
namespace {

/// GH100: H100 and H200 (the GPU host); GA100: A100; AD102: L40 and RTX 4090.
const char *const kChips[] = {"GH100", "GA100", "AD102"};

template <typename T> T params(size_t size) {
  T p;
  std::memset(&p, 0, sizeof p);
  p.structSize = size;
  return p;
}

class CuptiHostTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Built only where CMake found the toolkit's CUPTI headers, which ship
    // beside the library: a libcupti that does not load or resolve here is
    // a regression, never a skip.
    StatusOr<const CuptiSymbols *> syms = library_.get();
    ASSERT_TRUE(syms.ok()) << syms.status().message();
    s_ = *syms;
  }
  CuptiLibrary library_;
  const CuptiSymbols *s_ = nullptr;
};

TEST_F(CuptiHostTest, EveryMetricWeAskForIsKnownAndScheduled) {
  std::vector<const char *> metrics(std::begin(kCounterMetrics),
                                    std::end(kCounterMetrics));
  for (const char *chip : kChips) {
    SCOPED_TRACE(chip);
    auto init = params<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    init.pChipName = chip;
    ASSERT_EQ(s_->cuptiProfilerHostInitialize(&init), CUPTI_SUCCESS);
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = init.pHostObject;
    add.ppMetricNames = metrics.data();
    add.numMetrics = metrics.size();
    CUptiResult added = s_->cuptiProfilerHostConfigAddMetrics(&add);
    EXPECT_EQ(added, CUPTI_SUCCESS) << s_->describe(added);
    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = init.pHostObject;
    EXPECT_EQ(s_->cuptiProfilerHostGetConfigImageSize(&size), CUPTI_SUCCESS);
    EXPECT_GT(size.configImageSize, 0u);
    auto done = params<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    done.pHostObject = init.pHostObject;
    EXPECT_EQ(s_->cuptiProfilerHostDeinitialize(&done), CUPTI_SUCCESS);
  }
}

TEST_F(CuptiHostTest, AnUnknownMetricIsRefusedOnTheHost) {
  // The same check fails, so the one above can: a name CUPTI does not know.
  auto init = params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = kChips[0];
  ASSERT_EQ(s_->cuptiProfilerHostInitialize(&init), CUPTI_SUCCESS);
  const char *bogus[] = {"dram__bytes_sideways.sum"};
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = init.pHostObject;
  add.ppMetricNames = bogus;
  add.numMetrics = 1;
  EXPECT_NE(s_->cuptiProfilerHostConfigAddMetrics(&add), CUPTI_SUCCESS);
  auto done = params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  done.pHostObject = init.pHostObject;
  EXPECT_EQ(s_->cuptiProfilerHostDeinitialize(&done), CUPTI_SUCCESS);
}

} // namespace
} // namespace kb::hal::cuda

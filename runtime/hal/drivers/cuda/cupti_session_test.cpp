//===- runtime/hal/drivers/cuda/cupti_session_test.cpp - CUPTI protocol ---===//
//
// The CUDA driver's counter sessions over recording fakes of the driver API
// and of CUPTI: the order CUPTI's range profiler needs (initialize, the
// host's configuration, enable, set the configuration once, a Start/Stop per
// pass until every pass is submitted, decode, evaluate each kernel), the sums
// over kernels, the teardown on every path, and a host that restricts
// counters to administrators as an Unavailable status that says what to do. On
// a GPU host the same sessions run against libcupti (bench --counters in
// tests/gpu).
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"
#include "runtime/hal/drivers/cuda/cuda_fake_symbols.h"
#include "runtime/hal/drivers/cuda/cupti_fake.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace kb::hal::cuda {
namespace {

using testing::FakeCuda;
using testing::FakeCupti;

class CuptiSessionTest : public ::testing::Test {
protected:
  void SetUp() override { cupti_.kernels = {kernel(4194304, 87.5, 1000)}; }
  /// A kernel's metrics: |read| bytes read, half that written.
  static std::map<std::string, double> kernel(double read, double occupancy,
                                              double ns) {
    return {{"dram__bytes_read.sum", read},
            {"dram__bytes_write.sum", read / 2},
            {"sm__warps_active.avg.pct_of_peak_sustained_active", occupancy},
            {"sm__throughput.avg.pct_of_peak_sustained_elapsed", occupancy / 2},
            {"gpu__time_duration.sum", ns}};
  }
  /// A device of a driver over both fakes.
  std::unique_ptr<Device> device() {
    auto driver = CudaDriver::create({}, cuda_.symbols(), cupti_.symbols());
    EXPECT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device = driver_->createDevice(0);
    EXPECT_TRUE(device.ok()) << device.status().message();
    return std::move(*device);
  }
  /// A session's values after one pass (cupti_.passes = 1).
  Status valuesOfOnePass() {
    auto dev = device();
    auto session = dev->createCounterSession();
    if (!session.ok())
      return session.status();
    if (Status begun = (*session)->beginPass(); !begun.ok())
      return begun;
    StatusOr<bool> done = (*session)->endPass();
    if (!done.ok() || !*done)
      return internalError("one pass did not do");
    return (*session)->values().status();
  }
  /// The calls from |first| on, without their details.
  std::vector<std::string> callsFrom(const std::string &first) const {
    std::vector<std::string> out;
    bool on = false;
    for (const std::string &c : cupti_.calls) {
      on = on || c.rfind(first, 0) == 0;
      if (on)
        out.push_back(c.substr(0, c.find(' ')));
    }
    return out;
  }

  FakeCuda cuda_;
  FakeCupti cupti_;
  std::unique_ptr<Driver> driver_;
};

TEST_F(CuptiSessionTest, CountsEveryKernelOverEveryPassTheCountersNeed) {
  cupti_.passes = 3;
  // Two kernels in the work: sums, and percentages by GPU time.
  cupti_.kernels = {kernel(4194304, 20, 1000), kernel(2097152, 60, 3000)};
  auto dev = device();
  auto session = dev->createCounterSession();
  ASSERT_TRUE(session.ok()) << session.status().message();
  // Configured for this device's context and ordinal, with our metrics.
  EXPECT_NE(cupti_.context, nullptr);
  EXPECT_EQ(cupti_.deviceIndex, 0u);
  EXPECT_EQ(cupti_.configuredMetrics,
            std::vector<std::string>(std::begin(kCounterMetrics),
                                     std::end(kCounterMetrics)));
  for (int pass = 0; pass < 3; ++pass) {
    ASSERT_TRUE((*session)->beginPass().ok());
    StatusOr<bool> done = (*session)->endPass();
    ASSERT_TRUE(done.ok()) << done.status().message();
    EXPECT_EQ(*done, pass == 2) << "pass " << pass;
  }
  StatusOr<KernelCounters> values = (*session)->values();
  ASSERT_TRUE(values.ok()) << values.status().message();
  EXPECT_EQ(values->dramBytesRead, 6291456);
  EXPECT_EQ(values->dramBytesWritten, 3145728);
  EXPECT_EQ(values->achievedOccupancyPct, 50); // (20 x 1 + 60 x 3) / 4
  EXPECT_EQ(values->smThroughputPct, 25);
  EXPECT_EQ(values->gpuTimeNs, 4000);
  EXPECT_EQ(values->kernels, 2u);
  EXPECT_EQ(values->passes, 3u);
  session->reset();

  std::vector<std::string> expected = {
      "cuptiProfilerInitialize",
      "cuptiDeviceGetChipName",
      "cuptiProfilerGetCounterAvailability",
      "cuptiProfilerGetCounterAvailability",
      "cuptiProfilerHostInitialize",
      "cuptiProfilerHostConfigAddMetrics",
      "cuptiProfilerHostGetConfigImageSize",
      "cuptiProfilerHostGetConfigImage",
      "cuptiRangeProfilerEnable",
      "cuptiRangeProfilerGetCounterDataSize",
      "cuptiRangeProfilerCounterDataImageInitialize",
      "cuptiRangeProfilerSetConfig"};
  for (int pass = 0; pass < 3; ++pass)
    for (const char *fn : {"cuptiRangeProfilerStart", "cuptiRangeProfilerStop"})
      expected.push_back(fn);
  for (const char *fn :
       {"cuptiRangeProfilerDecodeData", "cuptiRangeProfilerGetCounterDataInfo",
        "cuptiProfilerHostEvaluateToGpuValues",
        "cuptiProfilerHostEvaluateToGpuValues", "cuptiRangeProfilerDisable",
        "cuptiProfilerHostDeinitialize", "cuptiProfilerDeInitialize"})
    expected.push_back(fn);
  EXPECT_EQ(callsFrom("cuptiProfilerInitialize"), expected) << cupti_.trace();
  EXPECT_EQ(cupti_.count("cuptiProfilerHostEvaluateToGpuValues 1"), 1u);
}

TEST_F(CuptiSessionTest, AHostThatRestrictsCountersIsUnavailableWithTheFix) {
  cupti_.refuse = "cuptiProfilerGetCounterAvailability";
  auto dev = device();
  auto session = dev->createCounterSession();
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::Unavailable);
  const std::string &why = session.status().message();
  EXPECT_NE(why.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos)
      << why;
  EXPECT_NE(why.find("NVreg_RestrictProfilingToAdminUsers=0"),
            std::string::npos)
      << why;
  // Torn down: what was initialized is deinitialized, nothing was enabled.
  EXPECT_EQ(cupti_.count("cuptiProfilerDeInitialize"), 1u) << cupti_.trace();
  EXPECT_EQ(cupti_.count("cuptiRangeProfilerEnable"), 0u);
}

TEST_F(CuptiSessionTest, ARefusedStartEndsThePassAndTheSession) {
  // Some drivers let the configuration through and refuse the first Start.
  cupti_.refuse = "cuptiRangeProfilerStart";
  auto dev = device();
  auto session = dev->createCounterSession();
  ASSERT_TRUE(session.ok()) << session.status().message();
  Status begun = (*session)->beginPass();
  EXPECT_EQ(begun.code(), StatusCode::Unavailable) << begun.message();
  session->reset();
  EXPECT_EQ(callsFrom("cuptiRangeProfilerDisable"),
            (std::vector<std::string>{"cuptiRangeProfilerDisable",
                                      "cuptiProfilerHostDeinitialize",
                                      "cuptiProfilerDeInitialize"}))
      << cupti_.trace();
}

TEST_F(CuptiSessionTest, PassesOutOfOrderAreRefusedBeforeCupti) {
  cupti_.passes = 1;
  auto dev = device();
  auto session = dev->createCounterSession();
  ASSERT_TRUE(session.ok()) << session.status().message();
  CounterSession &s = **session;
  EXPECT_EQ(s.endPass().status().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(s.values().status().code(), StatusCode::FailedPrecondition);
  ASSERT_TRUE(s.beginPass().ok());
  EXPECT_EQ(s.beginPass().code(), StatusCode::FailedPrecondition);
  ASSERT_TRUE(*s.endPass());
  EXPECT_EQ(s.beginPass().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(cupti_.count("cuptiRangeProfilerStart"), 1u) << cupti_.trace();
}

TEST_F(CuptiSessionTest, AMetricTheHostCannotEvaluateIsAnError) {
  cupti_.passes = 1;
  cupti_.kernels[0].erase("dram__bytes_write.sum");
  Status failed = valuesOfOnePass();
  EXPECT_EQ(failed.code(), StatusCode::Internal);
  EXPECT_NE(failed.message().find("cuptiProfilerHostEvaluateToGpuValues"),
            std::string::npos)
      << failed.message();
}

// A value bench.json could not hold (a ratio over no active cycles) is the
// session's error, not a report that cannot be written.
TEST_F(CuptiSessionTest, ANonFiniteValueIsAnErrorNamingTheMetric) {
  cupti_.passes = 1;
  cupti_.kernels[0]["sm__warps_active.avg.pct_of_peak_sustained_active"] =
      std::numeric_limits<double>::quiet_NaN();
  Status failed = valuesOfOnePass();
  EXPECT_EQ(failed.code(), StatusCode::Internal);
  EXPECT_NE(failed.message().find("sm__warps_active"), std::string::npos)
      << failed.message();
}

TEST_F(CuptiSessionTest, NoKernelInThePassIsAnError) {
  cupti_.passes = 1;
  cupti_.kernels.clear();
  Status failed = valuesOfOnePass();
  EXPECT_EQ(failed.code(), StatusCode::Internal);
  EXPECT_NE(failed.message().find("counted 0 kernel(s)"), std::string::npos)
      << failed.message();
}

} // namespace
} // namespace kb::hal::cuda

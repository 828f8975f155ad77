//===- runtime/bench/bench_cuda_protocol_test.cpp - Protocol on CUDA ------===//
//
// The sampling loop over the CUDA driver on its recording fake of the driver
// API (runtime/hal/drivers/cuda/cuda_fake_symbols.h): what reaches the
// device per sample, in which order, with which launch shapes. These are
// timing defects that only show as wrong numbers on a GPU (a clock taken on
// two SMs, launch gaps inside the timed region, a graph's first launch
// timed), pinned down where no GPU exists. The fake's event pairs always
// read 0.25 ms.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/clock_stamp.h"
#include "runtime/bench/counted_run.h"
#include "runtime/bench/measure.h"

#include "runtime/hal/drivers/cuda/cuda_driver.h"
#include "runtime/hal/drivers/cuda/cuda_fake_symbols.h"
#if KB_HAVE_CUPTI_FAKE
#include "runtime/hal/drivers/cuda/cupti_fake.h"
#endif
#include "runtime/hal/drivers/registration.h"
#include "runtime/testing/device_environment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace kb::bench {
namespace {

using hal::cuda::testing::FakeCuda;

constexpr uint64_t kStampBytes = 32; // 2 x {ns, cycles}
constexpr unsigned kSms = 7;

const char *kPtx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                   ".visible .entry k(.param .u64 a, .param .u32 n)\n{\n"
                   "  ret;\n}\n";

class BenchCudaProtocolTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Both the subject and the clock stamp take (u64 pointer, u32).
    fake_.params = {{0, 8}, {8, 4}};
    fake_.multiprocessorCount = kSms;
    open();
  }
  void open() {
    device_.reset();
    driver_.reset();
    auto driver = hal::cuda::CudaDriver::create({}, fake_.symbols(), cupti_);
    ASSERT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device = driver_->createDevice(0);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
    hal::ExecutableSpec spec;
    spec.name = "subject";
    spec.format = hal::ExecutableFormat::Ptx;
    spec.target = "sm_90";
    spec.data = kPtx;
    KernelAbi abi;
    abi.entry = "k";
    abi.bindings = {{"a", ElementType::U32, Access::ReadWrite}};
    abi.constants = {{"n", ScalarType::U32}};
    abi.workgroupSize = {64, 1, 1};
    spec.exports = {abi};
    auto exe = device_->createExecutable(spec);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    exe_ = std::move(*exe);
    auto buffer = device_->allocateBuffer(256, hal::MemoryType::DeviceLocal);
    ASSERT_TRUE(buffer.ok());
    buffer_ = std::move(*buffer);
  }
  void TearDown() override {
    exe_.reset();
    buffer_.reset();
    device_.reset();
    driver_.reset();
  }

  /// A subject of |dispatches| launches of one block each.
  Subject subject(int dispatches) {
    return {"subject", [this, dispatches](hal::CommandBuffer &c) -> Status {
              for (int i = 0; i < dispatches; ++i) {
                hal::DispatchParams d;
                d.executable = exe_.get();
                d.bindings = {{buffer_.get(), 0, 0}};
                d.constants.assign(4, 0);
                KB_RETURN_IF_ERROR(c.dispatch(d));
                KB_RETURN_IF_ERROR(c.barrier());
              }
              return okStatus();
            }};
  }
  MeasureSettings settings() {
    MeasureSettings s;
    s.stopping.minSamples = 3;
    s.stopping.minTimeS = 0;
    s.stopping.noiseRequired = false;
    s.l2 = {1 << 16, "flag"};
    s.hotMinSampleNs = 1e6;
    return s;
  }
  StatusOr<Timing> measure(TimingMode mode, int dispatches) {
    KB_ASSIGN_OR_RETURN(auto engine, Engine::create(*device_, settings()));
    if (!engine->clockError().empty())
      return internalError(engine->clockError());
    KB_ASSIGN_OR_RETURN(
        auto results, engine->measureInterleaved({subject(dispatches)}, mode));
    return results.at(0);
  }
  size_t countIn(std::string_view fn, size_t from, size_t to,
                 uint64_t a = ~uint64_t(0)) const {
    size_t n = 0;
    for (size_t i = from; i < to && i < fake_.calls.size(); ++i)
      n += fn == fake_.calls[i].fn &&
           (a == ~uint64_t(0) || fake_.calls[i].a == a);
    return n;
  }

  FakeCuda fake_;
  /// CUPTI for the counter tests (null: the real one, never asked).
  std::shared_ptr<const hal::cuda::CuptiSymbols> cupti_;
  std::unique_ptr<hal::Driver> driver_;
  std::unique_ptr<hal::Device> device_;
  std::shared_ptr<hal::Executable> exe_;
  std::shared_ptr<hal::Buffer> buffer_;
};

// Cold: the whole sample is one graph launch, so the launch gaps between
// the subject's three dispatches are not inside the timed region, and the
// graph's first (instantiating) launch is not a sample.
TEST_F(BenchCudaProtocolTest, AColdSampleIsOneGraphLaunch) {
  size_t before = fake_.calls.size();
  auto result = measure(TimingMode::Cold, 3);
  ASSERT_TRUE(result.ok()) << result.status().message();
  size_t begin = fake_.find("cuStreamBeginCapture", before);
  size_t end = fake_.find("cuStreamEndCapture", before);
  ASSERT_LT(begin, end) << fake_.trace();
  EXPECT_EQ(fake_.count("cuStreamBeginCapture"), 1u) << "captured once";
  // Inside the capture: the flush, then stamp, timestamp, 3 dispatches,
  // timestamp, stamp.
  EXPECT_EQ(countIn("cuMemsetD32Async", begin, end), 2u) << fake_.trace();
  EXPECT_EQ(countIn("cuEventRecordWithFlags", begin, end), 2u);
  EXPECT_EQ(countIn("cuLaunchKernel", begin, end, 1), 3u) << fake_.trace();
  size_t t0 = fake_.find("cuEventRecordWithFlags", begin);
  size_t t1 = fake_.find("cuEventRecordWithFlags", t0 + 1);
  EXPECT_EQ(countIn("cuLaunchKernel", t0, t1, 1), 3u) << fake_.trace();
  EXPECT_EQ(countIn("cuLaunchKernel", end, fake_.calls.size()), 0u)
      << "work issued outside the graph\n"
      << fake_.trace();
  // One untimed launch, then one launch per sample.
  size_t samples = result->samples.size() + result->discarded;
  EXPECT_GE(samples, 3u);
  EXPECT_EQ(fake_.count("cuGraphLaunch"), samples + 1) << fake_.trace();
  size_t first = fake_.find("cuGraphLaunch", end);
  size_t second = fake_.find("cuGraphLaunch", first + 1);
  EXPECT_EQ(countIn("cuEventElapsedTime", first, second), 0u)
      << "the graph's first launch was timed\n"
      << fake_.trace();
}

// A time no clock can give (zero, negative, NaN: a timestamp that went
// backwards or a driver bug) is not a sample: it is discarded and counted,
// and the kernel's timing is made of the others.
TEST_F(BenchCudaProtocolTest, ImpossibleTimesAreDiscardedAndCounted) {
  size_t before = fake_.count("cuEventElapsedTime");
  for (unsigned i = 0; i < 3; ++i) {
    fake_.elapsedMs[before + 2 + i] = i == 0 ? 0.0f : i == 1 ? -0.5f : NAN;
  }
  auto result = measure(TimingMode::Cold, 1);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->discarded, 3u) << fake_.trace();
  EXPECT_GE(result->samples.size(), 3u);
  for (const Sample &s : result->samples)
    EXPECT_GT(s.gpuNs, 0.0);
}

// The clock stamp runs one block per SM (only the block on SM 0 writes), and
// its slots are cleared in every sample before the first stamp, so a sample
// without a block on SM 0 cannot reuse the previous sample's stamps.
TEST_F(BenchCudaProtocolTest, StampsRunOnEverySmAndAreClearedPerSample) {
  size_t before = fake_.calls.size();
  ASSERT_TRUE(measure(TimingMode::Cold, 1).ok());
  size_t begin = fake_.find("cuStreamBeginCapture", before);
  size_t end = fake_.find("cuStreamEndCapture", before);
  EXPECT_EQ(countIn("cuLaunchKernel", begin, end, kSms), 2u) << fake_.trace();
  size_t clear = begin;
  for (; clear < end; ++clear)
    if (std::strcmp(fake_.calls[clear].fn, "cuMemsetD32Async") == 0 &&
        fake_.calls[clear].b == kStampBytes / 4)
      break;
  ASSERT_LT(clear, end) << "the stamp slots are not cleared\n" << fake_.trace();
  size_t stamp = begin;
  while (stamp < end &&
         !(std::strcmp(fake_.calls[stamp].fn, "cuLaunchKernel") == 0 &&
           fake_.calls[stamp].a == kSms))
    ++stamp;
  EXPECT_LT(clear, stamp) << fake_.trace();

  // Without an SM count, more blocks than any GPU has SMs.
  fake_.multiprocessorCount = 0;
  open();
  before = fake_.calls.size();
  ASSERT_TRUE(measure(TimingMode::Cold, 1).ok());
  begin = fake_.find("cuStreamBeginCapture", before);
  end = fake_.find("cuStreamEndCapture", before);
  EXPECT_EQ(countIn("cuLaunchKernel", begin, end, clockStampBlocks(0)), 2u)
      << fake_.trace();
}

// Hot: the batch is sized from a probe of several dispatches (0.25 ms for 8
// reads 31 us each: 32 per 1 ms sample; a one-dispatch probe would read
// 0.25 ms and size 4), and the hot graph is launched once untimed.
TEST_F(BenchCudaProtocolTest, HotProbesABatchAndWarmsTheGraph) {
  size_t before = fake_.calls.size();
  auto result = measure(TimingMode::Hot, 1);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->dispatchesPerSample, 32u);
  // Graphs: the 1-dispatch probe, the 8-dispatch probe, the hot graph.
  ASSERT_EQ(fake_.count("cuStreamBeginCapture"), 3u) << fake_.trace();
  size_t probe = fake_.find("cuStreamBeginCapture",
                            fake_.find("cuStreamBeginCapture", before) + 1);
  size_t probeEnd = fake_.find("cuStreamEndCapture", probe);
  size_t t0 = fake_.find("cuEventRecordWithFlags", probe);
  size_t t1 = fake_.find("cuEventRecordWithFlags", t0 + 1);
  EXPECT_LT(t1, probeEnd);
  EXPECT_EQ(countIn("cuLaunchKernel", t0, t1, 1), 8u) << fake_.trace();

  uint64_t hot = fake_.graphs.size(); // the last graph's handle
  size_t samples = result->samples.size() + result->discarded;
  EXPECT_EQ(countIn("cuGraphLaunch", before, fake_.calls.size(), hot),
            samples + 1)
      << fake_.trace();
  size_t hotEnd = fake_.find("cuStreamEndCapture",
                             fake_.find("cuStreamBeginCapture", probeEnd));
  size_t first = fake_.find("cuGraphLaunch", hotEnd);
  size_t second = fake_.find("cuGraphLaunch", first + 1);
  EXPECT_EQ(countIn("cuEventElapsedTime", first, second), 0u)
      << "the hot graph's first launch was timed\n"
      << fake_.trace();
}

// The same protocol on a real GPU (skipped without one): the stamp kernel
// loads, a block lands on SM 0 in every sample, and the graph path runs the
// flush, the stamps and the timestamps.
TEST(BenchCudaDeviceTest, EverySampleCarriesTheSmClock) {
  // Skips only where libcuda lists no device; a listed GPU that cannot be
  // opened is a failure.
  if (!kb::testing::cudaDeviceListed())
    GTEST_SKIP() << kb::testing::noCudaReason();
  auto selected = hal::selectDevice(hal::builtinDrivers(), "cuda");
  ASSERT_TRUE(selected.ok()) << selected.status().message();
  hal::Device &device = *selected->device;
  MeasureSettings settings;
  settings.stopping.minSamples = 20;
  settings.stopping.minTimeS = 0;
  settings.stopping.noiseRequired = false;
  settings.l2 = {1 << 20, "flag"};
  settings.hotMinSampleNs = 1e5;
  auto engine = Engine::create(device, settings);
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  ASSERT_EQ((*engine)->clockError(), "");
  hal::ExecutableSpec spec;
  spec.name = "subject";
  spec.format = hal::ExecutableFormat::Ptx;
  spec.target = "sm_75";
  spec.data = ".version 8.0\n.target sm_75\n.address_size 64\n"
              ".visible .entry k(.param .u64 a, .param .u32 n)\n{\n"
              "  ret;\n}\n";
  KernelAbi abi;
  abi.entry = "k";
  abi.bindings = {{"a", ElementType::U32, Access::ReadWrite}};
  abi.constants = {{"n", ScalarType::U32}};
  abi.workgroupSize = {64, 1, 1};
  spec.exports = {abi};
  auto exe = device.createExecutable(spec);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto buffer = device.allocateBuffer(256, hal::MemoryType::DeviceLocal);
  ASSERT_TRUE(buffer.ok());
  Subject subject{"k", [&](hal::CommandBuffer &c) -> Status {
                    for (int i = 0; i < 3; ++i) {
                      hal::DispatchParams d;
                      d.executable = exe->get();
                      d.workgroupCount = {256, 1, 1};
                      d.bindings = {{buffer->get(), 0, 0}};
                      d.constants.assign(4, 0);
                      KB_RETURN_IF_ERROR(c.dispatch(d));
                      KB_RETURN_IF_ERROR(c.barrier());
                    }
                    return okStatus();
                  }};
  for (TimingMode mode : {TimingMode::Cold, TimingMode::Hot}) {
    auto results = (*engine)->measureInterleaved({subject}, mode);
    ASSERT_TRUE(results.ok()) << results.status().message();
    const Timing &r = results->at(0);
    ASSERT_GE(r.samples.size(), 20u) << toString(mode);
    // The scheduler places one block per SM in practice; a sample whose
    // stamps no block on SM 0 wrote has no clock, and must stay rare.
    size_t clocked = 0;
    for (const Sample &sample : r.samples) {
      if (!sample.smClockMHz)
        continue;
      ++clocked;
      EXPECT_GT(*sample.smClockMHz, 100) << toString(mode);
      EXPECT_LT(*sample.smClockMHz, 5000) << toString(mode);
    }
    ASSERT_GE(clocked * 10, r.samples.size() * 9)
        << toString(mode) << ": " << clocked << " of " << r.samples.size()
        << " samples carry an SM clock";
    std::printf("%s: %zu samples, median %.0f ns, %u per sample, "
                "clock %.0f MHz, %zu discarded\n",
                toString(mode), r.samples.size(), r.summary.median,
                r.dispatchesPerSample, r.samples[0].smClockMHz.value_or(0),
                r.discarded);
  }
}

#if KB_HAVE_CUPTI_FAKE
class BenchCountersTest : public BenchCudaProtocolTest {
protected:
  void SetUp() override {
    cupti.kernels = {{
        {"dram__bytes_read.sum", 8e6},
        {"dram__bytes_write.sum", 4e6},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", 50},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 25},
        {"gpu__time_duration.sum", 2000},
    }};
    // CUPTI's calls and the driver's in one log, in the order they happened.
    cupti.onCall = [this](const char *fn) { fake_.calls.push_back({fn}); };
    cupti_ = cupti.symbols();
    BenchCudaProtocolTest::SetUp();
    auto flush = device_->allocateBuffer(1024, hal::MemoryType::DeviceLocal);
    ASSERT_TRUE(flush.ok());
    flush_ = std::move(*flush);
  }
  void TearDown() override {
    flush_.reset();
    BenchCudaProtocolTest::TearDown();
  }
  std::vector<Subject> subjects() {
    Subject candidate = subject(2), reference = subject(1);
    candidate.name = "candidate";
    reference.name = "reference";
    return {candidate, reference};
  }
  hal::cuda::testing::FakeCupti cupti;
  /// The flush before each pass (null: none).
  std::shared_ptr<hal::Buffer> flush_;
};

// --counters: each variant's work runs once untimed, then once per pass the
// counters need, each pass after an L2 flush of its own and its launches
// (and nothing of another variant) between the pass's Start and Stop.
TEST_F(BenchCountersTest, EachVariantIsReplayedInsideItsOwnPasses) {
  cupti.passes = 2;
  std::vector<Variant> variants(2);
  size_t before = fake_.calls.size();
  ASSERT_TRUE(countVariants(*device_, flush_.get(), subjects(), variants).ok());
  for (const Variant &v : variants) {
    ASSERT_TRUE(v.counters) << v.countersNote << "\n" << cupti.trace();
    EXPECT_EQ(v.counters->dramBytesRead, 8e6);
    EXPECT_EQ(v.counters->smThroughputPct, 25);
    EXPECT_EQ(v.counters->passes, 2u);
    EXPECT_TRUE(v.countersNote.empty());
  }
  EXPECT_EQ(cupti.count("cuptiRangeProfilerStart"), 4u) << cupti.trace();
  // Launches inside each pass, and outside every pass.
  std::vector<int> inside;
  int outside = 0, flushes = 0;
  bool open = false;
  for (size_t i = before; i < fake_.calls.size(); ++i) {
    std::string_view fn = fake_.calls[i].fn;
    if (fn == "cuptiRangeProfilerStart") {
      open = true;
      inside.push_back(0);
    } else if (fn == "cuptiRangeProfilerStop") {
      open = false;
    } else if (fn == "cuLaunchKernel") {
      ++(open ? inside.back() : outside);
    } else if (fn == "cuMemsetD32Async") {
      EXPECT_FALSE(open) << "the flush is outside the pass";
      ++flushes;
    }
  }
  EXPECT_EQ(flushes, 4) << "the L2 flushed before every pass";
  EXPECT_EQ(inside, (std::vector<int>{2, 2, 1, 1})) << fake_.trace();
  EXPECT_EQ(outside, 3) << "one warm-up per variant, before its session";
}

// A host that keeps counters from this user: every variant says why, from
// one refusal; nothing fails, and the second variant does not ask again.
TEST_F(BenchCountersTest, ARefusingHostSkipsEveryVariantWithOneReason) {
  cupti.refuse = "cuptiRangeProfilerStart";
  std::vector<Variant> variants(2);
  ASSERT_TRUE(countVariants(*device_, flush_.get(), subjects(), variants).ok());
  for (const Variant &v : variants) {
    EXPECT_FALSE(v.counters);
    EXPECT_EQ(v.countersNote.rfind("skipped: ", 0), 0u) << v.countersNote;
    EXPECT_NE(v.countersNote.find("NVreg_RestrictProfilingToAdminUsers"),
              std::string::npos)
        << v.countersNote;
  }
  EXPECT_EQ(cupti.count("cuptiProfilerInitialize"), 1u) << cupti.trace();
  EXPECT_EQ(cupti.count("cuptiProfilerDeInitialize"), 1u);
}

// A session that fails on its own (not the host's refusal) fails that
// variant's counters only.
TEST_F(BenchCountersTest, ASessionErrorFailsThatVariantsCountersOnly) {
  cupti.passes = 1;
  cupti.kernels[0].erase("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  std::vector<Variant> variants(2);
  ASSERT_TRUE(countVariants(*device_, flush_.get(), subjects(), variants).ok());
  for (const Variant &v : variants) {
    EXPECT_FALSE(v.counters);
    EXPECT_EQ(v.countersNote.rfind("failed: ", 0), 0u) << v.countersNote;
  }
  EXPECT_EQ(cupti.count("cuptiProfilerInitialize"), 2u) << "asked again";
}
// A device failure while counting is the caller's to report (runBenchmark
// keeps the timings and notes it); nothing is left half-counted.
TEST_F(BenchCountersTest, ADeviceFailureWhileCountingIsReturned) {
  cupti.passes = 2;
  // The candidate's warm-up is launches 0 and 1; its first pass, 2 and 3.
  fake_.launchResults[2] = hal::cuda::CUDA_ERROR_ILLEGAL_ADDRESS;
  std::vector<Variant> variants(2);
  Status counted = countVariants(*device_, flush_.get(), subjects(), variants);
  EXPECT_FALSE(counted.ok());
  EXPECT_FALSE(variants[0].counters);
  EXPECT_EQ(cupti.count("cuptiProfilerDeInitialize"),
            cupti.count("cuptiProfilerInitialize"))
      << cupti.trace();
}
#endif // KB_HAVE_CUPTI_FAKE

} // namespace
} // namespace kb::bench

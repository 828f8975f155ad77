//===- runtime/bench/copy_bandwidth_test.cpp - The measured peak ----------===//
//
// The probe's sizing and cache key everywhere; its protocol (flush, then a
// copy kernel between two timestamps, every sample) on a recording fake
// device; the real probe and its cache on the first device of each driver
// (lavapipe here; CUDA and Vulkan on a GPU host), skipped where there is
// none.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/copy_bandwidth.h"
#include "runtime/bench/fma_peak.h"
#include "common/file_util.h"
#include "common/spirv_mix.h"
#include "common/test_util.h"

#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/driver_registry.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/testing/device_environment.h"
#include "runtime/hal/timer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace kb::bench {
namespace {

constexpr uint64_t kGiB = uint64_t(1) << 30;
constexpr uint64_t kMiB = uint64_t(1) << 20;

hal::DeviceProperties gpu() {
  hal::DeviceProperties d;
  d.driver = "cuda";
  d.name = "NVIDIA H200";
  d.type = hal::DeviceType::DiscreteGpu;
  d.memoryBytes = 141 * kGiB;
  d.limits.maxAllocationBytes = 141 * kGiB;
  d.limits.maxBindingRange = 141 * kGiB;
  return d;
}

TEST(CopyProbeBytesTest, TwoGibOnAGpuWithinEveryLimit) {
  EXPECT_EQ(copyProbeBytes(gpu()), 2 * kGiB);
  hal::DeviceProperties d = gpu();
  d.limits.maxAllocationBytes = kGiB + 7;
  EXPECT_EQ(copyProbeBytes(d), kGiB);
  d = gpu();
  d.limits.maxBindingRange = 0xffffffffu / 8; // not a multiple of 16
  EXPECT_EQ(copyProbeBytes(d), (0xffffffffu / 8) / 16 * 16);
  d = gpu();
  d.memoryBytes = 8 * kGiB;
  EXPECT_EQ(copyProbeBytes(d), kGiB);
}

TEST(CopyProbeBytesTest, SmallOnACpuDevice) {
  hal::DeviceProperties d = gpu();
  d.type = hal::DeviceType::Cpu;
  EXPECT_EQ(copyProbeBytes(d), 32 * kMiB);
}

TEST(PeakCacheKeyTest, CarriesTheProbeVersion) {
  hal::DeviceProperties d = gpu();
  std::string key = peakCacheKey(d);
  EXPECT_NE(key, deviceIdentity(d));
  EXPECT_EQ(key.rfind(deviceIdentity(d) + "|", 0), 0u) << key;
  EXPECT_NE(key.find("v" + std::to_string(kCopyProbeVersion)),
            std::string::npos)
      << key;
}

TEST(CopyKernelTest, EmbeddedKernelsDeclareTheEntry) {
  EXPECT_NE(copyVec4Ptx().find(".visible .entry kb_copy_vec4("),
            std::string::npos);
  std::string_view spirv = copyVec4Spirv();
  ASSERT_GE(spirv.size(), 20u);
  uint32_t magic = 0;
  std::memcpy(&magic, spirv.data(), 4);
  EXPECT_EQ(magic, 0x07230203u);
  EXPECT_NE(spirv.find("kb_copy_vec4"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// A recording fake device: what the probe records and submits
//===----------------------------------------------------------------------===//

/// The fake's memory: one 32-bit word fills a whole buffer.
class FakeBuffer final : public hal::Buffer {
public:
  explicit FakeBuffer(uint64_t size)
      : Buffer(size, hal::MemoryType::DeviceLocal) {}
  Status upload(uint64_t, const void *, uint64_t) override {
    return okStatus();
  }
  Status download(uint64_t offset, void *data, uint64_t length) override {
    KB_RETURN_IF_ERROR(checkRange(offset, length, "download"));
    for (uint64_t i = 0; i + 4 <= length; i += 4)
      std::memcpy(static_cast<char *>(data) + i, &word, 4);
    return okStatus();
  }
  uint32_t word = 0;
};

class FakeExecutable final : public hal::Executable {
public:
  explicit FakeExecutable(const hal::ExecutableSpec &spec) : Executable(spec) {}
};

/// Sample i (from 0, the warm-up first) takes kSampleNs[i] nanoseconds.
constexpr double kSampleNs[] = {9e9, 7e6, 1e6, 9e6, 3e6, 5e6,
                                2e6, 8e6, 4e6, 6e6, 5e9, 5e9};

class FakeTimer final : public hal::Timer {
public:
  explicit FakeTimer(const int &submissions) : Timer(2), runs_(submissions) {}
  StatusOr<double> elapsedNs(uint32_t, uint32_t) override {
    return kSampleNs[std::min<size_t>(runs_ - 1, std::size(kSampleNs) - 1)];
  }

private:
  const int &runs_;
};

/// Records each command as a line; submitAndWait runs fills and the copy
/// (unless told not to) on the fake's buffers and keeps what was submitted.
class FakeCommandBuffer final : public hal::CommandBuffer {
public:
  FakeCommandBuffer(std::vector<std::vector<std::string>> &submitted,
                    int &timedRuns, bool copies)
      : submitted_(submitted), timedRuns_(timedRuns), copies_(copies) {}
  Status dispatch(const hal::DispatchParams &params) override {
    lines_.push_back("dispatch " + params.executable->exportAbi(0).entry);
    lastWorkgroups = params.workgroupCount[0];
    dispatches_.emplace_back(
        static_cast<FakeBuffer *>(params.bindings.at(0).buffer),
        static_cast<FakeBuffer *>(params.bindings.at(1).buffer));
    return okStatus();
  }
  Status barrier() override { return lines_.push_back("barrier"), okStatus(); }
  Status fillBuffer(hal::Buffer &buffer, uint64_t, uint64_t,
                    uint32_t pattern) override {
    lines_.push_back("fill " + std::to_string(buffer.size()));
    fills_.emplace_back(static_cast<FakeBuffer *>(&buffer), pattern);
    return okStatus();
  }
  Status copyBuffer(hal::Buffer &, uint64_t, hal::Buffer &, uint64_t,
                    uint64_t) override {
    return lines_.push_back("copy"), okStatus();
  }
  Status writeTimestamp(hal::Timer &, uint32_t slot) override {
    timed_ = true;
    return lines_.push_back("timestamp " + std::to_string(slot)), okStatus();
  }
  Status beginLabel(const std::string &name) override {
    return lines_.push_back("label " + name), okStatus();
  }
  Status endLabel() override { return lines_.push_back("end"), okStatus(); }
  Status submitAndWait() override {
    for (auto &[buffer, word] : fills_)
      buffer->word = word;
    for (auto &[source, target] : dispatches_)
      if (copies_)
        target->word = source->word;
    submitted_.push_back(lines_);
    timedRuns_ += timed_;
    return okStatus();
  }
  Status reset() override {
    lines_.clear();
    return okStatus();
  }
  size_t dispatchCount() const override { return dispatches_.size(); }

private:
  std::vector<std::vector<std::string>> &submitted_;
  int &timedRuns_;
  std::vector<std::string> lines_;
  std::vector<std::pair<FakeBuffer *, uint32_t>> fills_;
  std::vector<std::pair<FakeBuffer *, FakeBuffer *>> dispatches_;
  bool copies_;
  bool timed_ = false;

public:
  static inline uint32_t lastWorkgroups = 0;
};

class FakeDevice final : public hal::Device {
public:
  FakeDevice() {
    properties_.driver = "vulkan";
    properties_.name = "fake";
    properties_.type = hal::DeviceType::Cpu;
    properties_.limits.maxWorkgroupCount = {65535, 65535, 65535};
  }
  const hal::DeviceProperties &properties() const override {
    return properties_;
  }
  StatusOr<std::shared_ptr<hal::Buffer>>
  allocateBuffer(uint64_t size, hal::MemoryType) override {
    return std::shared_ptr<hal::Buffer>(std::make_shared<FakeBuffer>(size));
  }
  StatusOr<std::shared_ptr<hal::Executable>>
  createExecutable(const hal::ExecutableSpec &spec) override {
    return std::shared_ptr<hal::Executable>(
        std::make_shared<FakeExecutable>(spec));
  }
  StatusOr<std::unique_ptr<hal::CommandBuffer>>
  createCommandBuffer(const hal::CommandBufferOptions &) override {
    return std::unique_ptr<hal::CommandBuffer>(
        std::make_unique<FakeCommandBuffer>(submitted, timedRuns, copies));
  }
  StatusOr<std::shared_ptr<hal::Timer>> createTimer(uint32_t) override {
    return std::shared_ptr<hal::Timer>(std::make_shared<FakeTimer>(timedRuns));
  }
  bool supportsFormat(hal::ExecutableFormat format) const override {
    return format == hal::ExecutableFormat::Spirv;
  }

  std::vector<std::vector<std::string>> submitted;
  int timedRuns = 0;
  bool copies = true; // whether the copy kernel copies
  hal::DeviceProperties properties_;
};

TEST(CopyProbeProtocolTest, EverySampleFlushesThenTimesOnlyTheCopyKernel) {
  FakeDevice device;
  L2Size l2{4 * kMiB, "flag"};
  auto measured = measureCopyBandwidth(device, l2);
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  const std::string flush = "fill " + std::to_string(l2.flushBytes());
  const std::vector<std::string> sample = {
      flush, "barrier", "timestamp 0", "dispatch kb_copy_vec4", "timestamp 1"};
  // The source's fill, then a warm-up and 9 samples, each flushed first.
  ASSERT_EQ(device.submitted.size(), 11u);
  EXPECT_EQ(device.submitted[0],
            (std::vector<std::string>{"fill " + std::to_string(32 * kMiB)}));
  for (size_t i = 1; i < device.submitted.size(); ++i)
    EXPECT_EQ(device.submitted[i], sample) << "submission " << i;
  // The median of the 9 samples after the warm-up: 5 ms for 2 x 32 MiB.
  EXPECT_DOUBLE_EQ(*measured, 2.0 * double(32 * kMiB) / 5e-3);
}

// On an H200 a grid-stride copy capped at 65535 workgroups reached 97 % of a
// copy with one float4 per invocation, so the "peak" was below the copies
// it should bound: where the device allows it, one element per invocation.
TEST(CopyProbeProtocolTest, OneElementPerInvocationWhereTheLimitAllows) {
  FakeDevice device;
  device.properties_.type = hal::DeviceType::DiscreteGpu;
  device.properties_.memoryBytes = 64 * kGiB;
  device.properties_.limits.maxWorkgroupCount = {0x7fffffff, 65535, 65535};
  L2Size l2{4 * kMiB, "flag"};
  ASSERT_TRUE(measureCopyBandwidth(device, l2).ok());
  // 2 GiB of float4s, 256 invocations a workgroup.
  EXPECT_EQ(FakeCommandBuffer::lastWorkgroups, 2 * kGiB / 16 / 256);
  // A device that allows fewer: its limit, the grid-stride loop does the
  // rest; one that reports none: the 65535 every Vulkan device allows.
  device.properties_.limits.maxWorkgroupCount = {1000, 1, 1};
  ASSERT_TRUE(measureCopyBandwidth(device, l2).ok());
  EXPECT_EQ(FakeCommandBuffer::lastWorkgroups, 1000u);
  device.properties_.limits.maxWorkgroupCount = {0, 0, 0};
  ASSERT_TRUE(measureCopyBandwidth(device, l2).ok());
  EXPECT_EQ(FakeCommandBuffer::lastWorkgroups, 65535u);
}

TEST(CopyProbeProtocolTest, AKernelThatCopiesNothingIsAnError) {
  FakeDevice device;
  device.copies = false;
  auto measured = measureCopyBandwidth(device, L2Size{4 * kMiB, "flag"});
  EXPECT_EQ(measured.status().code(), StatusCode::Internal);
  EXPECT_NE(measured.status().message().find("did not copy"), std::string::npos)
      << measured.status().message();
}

//===----------------------------------------------------------------------===//
// The real probe on each driver's first device
//===----------------------------------------------------------------------===//

class CopyProbeDeviceTest : public ::testing::TestWithParam<const char *> {
protected:
  // Skipped only when the machine lists no device for the driver; then any
  // error is a failure.
  void SetUp() override {
    if (std::string(GetParam()) == "vulkan")
      KB_SKIP_WITHOUT_VULKAN_DEVICE();
    else
      KB_SKIP_WITHOUT_CUDA_DEVICE();
    auto selected = hal::selectDevice(hal::builtinDrivers(), GetParam());
    ASSERT_TRUE(selected.ok()) << selected.status().message();
    selected_.emplace(std::move(*selected));
  }
  hal::Device &device() { return *selected_->device; }

private:
  std::optional<hal::SelectedDevice> selected_;
};

TEST_P(CopyProbeDeviceTest, MeasuresAndCachesUnderTheVersionedKey) {
  hal::Device &device = this->device();
  L2Size l2 = selectL2Size(device.properties(), std::nullopt,
                           hostLastLevelCacheBytes());
  kb::TempDir scratch = kb::testing::makeTempDir(); // removed on any exit
  auto cache = scratch.path() / "copy-bandwidth.tsv";
  // A figure of the unversioned key (an older probe) is not reused.
  std::ofstream(cache) << deviceIdentity(device.properties()) << "\t1e9\n";
  auto first = peakCopyBandwidth(device, l2, cache.string());
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->cached);
  EXPECT_TRUE(std::isfinite(first->bytesPerS) && first->bytesPerS > 0);
  EXPECT_NE(first->bytesPerS, 1e9);
  RecordProperty("peak_copy_gbps", std::to_string(first->bytesPerS / 1e9));
  auto second = peakCopyBandwidth(device, l2, cache.string());
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->cached);
  EXPECT_DOUBLE_EQ(second->bytesPerS, first->bytesPerS);
}

// The compute ceiling beside it: measured (the kernel's results checked),
// cached under its own versioned key in the same file, and a figure no CPU
// or GPU of today exceeds.
TEST_P(CopyProbeDeviceTest, TheFmaPeakIsMeasuredAndCachedBesideIt) {
  hal::Device &device = this->device();
  kb::TempDir scratch = kb::testing::makeTempDir();
  auto cache = scratch.path() / "copy-bandwidth.tsv";
  bool cached = true;
  auto first = peakFmaThroughput(device, cache.string(), &cached);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(cached);
  EXPECT_GT(*first, 1e8);  // 0.1 GFLOP/s: even one slow CPU core does more
  EXPECT_LT(*first, 1e16); // 10 PFLOP/s of f32 FMAs: no device does
  RecordProperty("peak_fma_gflops", std::to_string(*first / 1e9));
  auto second = peakFmaThroughput(device, cache.string(), &cached);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(cached);
  EXPECT_DOUBLE_EQ(*second, *first);
  auto text = kb::readFile(cache);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_NE(text->find(fmaPeakCacheKey(device.properties())),
            std::string::npos);
}

TEST(FmaProbeTest, TheKernelsDeclareTheEntryAndTheWorkCounts) {
  EXPECT_NE(fmaPeakPtx().find(".entry kb_fma_peak"), std::string_view::npos);
  // Eight chains of sixteen, unrolled: 128 FMAs a loop iteration, and the
  // SPIR-V holds the same 128 written out, not left to a driver's
  // unrolling (counted by the instruction mixes `inspect` uses).
  // (The PTX mix counts mad.lo of the address too: count the f32 FMAs.)
  size_t fmas = 0;
  for (size_t at = fmaPeakPtx().find("fma.rn.f32"); at != std::string::npos;
       at = fmaPeakPtx().find("fma.rn.f32", at + 1))
    ++fmas;
  EXPECT_EQ(fmas, 128u);
  auto spirv = countSpirvInstructions(fmaPeakSpirv());
  ASSERT_TRUE(spirv.ok()) << spirv.status().message();
  EXPECT_EQ(spirv->fma, 128u);
  hal::DeviceProperties cpu;
  cpu.type = hal::DeviceType::Cpu;
  FmaProbeSize size = fmaProbeSize(cpu);
  EXPECT_DOUBLE_EQ(size.flops(),
                   2.0 * size.workgroups * 256 * size.iterations * 128);
  EXPECT_NE(fmaPeakCacheKey(cpu), peakCacheKey(cpu));
}

INSTANTIATE_TEST_SUITE_P(Drivers, CopyProbeDeviceTest,
                         ::testing::Values("cuda", "vulkan"),
                         [](const auto &info) { return info.param; });

} // namespace
} // namespace kb::bench

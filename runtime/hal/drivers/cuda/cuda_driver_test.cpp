//===- runtime/hal/drivers/cuda/cuda_driver_test.cpp - CUDA specifics -----===//
//
// What only the CUDA driver does: symbol loading, the PTX JIT log in a load
// error, cubin loading, graph-batched launches and a faulting kernel. Skips
// where libcuda.so.1 is missing; runs unchanged on a GPU host.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/cts/cts_support.h"
#include "runtime/hal/drivers/cuda/cuda_driver.h"
#include "runtime/testing/device_environment.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kb::hal::cuda {
namespace {

TEST(CudaSymbols, LoadsOrIsUnavailableWithTheLibraryName) {
  auto syms = CudaSymbols::load();
  if (syms.ok()) {
    EXPECT_NE(syms->cuLaunchKernel, nullptr);
    EXPECT_FALSE(syms->resolvedBy.empty());
    return;
  }
  EXPECT_TRUE(syms.status().isUnavailable()) << syms.status().message();
  EXPECT_NE(syms.status().message().find("libcuda.so.1"), std::string::npos)
      << syms.status().message();
}

class CudaDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Skips only where libcuda lists no GPU; a listed one that the driver
    // cannot open fails.
    KB_SKIP_WITHOUT_CUDA_DEVICE();
    auto driver = createCudaDriver({});
    ASSERT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device =
        driver_->createDevice(preferredDeviceIndex(driver_->devices()));
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
    auto kernels = cts::readKernelFile("cuda", "double_plus_one");
    if (!kernels.ok() && kernels.status().code() == StatusCode::NotFound)
      GTEST_SKIP() << kernels.status().message();
  }
  void TearDown() override {
    device_.reset();
    driver_.reset();
  }
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<Device> device_;
};

TEST_F(CudaDriverTest, RejectedPtxCarriesTheJitLog) {
  // Well-formed header and entry (our reader accepts it), a body the JIT
  // rejects.
  std::string ptx = ".version 7.8\n.target sm_75\n.address_size 64\n"
                    ".visible .entry broken(.param .u64 p)\n{\n"
                    "  not_an_instruction %r1;\n  ret;\n}\n";
  ExecutableSpec spec;
  spec.name = "broken";
  spec.format = ExecutableFormat::Ptx;
  spec.target = "sm_75";
  spec.data = ptx;
  KernelAbi abi;
  abi.entry = "broken";
  abi.bindings = {{"p", ElementType::U32, Access::ReadWrite}};
  spec.exports = {abi};
  auto exe = device_->createExecutable(spec);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(exe.status().message().find("JIT error log"), std::string::npos)
      << exe.status().message();
  EXPECT_NE(exe.status().message().find("not_an_instruction"),
            std::string::npos)
      << exe.status().message();
}

TEST_F(CudaDriverTest, LoadsTheCubin) {
  const DeviceProperties &p = device_->properties();
  if (p.ccMajor != 9 || p.ccMinor != 0)
    GTEST_SKIP() << "the test cubin is for sm_90; this device is sm_"
                 << p.ccMajor << p.ccMinor;
  auto bytes = cts::readKernelFile("cuda", "double_plus_one", /*cubin=*/true);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto exe = device_->createExecutable(
      cts::kernelSpec("cuda", "double_plus_one", *bytes, /*cubin=*/true));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_EQ((*exe)->format(), ExecutableFormat::Cubin);
}

TEST_F(CudaDriverTest, GraphBatchedLaunchesMatchStreamLaunches) {
  auto bytes = cts::readKernelFile("cuda", "double_plus_one");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto exe = device_->createExecutable(
      cts::kernelSpec("cuda", "double_plus_one", *bytes));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const uint32_t n = 1 << 16;
  auto a = device_->allocateBuffer(n * 4, MemoryType::DeviceLocal);
  auto b = device_->allocateBuffer(n * 4, MemoryType::DeviceLocal);
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<uint32_t> values(n, 5);
  ASSERT_TRUE((*a)->upload(0, values.data(), n * 4).ok());
  CommandBufferOptions options;
  options.useGraph = true;
  auto cb = device_->createCommandBuffer(options);
  ASSERT_TRUE(cb.ok());
  for (int i = 0; i < 16; ++i) {
    DispatchParams d;
    d.executable = exe->get();
    d.workgroupCount = {n / 64, 1, 1};
    d.bindings = {{a->get(), 0, 0}, {b->get(), 0, 0}};
    d.constants.resize(4);
    std::memcpy(d.constants.data(), &n, 4);
    ASSERT_TRUE((*cb)->dispatch(d).ok());
  }
  ASSERT_TRUE((*cb)->submitAndWait().ok());
  ASSERT_TRUE((*cb)->submitAndWait().ok()) << "graph relaunch";
  std::vector<uint32_t> out(n);
  ASSERT_TRUE((*b)->download(0, out.data(), n * 4).ok());
  EXPECT_EQ(out[0], 11u);
  EXPECT_EQ(out[n - 1], 11u);
}

TEST_F(CudaDriverTest, TimestampsInAGraphCanBeRead) {
  // A plain cuEventRecord under stream capture leaves no node in the graph;
  // reading the events then fails with CUDA_ERROR_CAPTURED_EVENT.
  auto bytes = cts::readKernelFile("cuda", "double_plus_one");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto exe = device_->createExecutable(
      cts::kernelSpec("cuda", "double_plus_one", *bytes));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const uint32_t n = 1 << 20;
  auto a = device_->allocateBuffer(n * 4, MemoryType::DeviceLocal);
  auto b = device_->allocateBuffer(n * 4, MemoryType::DeviceLocal);
  auto timer = device_->createTimer(2);
  ASSERT_TRUE(a.ok() && b.ok() && timer.ok());
  CommandBufferOptions options;
  options.useGraph = true;
  auto cb = device_->createCommandBuffer(options);
  ASSERT_TRUE(cb.ok());
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 0).ok());
  for (int i = 0; i < 8; ++i) {
    DispatchParams d;
    d.executable = exe->get();
    d.workgroupCount = {n / 64, 1, 1};
    d.bindings = {{a->get(), 0, 0}, {b->get(), 0, 0}};
    d.constants.resize(4);
    std::memcpy(d.constants.data(), &n, 4);
    ASSERT_TRUE((*cb)->dispatch(d).ok());
  }
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 1).ok());
  for (int submit = 0; submit < 2; ++submit) {
    Status s = (*cb)->submitAndWait();
    ASSERT_TRUE(s.ok()) << s.message();
    auto ns = (*timer)->elapsedNs(0, 1);
    ASSERT_TRUE(ns.ok()) << ns.status().message();
    EXPECT_GT(*ns, 0.0);
  }
}

TEST_F(CudaDriverTest, IllegalAddressNamesTheDispatch) {
  auto bytes = cts::readKernelFile("cuda", "fault");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto exe =
      device_->createExecutable(cts::kernelSpec("cuda", "fault", *bytes));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto p = device_->allocateBuffer(4, MemoryType::DeviceLocal);
  ASSERT_TRUE(p.ok());
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(cb.ok());
  DispatchParams d;
  d.executable = exe->get();
  d.bindings = {{p->get(), 0, 0}};
  d.label = "`main` op 7 (`fault` export 0)";
  ASSERT_TRUE((*cb)->dispatch(d).ok());
  Status s = (*cb)->submitAndWait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("`main` op 7"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("ILLEGAL_ADDRESS"), std::string::npos)
      << s.message();

  // The context is poisoned: every later call fails at once, naming the
  // fault, instead of repeating ILLEGAL_ADDRESS from an unrelated call.
  uint32_t word = 0;
  Status download = (*p)->download(0, &word, 4);
  EXPECT_EQ(download.code(), StatusCode::FailedPrecondition)
      << download.message();
  EXPECT_NE(download.message().find("`main` op 7"), std::string::npos)
      << download.message();
  EXPECT_NE(download.message().find("new kernel-bench process"),
            std::string::npos)
      << download.message();
  EXPECT_EQ(device_->allocateBuffer(4, MemoryType::DeviceLocal).status().code(),
            StatusCode::FailedPrecondition);
  EXPECT_EQ((*cb)->submitAndWait().code(), StatusCode::FailedPrecondition);
  // TearDown destroys the device and driver; that must not hang either.
}

} // namespace
} // namespace kb::hal::cuda

//===- runtime/hal/drivers/cuda/cuda_call_order_test.cpp - Driver API use -===//
//
// The CUDA driver over a recording fake of the driver API
// (cuda_fake_symbols.h): which calls it makes, in which order, with which
// streams and flags. These are the defects that only show on hardware
// (a copy racing a kernel, a timestamp missing from a graph, a fault blamed
// on the wrong dispatch), pinned down where no GPU exists; the HAL CTS and
// cuda_driver_test run the real driver on a GPU host.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"
#include "runtime/hal/drivers/cuda/cuda_fake_symbols.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <string>
#include <vector>

#if KB_HAVE_NVTX
// This file defines the static injection's symbol itself (below); NVTX's
// loader reads it instead of its own weak null.
#include <cstdint>
extern "C" int (*InitializeInjectionNvtx2_fnptr)(const void *(*)(uint32_t));
#define NVTX_STATIC_INJECTION_IMPL
#include <nvtx3/nvToolsExt.h>
#endif

// Counts heap allocations while |gCounting| is set, to show that issuing
// recorded dispatches does no per-dispatch string or vector work.
static std::atomic<bool> gCounting{false};
static std::atomic<size_t> gAllocations{0};
void *operator new(size_t size) {
  if (gCounting)
    ++gAllocations;
  if (void *p = std::malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }

namespace kb::hal::cuda {
namespace {

using testing::FakeCuda;

constexpr uint64_t kStream = 0x5700; // the fake's stream handle

const char *kPtx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                   ".visible .entry k(.param .u64 a, .param .u32 n)\n{\n"
                   "  ret;\n}\n";

KernelAbi kernelAbi() {
  KernelAbi abi;
  abi.entry = "k";
  abi.bindings = {{"a", ElementType::U32, Access::ReadWrite}};
  abi.constants = {{"n", ScalarType::U32}};
  abi.workgroupSize = {64, 1, 1};
  return abi;
}

class CudaCallOrderTest : public ::testing::Test {
protected:
  void SetUp() override {
    fake_.params = {{0, 8}, {8, 4}};
    open();
  }
  void open() {
    device_.reset();
    driver_.reset();
    auto driver = CudaDriver::create({}, fake_.symbols());
    ASSERT_TRUE(driver.ok()) << driver.status().message();
    driver_ = std::move(*driver);
    auto device = driver_->createDevice(0);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
  }
  void TearDown() override {
    device_.reset();
    driver_.reset();
  }

  StatusOr<std::shared_ptr<Executable>> load(KernelAbi abi = kernelAbi(),
                                             const char *ptx = kPtx) {
    ExecutableSpec spec;
    spec.name = "fake";
    spec.format = ExecutableFormat::Ptx;
    spec.target = "sm_90";
    spec.data = ptx;
    spec.exports = {std::move(abi)};
    return device_->createExecutable(spec);
  }
  std::shared_ptr<Buffer> buffer(uint64_t size = 256) {
    auto b = device_->allocateBuffer(size, MemoryType::DeviceLocal);
    EXPECT_TRUE(b.ok()) << b.status().message();
    return b.ok() ? *b : nullptr;
  }
  DispatchParams dispatchOf(const Executable &exe, Buffer &b,
                            const std::string &label) {
    DispatchParams d;
    d.executable = &exe;
    d.bindings = {{&b, 0, 0}};
    d.constants.assign(4, 0);
    d.label = label;
    return d;
  }

  FakeCuda fake_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<Device> device_;
};

TEST(CudaFakeSymbols, CoversEveryEntryOfTheTable) {
  FakeCuda fake;
  CudaSymbols s = fake.symbols();
#define KB_CU_PFN(name, exported, params)                                      \
  EXPECT_NE(s.name, nullptr) << #name " is missing from the fake";
#define KB_CU_OPTIONAL_PFN(name, exported, version, params)                    \
  EXPECT_NE(s.name, nullptr) << #name " is missing from the fake";
#include "runtime/hal/drivers/cuda/cuda_symbol_table.inc"
#undef KB_CU_PFN
#undef KB_CU_OPTIONAL_PFN
}

TEST(CudaSymbolsLoad, KeepsTheLibraryMappedAfterTheTableIsDropped) {
  // A library that is not libcuda: the load fails at the first missing entry
  // and drops its handle, but cuInit may already have run in a real one, so
  // the code must stay mapped (RTLD_NODELETE).
  // In the build tree, else beside the test binary (a staged copy).
  std::string path = KB_FAKE_LIBCUDA_PATH;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    path = (std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() /
            std::filesystem::path(path).filename())
               .string();
  if (!std::filesystem::exists(path, ec))
    GTEST_SKIP() << "the probe library " << KB_FAKE_LIBCUDA_PATH
                 << " is not here";
  ASSERT_EQ(dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr)
      << "the probe library was loaded before the test";
  auto syms = CudaSymbols::load(path);
  ASSERT_FALSE(syms.ok());
  EXPECT_TRUE(syms.status().isUnavailable()) << syms.status().message();
  EXPECT_NE(syms.status().message().find("does not provide"), std::string::npos)
      << syms.status().message();
  void *still = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(still, nullptr) << "libcuda was unmapped by dlclose";
  if (still)
    dlclose(still);
}

TEST_F(CudaCallOrderTest, DeviceIdentityHasVendorAndUuid) {
  const DeviceProperties &p = device_->properties();
  EXPECT_EQ(p.vendorId, 0x10deu);
  EXPECT_EQ(p.deviceId, 0u); // the CUDA driver API has no PCI product id
  // The fake's UUID bytes are f0 f1 ... ff.
  EXPECT_EQ(p.uuid, "f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
}

TEST_F(CudaCallOrderTest, HostTransfersGoToTheDeviceStreamAndAreWaitedFor) {
  auto b = buffer();
  ASSERT_TRUE(b);
  uint32_t word = 7;
  size_t before = fake_.calls.size();
  ASSERT_TRUE(b->upload(4, &word, 4).ok());
  ASSERT_TRUE(b->download(4, &word, 4).ok());
  size_t up = fake_.find("cuMemcpyHtoDAsync", before);
  ASSERT_NE(up, std::string::npos) << fake_.trace();
  EXPECT_EQ(fake_.calls[up].c, kStream) << "upload not on the device stream";
  ASSERT_LT(up + 1, fake_.calls.size());
  EXPECT_STREQ(fake_.calls[up + 1].fn, "cuStreamSynchronize") << fake_.trace();
  size_t down = fake_.find("cuMemcpyDtoHAsync", up);
  ASSERT_NE(down, std::string::npos) << fake_.trace();
  EXPECT_EQ(fake_.calls[down].c, kStream);
  ASSERT_LT(down + 1, fake_.calls.size());
  EXPECT_STREQ(fake_.calls[down + 1].fn, "cuStreamSynchronize");
}

#if KB_HAVE_NVTX
// A recording NVTX tool, injected statically (NVTX 3's documented weak
// symbol): each range push and pop becomes a call in the fake's record, so
// its place among the driver calls is checked as theirs are.
testing::FakeCuda *gNvtxRecord = nullptr;
std::vector<std::string> gNvtxNames;

int recordPush(const char *message) {
  if (gNvtxRecord)
    gNvtxRecord->calls.push_back({"nvtxRangePushA"});
  gNvtxNames.push_back(message);
  return 0;
}

int recordPop() {
  if (gNvtxRecord)
    gNvtxRecord->calls.push_back({"nvtxRangePop"});
  return 0;
}

int initializeRecordingTool(NvtxGetExportTableFunc_t getExportTable) {
  auto *callbacks = static_cast<const NvtxExportTableCallbacks *>(
      getExportTable(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
      size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *table[NVTX_CBID_CORE_RangePushA] =
      reinterpret_cast<NvtxFunctionPointer>(&recordPush);
  *table[NVTX_CBID_CORE_RangePop] =
      reinterpret_cast<NvtxFunctionPointer>(&recordPop);
  return 1;
}
} // namespace
} // namespace kb::hal::cuda

extern "C" {
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr =
    &kb::hal::cuda::initializeRecordingTool;
}

namespace kb::hal::cuda {
namespace {

TEST_F(CudaCallOrderTest, LabelsAreNvtxRangesAroundTheLaunchesAndTheWait) {
  gNvtxRecord = &fake_;
  auto exe = load();
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto b = buffer();
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "plain launches");
    gNvtxNames.clear();
    CommandBufferOptions options;
    options.useGraph = graph;
    auto cb = device_->createCommandBuffer(options);
    ASSERT_TRUE(cb.ok());
    ASSERT_TRUE((*cb)->beginLabel("saxpy_4096x1x1").ok());
    ASSERT_TRUE((*cb)->beginLabel("candidate").ok());
    ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "op")).ok());
    ASSERT_TRUE((*cb)->endLabel().ok());
    ASSERT_TRUE((*cb)->endLabel().ok());
    size_t from = fake_.calls.size();
    Status s = (*cb)->submitAndWait();
    ASSERT_TRUE(s.ok()) << s.message();
    size_t push = fake_.find("nvtxRangePushA", from);
    size_t launch =
        fake_.find(graph ? "cuGraphLaunch" : "cuLaunchKernel", from);
    size_t wait = fake_.find("cuStreamSynchronize", launch);
    size_t pop = fake_.find("nvtxRangePop", from);
    ASSERT_NE(pop, std::string::npos) << fake_.trace();
    EXPECT_LT(push, launch) << fake_.trace();
    EXPECT_EQ(fake_.find("nvtxRangePushA", push + 1), push + 1);
    EXPECT_LT(wait, pop) << fake_.trace();
    EXPECT_EQ(fake_.find("nvtxRangePop", pop + 1), pop + 1);
    EXPECT_EQ(gNvtxNames,
              (std::vector<std::string>{"saxpy_4096x1x1", "candidate"}));
  }
  gNvtxRecord = nullptr;
}
#endif

TEST_F(CudaCallOrderTest, LabelsThatCannotCoverTheSubmissionAreRefused) {
  auto exe = load();
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto b = buffer();
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE(cb.ok());
#if !KB_HAVE_NVTX
  Status none = (*cb)->beginLabel("saxpy");
  EXPECT_EQ(none.code(), StatusCode::Unavailable);
  EXPECT_NE(none.message().find("without the CUDA toolkit's NVTX headers"),
            std::string::npos)
      << none.message();
  return;
#endif
  EXPECT_EQ((*cb)->endLabel().code(), StatusCode::FailedPrecondition);
  // A range is pushed on the host around the whole submission: it cannot
  // start after a command, and no command may follow its end.
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "op")).ok());
  Status late = (*cb)->beginLabel("saxpy");
  EXPECT_EQ(late.code(), StatusCode::FailedPrecondition);
  EXPECT_NE(late.message().find("opens before the first command"),
            std::string::npos)
      << late.message();
  ASSERT_TRUE((*cb)->reset().ok());
  ASSERT_TRUE((*cb)->beginLabel("saxpy").ok());
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "op")).ok());
  Status open = (*cb)->submitAndWait();
  EXPECT_EQ(open.code(), StatusCode::FailedPrecondition);
  EXPECT_NE(open.message().find("1 label(s) still open"), std::string::npos);
  ASSERT_TRUE((*cb)->endLabel().ok());
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "op")).ok());
  size_t launches = fake_.count("cuLaunchKernel");
  Status after = (*cb)->submitAndWait();
  EXPECT_EQ(after.code(), StatusCode::FailedPrecondition);
  EXPECT_NE(after.message().find("recorded after a label closed"),
            std::string::npos)
      << after.message();
  EXPECT_EQ(fake_.count("cuLaunchKernel"), launches) << "nothing launched";
}

TEST_F(CudaCallOrderTest, TimestampsInAGraphAreEventRecordNodes) {
  auto exe = load();
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto b = buffer();
  auto timer = device_->createTimer(2);
  ASSERT_TRUE(timer.ok());
  CommandBufferOptions options;
  options.useGraph = true;
  auto cb = device_->createCommandBuffer(options);
  ASSERT_TRUE(cb.ok());
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 0).ok());
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "op")).ok());
  ASSERT_TRUE((*cb)->writeTimestamp(**timer, 1).ok());
  for (int submit = 0; submit < 2; ++submit) {
    Status s = (*cb)->submitAndWait();
    ASSERT_TRUE(s.ok()) << s.message();
    auto ns = (*timer)->elapsedNs(0, 1);
    ASSERT_TRUE(ns.ok()) << ns.status().message() << "\n" << fake_.trace();
    EXPECT_DOUBLE_EQ(*ns, 0.25e6);
  }
  size_t begin = fake_.find("cuStreamBeginCapture");
  size_t end = fake_.find("cuStreamEndCapture");
  ASSERT_LT(begin, end);
  size_t records = 0;
  for (size_t i = begin; i < end; ++i) {
    EXPECT_STRNE(fake_.calls[i].fn, "cuEventRecord") << fake_.trace();
    if (std::strcmp(fake_.calls[i].fn, "cuEventRecordWithFlags") == 0) {
      EXPECT_EQ(fake_.calls[i].c, CU_EVENT_RECORD_EXTERNAL);
      ++records;
    }
  }
  EXPECT_EQ(records, 2u);
  EXPECT_EQ(fake_.count("cuStreamBeginCapture"), 1u) << "captured once";
}

TEST_F(CudaCallOrderTest, DynamicSharedMemoryIsRaisedPastTheFunctionBudget) {
  // 16 KiB static leaves 32 KiB of the default 48 KiB for dynamic shared
  // memory: a 40 KiB request needs the opt-in although it is under 48 KiB.
  fake_.staticSharedBytes = 16 * 1024;
  fake_.maxDynamicSharedBytes = 32 * 1024;
  KernelAbi abi = kernelAbi();
  abi.dynamicSharedMemoryBytes = 40 * 1024;
  auto exe = load(abi);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  size_t set = fake_.find("cuFuncSetAttribute");
  ASSERT_NE(set, std::string::npos) << fake_.trace();
  EXPECT_EQ(fake_.calls[set].a,
            uint64_t(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
  EXPECT_EQ(fake_.calls[set].b, 40u * 1024);
  auto b = buffer();
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "op")).ok());
  Status s = (*cb)->submitAndWait();
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(CudaCallOrderTest, DynamicSharedMemoryWithinTheBudgetSetsNothing) {
  fake_.staticSharedBytes = 16 * 1024;
  fake_.maxDynamicSharedBytes = 32 * 1024;
  KernelAbi abi = kernelAbi();
  abi.dynamicSharedMemoryBytes = 30 * 1024;
  ASSERT_TRUE(load(abi).ok());
  EXPECT_EQ(fake_.count("cuFuncSetAttribute"), 0u) << fake_.trace();
}

TEST_F(CudaCallOrderTest, SharedMemoryOverThePerBlockLimitIsRefusedAtLoad) {
  fake_.staticSharedBytes = 16 * 1024;
  KernelAbi abi = kernelAbi();
  abi.dynamicSharedMemoryBytes = 220 * 1024; // 236 KiB > 227 KiB opt-in
  auto exe = load(abi);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(exe.status().message().find("per-block limit of 232448"),
            std::string::npos)
      << exe.status().message();
  EXPECT_EQ(fake_.count("cuFuncSetAttribute"), 0u);
  EXPECT_EQ(fake_.count("cuLaunchKernel"), 0u);
}

TEST_F(CudaCallOrderTest, AnIssueErrorWaitsThenNamesWhatWasInFlight) {
  auto exe = load();
  ASSERT_TRUE(exe.ok());
  auto b = buffer();
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "`main` op 1")).ok());
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "`main` op 2")).ok());
  // Op 1 faults on the device; the fault surfaces at the launch of op 2.
  fake_.launchResults[1] = CUDA_ERROR_ILLEGAL_ADDRESS;
  fake_.streamSyncResult = CUDA_ERROR_ILLEGAL_ADDRESS;
  size_t before = fake_.calls.size();
  Status s = (*cb)->submitAndWait();
  ASSERT_FALSE(s.ok());
  size_t second =
      fake_.find("cuLaunchKernel", fake_.find("cuLaunchKernel", before) + 1);
  ASSERT_NE(second, std::string::npos) << fake_.trace();
  size_t sync = fake_.find("cuStreamSynchronize", second);
  EXPECT_NE(sync, std::string::npos)
      << "returned without waiting for the work in flight\n"
      << fake_.trace();
  EXPECT_NE(s.message().find("`main` op 2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("in flight: dispatch `main` op 1"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("ILLEGAL_ADDRESS"), std::string::npos);

  // The work's end was never confirmed: nothing it used may be freed.
  size_t afterSubmit = fake_.calls.size();
  cb->reset();
  b.reset();
  exe->reset();
  for (size_t i = afterSubmit; i < fake_.calls.size(); ++i) {
    EXPECT_STRNE(fake_.calls[i].fn, "cuMemFree") << fake_.trace();
    EXPECT_STRNE(fake_.calls[i].fn, "cuModuleUnload") << fake_.trace();
  }
  EXPECT_EQ(device_->allocateBuffer(4, MemoryType::DeviceLocal).status().code(),
            StatusCode::FailedPrecondition);
}

TEST_F(CudaCallOrderTest, ALaunchErrorOfItsOwnFreesNormally) {
  auto exe = load();
  ASSERT_TRUE(exe.ok());
  auto b = buffer();
  auto cb = device_->createCommandBuffer();
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "`main` op 1")).ok());
  ASSERT_TRUE((*cb)->dispatch(dispatchOf(**exe, *b, "`main` op 2")).ok());
  fake_.launchResults[1] = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  Status s = (*cb)->submitAndWait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cuLaunchKernel for dispatch `main` op 2 failed: "
                             "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("issued before it finished: dispatch `main` op 1"),
            std::string::npos)
      << s.message();
  ASSERT_TRUE((*cb)->reset().ok());
  b.reset();
  exe->reset();
  EXPECT_EQ(fake_.count("cuMemFree"), 1u) << fake_.trace();
  EXPECT_EQ(fake_.count("cuModuleUnload"), 1u);
  EXPECT_TRUE(device_->allocateBuffer(4, MemoryType::DeviceLocal).ok());
}

TEST_F(CudaCallOrderTest, EccAndExternalDeviceErrorsPoisonTheDevice) {
  for (CUresult sticky :
       {CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_EXTERNAL_DEVICE}) {
    open();
    fake_.memAllocResult = sticky;
    auto b = device_->allocateBuffer(64, MemoryType::DeviceLocal);
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.status().code(), StatusCode::ResourceExhausted)
        << b.status().message();
    fake_.memAllocResult = CUDA_SUCCESS;
    auto again = device_->allocateBuffer(64, MemoryType::DeviceLocal);
    EXPECT_EQ(again.status().code(), StatusCode::FailedPrecondition)
        << sticky << ": " << again.status().message();
  }
}

TEST_F(CudaCallOrderTest, OutOfMemoryIsResourceExhaustedAndNotSticky) {
  fake_.memAllocResult = CUDA_ERROR_OUT_OF_MEMORY;
  auto b = device_->allocateBuffer(64, MemoryType::DeviceLocal);
  EXPECT_EQ(b.status().code(), StatusCode::ResourceExhausted)
      << b.status().message();
  fake_.memAllocResult = CUDA_SUCCESS;
  EXPECT_TRUE(device_->allocateBuffer(64, MemoryType::DeviceLocal).ok());
}

TEST_F(CudaCallOrderTest, TooNewPtxNamesTheModuleIsaAndTheDriverLimit) {
  fake_.driverVersion = 12040;
  open();
  fake_.moduleLoadResult = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  auto exe = load();
  ASSERT_FALSE(exe.ok());
  const std::string &m = exe.status().message();
  EXPECT_NE(m.find("the module is PTX ISA 9.0"), std::string::npos) << m;
  EXPECT_NE(m.find("this driver (CUDA 12.4) takes PTX ISA 8.4 at most"),
            std::string::npos)
      << m;
}

TEST_F(CudaCallOrderTest, KernelParametersAreCheckedWithTheDriver) {
  fake_.params = {{0, 8}, {8, 8}}; // the kernel takes a u64 where n is u32
  auto exe = load();
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find(
                "parameter 1 (constant 0 (`n`)): expected offset 8, 4 bytes, "
                "found offset 8, 8 bytes"),
            std::string::npos)
      << exe.status().message();
  fake_.params = {{0, 8}, {8, 4}, {16, 8}};
  exe = load();
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("more than the 2 parameters"),
            std::string::npos)
      << exe.status().message();
  fake_.params = {{0, 8}, {8, 4}};
  exe = load();
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_TRUE((*exe)->loadNotes().empty());
}

TEST_F(CudaCallOrderTest, WithoutParamInfoTheCheckIsSaidToBeSkipped) {
  fake_.paramInfoAvailable = false;
  fake_.driverVersion = 12020;
  open();
  auto exe = load();
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  ASSERT_EQ((*exe)->loadNotes().size(), 1u);
  EXPECT_NE((*exe)->loadNotes()[0].find("kernel parameters not checked"),
            std::string::npos)
      << (*exe)->loadNotes()[0];
  EXPECT_NE((*exe)->loadNotes()[0].find("CUDA 12.2"), std::string::npos);
}

TEST_F(CudaCallOrderTest, IssuingDispatchesAllocatesNothingPerDispatch) {
  auto exe = load();
  ASSERT_TRUE(exe.ok());
  auto b = buffer();
  auto cb = device_->createCommandBuffer();
  constexpr int kDispatches = 64;
  for (int i = 0; i < kDispatches; ++i)
    ASSERT_TRUE((*cb)
                    ->dispatch(dispatchOf(**exe, *b,
                                          "a label long enough to need "
                                          "the heap when copied"))
                    .ok());
  ASSERT_TRUE((*cb)->submitAndWait().ok()); // first submit: warm
  gAllocations = 0;
  gCounting = true;
  Status s = (*cb)->submitAndWait();
  gCounting = false;
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(gAllocations.load(), 0u)
      << "issuing " << kDispatches << " dispatches allocated";
}

} // namespace
} // namespace kb::hal::cuda

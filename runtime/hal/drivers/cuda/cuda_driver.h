//===- runtime/hal/drivers/cuda/cuda_driver.h - CUDA backend --------------===//
//
// Private to the CUDA driver: the concrete HAL classes over the driver API
// (primary context, cuModuleLoadDataEx, cuLaunchKernel, events, graphs). The
// rest of the tree sees only createCudaDriver() through registration.h.
// One file per class: cuda_driver.cpp, cuda_device.cpp, cuda_buffer.cpp,
// cuda_executable.cpp, cuda_command_buffer.cpp, cuda_timer.cpp.
//
// Every driver call goes through the CudaSymbols table the driver was
// created with, so tests can hand it a recording fake
// (cuda_fake_symbols.h) and check call order and flags without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_DRIVER_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_DRIVER_H_

#include "runtime/hal/driver.h"
#include "runtime/hal/drivers/cuda/cuda_symbols.h"
#include "runtime/hal/drivers/cuda/cupti_session.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::hal::cuda {

StatusOr<std::unique_ptr<Driver>> createCudaDriver(const DriverOptions &);

class CudaDriver final : public Driver {
public:
  static StatusOr<std::unique_ptr<Driver>> create(const DriverOptions &options);
  /// Same over an already resolved table (the real one, or a test's fake),
  /// and CUPTI's (a test's fake; null: libcupti when a counter session
  /// first asks for it).
  static StatusOr<std::unique_ptr<Driver>>
  create(const DriverOptions &options, CudaSymbols syms,
         std::shared_ptr<const CuptiSymbols> cupti = nullptr);
  const char *name() const override { return "cuda"; }
  const std::vector<DeviceProperties> &devices() const override {
    return properties_;
  }
  StatusOr<std::unique_ptr<Device>>
  createDevice(uint32_t index, const DeviceOptions &options) override;
  const CudaSymbols &syms() const { return syms_; }

private:
  CudaDriver() = default;
  CudaSymbols syms_;
  std::unique_ptr<CuptiLibrary> cupti_; // shared by the devices
  int driverVersion_ = 0;               // cuDriverGetVersion: 13000 = CUDA 13.0
  std::vector<CUdevice> handles_;
  std::vector<DeviceProperties> properties_;
};

class CudaDevice final : public Device {
public:
  CudaDevice(const CudaSymbols &syms, CuptiLibrary &cupti, CUdevice device,
             int driverVersion, DeviceProperties properties)
      : syms_(syms), cupti_(cupti), device_(device),
        driverVersion_(driverVersion), properties_(std::move(properties)) {}
  ~CudaDevice() override;
  Status init();

  const DeviceProperties &properties() const override { return properties_; }
  StatusOr<std::shared_ptr<Buffer>> allocateBuffer(uint64_t size,
                                                   MemoryType type) override;
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override;
  StatusOr<std::unique_ptr<CommandBuffer>>
  createCommandBuffer(const CommandBufferOptions &options) override;
  StatusOr<std::shared_ptr<Timer>> createTimer(uint32_t slotCount) override;
  bool supportsFormat(ExecutableFormat format) const override {
    return format == ExecutableFormat::Ptx || format == ExecutableFormat::Cubin;
  }
  /// CUPTI's range profiler on this device's context (cupti_session.h).
  StatusOr<std::unique_ptr<CounterSession>> createCounterSession() override;

  const CudaSymbols &syms() const { return syms_; }
  CUstream stream() const { return stream_; }
  /// cuDriverGetVersion (13000 = CUDA 13.0).
  int driverVersion() const { return driverVersion_; }
  /// Whether a sticky error has made the context unusable.
  bool lost() const { return !lost_.empty(); }
  /// Makes the primary context current on the calling thread.
  /// FailedPrecondition once a kernel fault has poisoned the context.
  Status makeCurrent() const;
  /// Converts |result| of |what|; a sticky error (a kernel fault: the
  /// context cannot be used again) is remembered, and every later call on
  /// this device fails at once with FailedPrecondition naming |what|,
  /// instead of returning the driver's repeated error from some unrelated
  /// call (or waiting on a dead stream).
  /// |what| is a literal so that the success path formats nothing (the
  /// launch path calls this per command).
  Status check(CUresult result, const char *what);
  Status check(CUresult result, const std::string &what) {
    return check(result, what.c_str());
  }

private:
  const CudaSymbols &syms_;
  CuptiLibrary &cupti_;
  std::string lost_; // why the context is unusable; empty while it is fine
  CUdevice device_;
  int driverVersion_;
  DeviceProperties properties_;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

class CudaBuffer final : public Buffer {
public:
  CudaBuffer(CudaDevice &device, uint64_t size, MemoryType type,
             CUdeviceptr pointer)
      : Buffer(size, type), device_(device), pointer_(pointer) {}
  ~CudaBuffer() override;
  Status upload(uint64_t offset, const void *data, uint64_t length) override;
  Status download(uint64_t offset, void *data, uint64_t length) override;
  CUdeviceptr pointer() const { return pointer_; }

private:
  CudaDevice &device_;
  CUdeviceptr pointer_;
};

class CudaExecutable final : public Executable {
public:
  static StatusOr<std::shared_ptr<Executable>>
  create(CudaDevice &device, const ExecutableSpec &spec);
  ~CudaExecutable() override;
  CUfunction function(size_t exportIndex) const {
    return functions_[exportIndex];
  }
  /// The kernel parameters of an export (cudaParamLayout) and where each
  /// constant sits in the dispatch's constant bytes (pushConstantLayout),
  /// computed once at load: every dispatch needs both, and the launch path
  /// stays close to a raw cuLaunchKernel.
  const std::vector<ParamSlot> &paramSlots(size_t exportIndex) const {
    return paramSlots_[exportIndex];
  }
  const std::vector<ParamSlot> &constantSlots(size_t exportIndex) const {
    return constantSlots_[exportIndex];
  }
  /// The JIT info log of the load (empty for cubin or a quiet JIT).
  const std::string &infoLog() const { return infoLog_; }

private:
  CudaExecutable(CudaDevice &device, const ExecutableSpec &spec)
      : Executable(spec), device_(device) {}
  Status load(const ExecutableSpec &spec, const std::string &where);
  Status prepareFunction(size_t index, const KernelAbi &abi, CUfunction fn,
                         const std::string &where);
  Status checkParameters(size_t index, const KernelAbi &abi, CUfunction fn,
                         const std::string &where);
  CudaDevice &device_;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> functions_;
  std::vector<std::vector<ParamSlot>> paramSlots_, constantSlots_;
  std::string infoLog_;
};

class CudaTimer final : public Timer {
public:
  static StatusOr<std::shared_ptr<Timer>> create(CudaDevice &device,
                                                 uint32_t slotCount);
  ~CudaTimer() override;
  StatusOr<double> elapsedNs(uint32_t begin, uint32_t end) override;
  CUevent event(uint32_t slot) const { return events_[slot]; }
  void markRecorded(uint32_t slot) { recorded_[slot] = true; }
  /// After a failed submit: the slots' events may hold stale times.
  void markUnrecorded(uint32_t slot) { recorded_[slot] = false; }

private:
  CudaTimer(CudaDevice &device, uint32_t slotCount)
      : Timer(slotCount), device_(device), recorded_(slotCount, false) {}
  CudaDevice &device_;
  std::vector<CUevent> events_;
  std::vector<bool> recorded_;
};

/// Commands are recorded on the host and issued to the device's stream on
/// submit (or captured once into a CUDA graph with useGraph).
class CudaCommandBuffer final : public CommandBuffer {
public:
  CudaCommandBuffer(CudaDevice &device, const CommandBufferOptions &options)
      : device_(device), options_(options) {}
  ~CudaCommandBuffer() override;

  Status dispatch(const DispatchParams &params) override;
  Status barrier() override;
  Status fillBuffer(Buffer &buffer, uint64_t offset, uint64_t length,
                    uint32_t pattern) override;
  Status copyBuffer(Buffer &source, uint64_t sourceOffset, Buffer &target,
                    uint64_t targetOffset, uint64_t length) override;
  Status writeTimestamp(Timer &timer, uint32_t slot) override;
  /// NVTX ranges pushed on the host around each submission (nvtx_range.h):
  /// a label opens before the first command and closes after the last.
  Status beginLabel(const std::string &name) override;
  Status endLabel() override;
  Status submitAndWait() override;
  Status reset() override;
  size_t dispatchCount() const override;

private:
  struct Command {
    enum class Kind { Launch, Fill, Copy, Timestamp } kind = Kind::Launch;
    // Launch
    CUfunction function = nullptr;
    std::array<uint32_t, 3> grid{}, block{};
    uint32_t sharedBytes = 0;
    std::vector<uint8_t> args; // packed per kb::cudaParamLayout
    /// cuLaunchKernel's kernelParams: pointers into |args| (whose heap
    /// buffer moves with the Command), built once at record time.
    std::vector<void *> argPointers;
    // What names the dispatch in an error; formatted only then.
    const Executable *executable = nullptr;
    uint32_t exportIndex = 0;
    std::string label;
    // Fill / Copy
    CUdeviceptr target = 0, source = 0;
    uint64_t length = 0;
    uint32_t pattern = 0;
    // Timestamp
    CudaTimer *timer = nullptr;
    uint32_t slot = 0;
  };
  /// Enqueues every command on the stream (|captured|: inside a stream
  /// capture). Returns the first error; |*failed| is its command index.
  CUresult issue(CUstream stream, bool captured, size_t *failed);
  /// After an error while issuing (or capturing) command |failed|:
  /// synchronizes the stream, then names the failed command and everything
  /// issued before it that may still have been running.
  Status issueFailed(size_t failed, CUresult result, bool captured);
  Status captureGraph(CUstream stream);
  /// A kernel fault at the end of the submission.
  Status syncFailed(CUresult result);
  std::string describe(const Command &c) const;
  /// The labels of the launches among the first |count| commands.
  std::string describeLaunches(size_t count) const;
  void destroyGraph();
  /// Drops the recorded commands and labels.
  void clearRecording();
  /// The submitted work might still run (its completion could not be
  /// confirmed): nothing it uses may be freed.
  void abandon();

  CudaDevice &device_;
  CommandBufferOptions options_;
  std::vector<Command> commands_;
  /// The labels, outermost first; |openLabels_| of them not yet ended, and
  /// how many commands there were when the first one ended (none may
  /// follow: the ranges cover the whole submission).
  std::vector<std::string> labels_;
  size_t openLabels_ = 0;
  std::optional<size_t> commandsAtFirstEnd_;
  CUgraphExec graphExec_ = nullptr;
  bool submitted_ = false;
  bool abandoned_ = false;
};

} // namespace kb::hal::cuda

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_DRIVER_H_

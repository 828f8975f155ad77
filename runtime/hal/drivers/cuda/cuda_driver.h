//===- runtime/hal/drivers/cuda/cuda_driver.h - CUDA backend --------------===//
//
// Private to the CUDA driver: the concrete HAL classes over the driver API
// (primary context, cuModuleLoadDataEx, cuLaunchKernel, events, graphs). The
// rest of the tree sees only createCudaDriver() through registration.h.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_DRIVER_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_DRIVER_H_

#include "runtime/hal/driver.h"
#include "runtime/hal/drivers/cuda/cuda_symbols.h"

#include <memory>
#include <string>
#include <vector>

namespace kb::hal::cuda {

StatusOr<std::unique_ptr<Driver>> createCudaDriver(const DriverOptions &);

class CudaDriver final : public Driver {
public:
  static StatusOr<std::unique_ptr<Driver>> create(const DriverOptions &options);
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
  std::vector<CUdevice> handles_;
  std::vector<DeviceProperties> properties_;
};

class CudaDevice final : public Device {
public:
  CudaDevice(const CudaSymbols &syms, CUdevice device,
             DeviceProperties properties)
      : syms_(syms), device_(device), properties_(std::move(properties)) {}
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

  const CudaSymbols &syms() const { return syms_; }
  CUstream stream() const { return stream_; }
  /// Makes the primary context current on the calling thread.
  /// FailedPrecondition once a kernel fault has poisoned the context.
  Status makeCurrent() const;
  /// Converts |result| of |what|; a sticky error (a kernel fault: the
  /// context cannot be used again) is remembered, and every later call on
  /// this device fails at once with FailedPrecondition naming |what|,
  /// instead of returning the driver's repeated error from some unrelated
  /// call (or waiting on a dead stream).
  Status check(CUresult result, const std::string &what);

private:
  const CudaSymbols &syms_;
  std::string lost_; // why the context is unusable; empty while it is fine
  CUdevice device_;
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
  /// The JIT info log of the load (empty for cubin or a quiet JIT).
  const std::string &infoLog() const { return infoLog_; }

private:
  CudaExecutable(CudaDevice &device, const ExecutableSpec &spec)
      : Executable(spec), device_(device) {}
  CudaDevice &device_;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> functions_;
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
    std::vector<uint32_t> argOffsets;
    std::string label;
    // Fill / Copy
    CUdeviceptr target = 0, source = 0;
    uint64_t length = 0;
    uint32_t pattern = 0;
    // Timestamp
    CudaTimer *timer = nullptr;
    uint32_t slot = 0;
  };
  Status issue(); // enqueues every command on the stream
  void destroyGraph();

  CudaDevice &device_;
  CommandBufferOptions options_;
  std::vector<Command> commands_;
  CUgraphExec graphExec_ = nullptr;
  bool submitted_ = false;
};

} // namespace kb::hal::cuda

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_DRIVER_H_

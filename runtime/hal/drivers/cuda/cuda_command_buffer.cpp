//===- runtime/hal/drivers/cuda/cuda_command_buffer.cpp - Launches --------===//
//
// Kernel parameters follow DESIGN.md section 3: one CUdeviceptr per binding,
// then the constants at natural alignment (kb::cudaParamLayout); the caller's
// constant block (kb::pushConstantLayout) is repacked slot by slot.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

#include <cstring>

namespace kb::hal::cuda {

CudaCommandBuffer::~CudaCommandBuffer() { destroyGraph(); }
// The retained objects are released after this (CommandBuffer's member),
// i.e. after the graph that refers to them.

void CudaCommandBuffer::destroyGraph() {
  if (graphExec_) {
    (void)device_.makeCurrent();
    (void)device_.syms().cuGraphExecDestroy(graphExec_);
    graphExec_ = nullptr;
  }
}

size_t CudaCommandBuffer::dispatchCount() const {
  size_t n = 0;
  for (const Command &c : commands_)
    n += c.kind == Command::Kind::Launch;
  return n;
}

static Status notRecording(const char *what) {
  return failedPrecondition(std::string(what) +
                            ": the command buffer was submitted; reset() it "
                            "before recording again");
}

Status CudaCommandBuffer::dispatch(const DispatchParams &params) {
  if (submitted_)
    return notRecording("dispatch");
  KB_RETURN_IF_ERROR(checkDispatchParams(params, device_.properties().limits));
  const auto *exe = dynamic_cast<const CudaExecutable *>(params.executable);
  if (!exe)
    return invalidArgument(describeDispatch(params) +
                           ": the executable was not created by a CUDA device");
  for (size_t i = 0; i < params.bindings.size(); ++i)
    if (!dynamic_cast<const CudaBuffer *>(params.bindings[i].buffer))
      return invalidArgument(describeDispatch(params) + ": binding " +
                             std::to_string(i) +
                             " is not a buffer of a CUDA device");
  KB_RETURN_IF_ERROR(retain(*exe, "dispatch"));
  for (const BindingRef &ref : params.bindings)
    KB_RETURN_IF_ERROR(retain(*ref.buffer, "dispatch binding"));
  const KernelAbi &abi = exe->exportAbi(params.exportIndex);
  std::vector<ParamSlot> slots = cudaParamLayout(abi);
  std::vector<ParamSlot> constantSlots = pushConstantLayout(abi);
  Command c;
  c.kind = Command::Kind::Launch;
  c.function = exe->function(params.exportIndex);
  c.grid = params.workgroupCount;
  c.block = abi.workgroupSize;
  c.sharedBytes = abi.dynamicSharedMemoryBytes;
  c.label = describeDispatch(params);
  c.args.assign(slots.empty() ? 0 : slots.back().offset + slots.back().size, 0);
  for (size_t i = 0; i < params.bindings.size(); ++i) {
    const auto *buffer =
        static_cast<const CudaBuffer *>(params.bindings[i].buffer);
    CUdeviceptr p = buffer->pointer() + params.bindings[i].offset;
    std::memcpy(c.args.data() + slots[i].offset, &p, sizeof(p));
  }
  for (size_t i = 0; i < constantSlots.size(); ++i) {
    const ParamSlot &to = slots[params.bindings.size() + i];
    std::memcpy(c.args.data() + to.offset,
                params.constants.data() + constantSlots[i].offset, to.size);
  }
  for (const ParamSlot &slot : slots)
    c.argOffsets.push_back(slot.offset);
  commands_.push_back(std::move(c));
  destroyGraph();
  return okStatus();
}

Status CudaCommandBuffer::barrier() {
  // One in-order stream: every command already waits for the previous one.
  if (submitted_)
    return notRecording("barrier");
  return okStatus();
}

Status CudaCommandBuffer::fillBuffer(Buffer &buffer, uint64_t offset,
                                     uint64_t length, uint32_t pattern) {
  if (submitted_)
    return notRecording("fill");
  KB_RETURN_IF_ERROR(checkFillParams(buffer, offset, length));
  auto *cu = dynamic_cast<CudaBuffer *>(&buffer);
  if (!cu)
    return invalidArgument("fill: not a buffer of a CUDA device");
  KB_RETURN_IF_ERROR(retain(buffer, "fill"));
  Command c;
  c.kind = Command::Kind::Fill;
  c.target = cu->pointer() + offset;
  // Whole-buffer fills cover the allocation's padding to 4 bytes.
  c.length = length ? length : ((buffer.size() + 3) & ~uint64_t(3)) - offset;
  c.pattern = pattern;
  commands_.push_back(std::move(c));
  destroyGraph();
  return okStatus();
}

Status CudaCommandBuffer::copyBuffer(Buffer &source, uint64_t sourceOffset,
                                     Buffer &target, uint64_t targetOffset,
                                     uint64_t length) {
  if (submitted_)
    return notRecording("copy");
  KB_RETURN_IF_ERROR(
      checkCopyParams(source, sourceOffset, target, targetOffset, length));
  auto *src = dynamic_cast<CudaBuffer *>(&source);
  auto *dst = dynamic_cast<CudaBuffer *>(&target);
  if (!src || !dst)
    return invalidArgument("copy: not a buffer of a CUDA device");
  KB_RETURN_IF_ERROR(retain(source, "copy source"));
  KB_RETURN_IF_ERROR(retain(target, "copy target"));
  Command c;
  c.kind = Command::Kind::Copy;
  c.source = src->pointer() + sourceOffset;
  c.target = dst->pointer() + targetOffset;
  c.length = length;
  commands_.push_back(std::move(c));
  destroyGraph();
  return okStatus();
}

Status CudaCommandBuffer::writeTimestamp(Timer &timer, uint32_t slot) {
  if (submitted_)
    return notRecording("timestamp");
  auto *cu = dynamic_cast<CudaTimer *>(&timer);
  if (!cu)
    return invalidArgument("timestamp: not a timer of a CUDA device");
  if (slot >= cu->slotCount())
    return outOfRange("timestamp slot " + std::to_string(slot) +
                      " is out of range: the timer has " +
                      std::to_string(cu->slotCount()) + " slots");
  KB_RETURN_IF_ERROR(retain(timer, "timestamp"));
  Command c;
  c.kind = Command::Kind::Timestamp;
  c.timer = cu;
  c.slot = slot;
  commands_.push_back(std::move(c));
  destroyGraph();
  return okStatus();
}

Status CudaCommandBuffer::issue() {
  const CudaSymbols &s = device_.syms();
  CudaDevice &d = device_;
  CUstream stream = device_.stream();
  for (Command &c : commands_) {
    switch (c.kind) {
    case Command::Kind::Launch: {
      std::vector<void *> args;
      for (uint32_t offset : c.argOffsets)
        args.push_back(c.args.data() + offset);
      KB_RETURN_IF_ERROR(d.check(
          s.cuLaunchKernel(c.function, c.grid[0], c.grid[1], c.grid[2],
                           c.block[0], c.block[1], c.block[2], c.sharedBytes,
                           stream, args.empty() ? nullptr : args.data(),
                           nullptr),
          "cuLaunchKernel for " + c.label));
      break;
    }
    case Command::Kind::Fill:
      KB_RETURN_IF_ERROR(
          d.check(s.cuMemsetD32Async(c.target, c.pattern, c.length / 4, stream),
                  "cuMemsetD32Async"));
      break;
    case Command::Kind::Copy:
      KB_RETURN_IF_ERROR(
          d.check(s.cuMemcpyDtoDAsync(c.target, c.source, c.length, stream),
                  "cuMemcpyDtoDAsync"));
      break;
    case Command::Kind::Timestamp:
      KB_RETURN_IF_ERROR(d.check(
          s.cuEventRecord(c.timer->event(c.slot), stream), "cuEventRecord"));
      break;
    }
  }
  return okStatus();
}

Status CudaCommandBuffer::submitAndWait() {
  submitted_ = true;
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  const CudaSymbols &s = device_.syms();
  CUstream stream = device_.stream();
  if (options_.useGraph) {
    if (!graphExec_) {
      // Capture once; every later submit replays the instantiated graph
      // with a single cuGraphLaunch.
      KB_CU_RETURN_IF_ERROR(
          s,
          s.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
          "cuStreamBeginCapture");
      Status issued = issue();
      CUgraph graph = nullptr;
      CUresult end = s.cuStreamEndCapture(stream, &graph);
      if (!issued.ok() || end != CUDA_SUCCESS) {
        if (graph) // a capture that ended but recorded an error
          (void)s.cuGraphDestroy(graph);
        KB_RETURN_IF_ERROR(issued);
        return device_.check(end, "cuStreamEndCapture");
      }
      CUresult inst = s.cuGraphInstantiateWithFlags(&graphExec_, graph, 0);
      (void)s.cuGraphDestroy(graph);
      if (inst != CUDA_SUCCESS) {
        graphExec_ = nullptr;
        return device_.check(inst, "cuGraphInstantiateWithFlags");
      }
    }
    KB_RETURN_IF_ERROR(
        device_.check(s.cuGraphLaunch(graphExec_, stream), "cuGraphLaunch"));
  } else {
    KB_RETURN_IF_ERROR(issue());
  }
  CUresult r = s.cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS) {
    // Kernel faults surface here (asynchronously); name what was in flight.
    std::string what;
    size_t n = 0;
    for (const Command &c : commands_)
      if (c.kind == Command::Kind::Launch) {
        if (n++ < 3)
          what += (what.empty() ? "" : ", ") + c.label;
      }
    if (n > 3)
      what += ", ... (" + std::to_string(n) + " dispatches)";
    std::string where = what.empty() ? std::string("command buffer") : what;
    (void)device_.check(r, "a kernel of " + where); // remembers a sticky fault
    return internalError("kernel fault in " + where + ": " + s.describe(r) +
                         "; the CUDA context is unusable after this error");
  }
  for (const Command &c : commands_)
    if (c.kind == Command::Kind::Timestamp)
      c.timer->markRecorded(c.slot);
  return okStatus();
}

Status CudaCommandBuffer::reset() {
  destroyGraph();
  releaseRetained();
  commands_.clear();
  submitted_ = false;
  return okStatus();
}

} // namespace kb::hal::cuda

//===- runtime/hal/drivers/cuda/cuda_command_buffer.cpp - Launches --------===//
//
// Kernel parameters follow docs/kernel-abi.md: one CUdeviceptr per binding,
// then the constants at natural alignment (kb::cudaParamLayout); the caller's
// constant block (kb::pushConstantLayout) is repacked slot by slot.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"
#include "runtime/hal/drivers/cuda/nvtx_range.h"

#include <cstring>

namespace kb::hal::cuda {

CudaCommandBuffer::~CudaCommandBuffer() {
  // After abandon() the graph was leaked and retained_ is empty.
  destroyGraph();
}
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
  // Messages are formatted only on these error paths: recording and issuing
  // a dispatch do no string work, so the HAL launch path stays close to a
  // raw cuLaunchKernel.
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
  const std::vector<ParamSlot> &slots = exe->paramSlots(params.exportIndex);
  const std::vector<ParamSlot> &constantSlots =
      exe->constantSlots(params.exportIndex);
  Command c;
  c.kind = Command::Kind::Launch;
  c.function = exe->function(params.exportIndex);
  c.grid = params.workgroupCount;
  c.block = abi.workgroupSize;
  c.sharedBytes = abi.dynamicSharedMemoryBytes;
  c.executable = exe;
  c.exportIndex = params.exportIndex;
  c.label = params.label;
  c.args.assign(slots.empty() ? 0 : slots.back().offset + slots.back().size, 0);
  // Each parameter, in the kernel's order, holds a binding's pointer or a
  // constant's bytes (ParamSlot::slot says which).
  for (const ParamSlot &to : slots) {
    if (to.slot < params.bindings.size()) {
      const BindingRef &ref = params.bindings[to.slot];
      CUdeviceptr p =
          static_cast<const CudaBuffer *>(ref.buffer)->pointer() + ref.offset;
      std::memcpy(c.args.data() + to.offset, &p, sizeof(p));
    } else if (to.slot - params.bindings.size() < constantSlots.size()) {
      const ParamSlot &from = constantSlots[to.slot - params.bindings.size()];
      std::memcpy(c.args.data() + to.offset,
                  params.constants.data() + from.offset, to.size);
    }
  }
  c.argPointers.reserve(slots.size());
  for (const ParamSlot &slot : slots)
    c.argPointers.push_back(c.args.data() + slot.offset);
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

CUresult CudaCommandBuffer::issue(CUstream stream, bool captured,
                                  size_t *failed) {
  const CudaSymbols &s = device_.syms();
  for (size_t i = 0; i < commands_.size(); ++i) {
    Command &c = commands_[i];
    CUresult r = CUDA_SUCCESS;
    switch (c.kind) {
    case Command::Kind::Launch:
      r = s.cuLaunchKernel(
          c.function, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1],
          c.block[2], c.sharedBytes, stream,
          c.argPointers.empty() ? nullptr : c.argPointers.data(), nullptr);
      break;
    case Command::Kind::Fill:
      r = s.cuMemsetD32Async(c.target, c.pattern, c.length / 4, stream);
      break;
    case Command::Kind::Copy:
      r = s.cuMemcpyDtoDAsync(c.target, c.source, c.length, stream);
      break;
    case Command::Kind::Timestamp:
      // Inside a capture a plain cuEventRecord only orders the capture and
      // leaves no node in the graph, so the event is never recorded when
      // the graph runs (cuEventElapsedTime: CUDA_ERROR_CAPTURED_EVENT).
      // CU_EVENT_RECORD_EXTERNAL makes it an event-record node.
      r = captured ? s.cuEventRecordWithFlags(c.timer->event(c.slot), stream,
                                              CU_EVENT_RECORD_EXTERNAL)
                   : s.cuEventRecord(c.timer->event(c.slot), stream);
      break;
    }
    if (r != CUDA_SUCCESS) {
      *failed = i;
      return r;
    }
  }
  return CUDA_SUCCESS;
}

std::string CudaCommandBuffer::describe(const Command &c) const {
  switch (c.kind) {
  case Command::Kind::Launch: {
    DispatchParams p;
    p.executable = c.executable;
    p.exportIndex = c.exportIndex;
    p.label = c.label;
    return "cuLaunchKernel for " + describeDispatch(p);
  }
  case Command::Kind::Fill:
    return "cuMemsetD32Async (fill)";
  case Command::Kind::Copy:
    return "cuMemcpyDtoDAsync (copy)";
  case Command::Kind::Timestamp:
    return "event record (timestamp slot " + std::to_string(c.slot) + ")";
  }
  return "command";
}

std::string CudaCommandBuffer::describeLaunches(size_t count) const {
  std::string what;
  size_t n = 0;
  for (size_t i = 0; i < count && i < commands_.size(); ++i) {
    const Command &c = commands_[i];
    if (c.kind != Command::Kind::Launch)
      continue;
    if (n++ < 3) {
      DispatchParams p;
      p.executable = c.executable;
      p.exportIndex = c.exportIndex;
      p.label = c.label;
      what += (what.empty() ? "" : ", ") + describeDispatch(p);
    }
  }
  if (n > 3)
    what += ", ... (" + std::to_string(n) + " dispatches)";
  return what;
}

void CudaCommandBuffer::abandon() {
  abandoned_ = true;
  // Leaked on purpose: the graph and everything the commands use.
  graphExec_ = nullptr;
  leakRetained();
}

Status CudaCommandBuffer::issueFailed(size_t failed, CUresult result,
                                      bool captured) {
  const CudaSymbols &s = device_.syms();
  // The error may be the command's own (bad launch configuration) or an
  // earlier kernel's fault that surfaced at this call: either way wait for
  // what was already issued before reporting, so that nothing is freed
  // under running kernels and the message can say how it ended.
  std::string what = describe(commands_[failed]);
  (void)device_.check(result, what);
  std::string message = what + " failed: " + s.describe(result);
  CUresult sync = s.cuStreamSynchronize(device_.stream());
  // Captured commands never ran; in stream order, the ones before |failed|
  // were in flight when the error came back.
  std::string inFlight = captured ? "" : describeLaunches(failed);
  if (sync != CUDA_SUCCESS) {
    (void)device_.check(sync, "a kernel issued before " + what);
    abandon();
    message +=
        "; then waiting for the work issued before it failed too (" +
        s.describe(sync) + "), so the error may come from " +
        (inFlight.empty() ? std::string("earlier work on the device")
                          : "a dispatch that was in flight: " + inFlight);
  } else if (!inFlight.empty()) {
    message += " (the dispatches issued before it finished: " + inFlight + ")";
  }
  if (device_.lost())
    message += "; the CUDA context is unusable after this error";
  return internalError(message);
}

Status CudaCommandBuffer::captureGraph(CUstream stream) {
  // Capture once; every later submit replays the instantiated graph with a
  // single cuGraphLaunch.
  const CudaSymbols &s = device_.syms();
  KB_RETURN_IF_ERROR(device_.check(
      s.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
      "cuStreamBeginCapture"));
  size_t failed = 0;
  CUresult issued = issue(stream, /*captured=*/true, &failed);
  CUgraph graph = nullptr;
  CUresult end = s.cuStreamEndCapture(stream, &graph);
  if (issued != CUDA_SUCCESS || end != CUDA_SUCCESS) {
    if (graph) // a capture that ended but recorded an error
      (void)s.cuGraphDestroy(graph);
    if (issued != CUDA_SUCCESS)
      return issueFailed(failed, issued, /*captured=*/true);
    return device_.check(end, "cuStreamEndCapture");
  }
  CUresult inst = s.cuGraphInstantiateWithFlags(&graphExec_, graph, 0);
  (void)s.cuGraphDestroy(graph);
  if (inst != CUDA_SUCCESS) {
    graphExec_ = nullptr;
    return device_.check(inst, "cuGraphInstantiateWithFlags");
  }
  return okStatus();
}

Status CudaCommandBuffer::syncFailed(CUresult result) {
  // Kernel faults surface here (asynchronously); name what was in flight.
  std::string what = describeLaunches(commands_.size());
  std::string where = what.empty() ? std::string("command buffer") : what;
  (void)device_.check(result, "a kernel of " + where); // remembers stickiness
  // The wait failed, so the work's end is not confirmed: keep what it uses.
  abandon();
  return internalError("kernel fault in " + where + ": " +
                       device_.syms().describe(result) +
                       "; the CUDA context is unusable after this error");
}

void CudaCommandBuffer::clearRecording() {
  commands_.clear();
  labels_.clear();
  openLabels_ = 0;
  commandsAtFirstEnd_.reset();
}

Status CudaCommandBuffer::beginLabel(const std::string &name) {
  if (submitted_)
    return notRecording("beginLabel");
  if (*nvtxMissing())
    return unavailable("cannot label `" + name + "`: " + nvtxMissing());
  if (!commands_.empty() || commandsAtFirstEnd_)
    return failedPrecondition(
        "beginLabel(`" + name +
        "`): a CUDA label is an NVTX range pushed on the host around the "
        "whole submission, so it opens before the first command");
  labels_.push_back(name);
  ++openLabels_;
  return okStatus();
}

Status CudaCommandBuffer::endLabel() {
  if (submitted_)
    return notRecording("endLabel");
  if (openLabels_ == 0)
    return failedPrecondition("endLabel: no label is open");
  --openLabels_;
  if (!commandsAtFirstEnd_)
    commandsAtFirstEnd_ = commands_.size();
  return okStatus();
}

/// Whether the labels cover the whole submission (checked before any
/// driver call).
static Status checkLabelsClosed(size_t open, std::optional<size_t> atFirstEnd,
                                size_t commands) {
  if (open != 0)
    return failedPrecondition("submitAndWait: " + std::to_string(open) +
                              " label(s) still open; endLabel() each first");
  if (atFirstEnd && *atFirstEnd != commands)
    return failedPrecondition(
        "submitAndWait: commands were recorded after a label closed; a CUDA "
        "label (an NVTX range around the submission) covers every command");
  return okStatus();
}

Status CudaCommandBuffer::submitAndWait() {
  if (abandoned_)
    return failedPrecondition(
        "this command buffer's earlier submission failed and may still be "
        "running on the device; it cannot be submitted again");
  KB_RETURN_IF_ERROR(
      checkLabelsClosed(openLabels_, commandsAtFirstEnd_, commands_.size()));
  submitted_ = true;
  // The ranges enclose the launch and the wait: ncu matches the launch,
  // nsys draws the range over the work.
  NvtxRanges ranges(labels_);
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  const CudaSymbols &s = device_.syms();
  CUstream stream = device_.stream();
  for (const Command &c : commands_)
    if (c.kind == Command::Kind::Timestamp)
      c.timer->markUnrecorded(c.slot);
  if (options_.useGraph) {
    if (!graphExec_)
      KB_RETURN_IF_ERROR(captureGraph(stream));
    CUresult launched = s.cuGraphLaunch(graphExec_, stream);
    if (launched != CUDA_SUCCESS) {
      Status error = device_.check(launched, "cuGraphLaunch");
      // As in issueFailed: an earlier fault may surface here; wait first.
      if (s.cuStreamSynchronize(stream) != CUDA_SUCCESS)
        abandon();
      return error;
    }
  } else {
    size_t failed = 0;
    CUresult r = issue(stream, /*captured=*/false, &failed);
    if (r != CUDA_SUCCESS)
      return issueFailed(failed, r, /*captured=*/false);
  }
  CUresult r = s.cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS)
    return syncFailed(r);
  for (const Command &c : commands_)
    if (c.kind == Command::Kind::Timestamp)
      c.timer->markRecorded(c.slot);
  return okStatus();
}

Status CudaCommandBuffer::reset() {
  if (abandoned_) {
    // The abandoned work keeps its resources (leaked); recording starts
    // over with a clean slate.
    clearRecording();
    abandoned_ = submitted_ = false;
    return okStatus();
  }
  destroyGraph();
  releaseRetained();
  clearRecording();
  submitted_ = false;
  return okStatus();
}

} // namespace kb::hal::cuda

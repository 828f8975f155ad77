//===- runtime/hal/command_buffer.h - Recorded device work ---------------===//
//
// A CommandBuffer records dispatches, fills, copies, barriers and timestamp
// writes, then runs them with submitAndWait(). It can be submitted again
// (the same work re-runs) until reset().
//
// CUDA: commands are recorded on the host and issued to a stream on submit;
// with CommandBufferOptions::useGraph they are captured once into a CUDA
// graph and every submit is one cuGraphLaunch (batched launches).
// Vulkan: a primary VkCommandBuffer, one descriptor set per dispatch,
// submitted with a fence.
//
// Ordering: commands run in order, but the device may overlap commands that
// are not separated by barrier() (Vulkan does; CUDA streams serialise
// anyway). Record a barrier between commands that depend on each other.
//
// Lifetimes: a command buffer keeps every Buffer, Executable and Timer it
// records alive (it holds a shared_ptr to each) until it is reset() or
// destroyed, so callers may drop theirs right after recording. The Device
// itself must outlive the command buffer.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_COMMAND_BUFFER_H_
#define KB_RUNTIME_HAL_COMMAND_BUFFER_H_

#include "common/status.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kb::hal {

class Buffer;
class Executable;
class Timer;

//===----------------------------------------------------------------------===//
// Types and enums
//===----------------------------------------------------------------------===//

/// A range of |buffer| bound to one binding of a dispatch (borrowed for the
/// call; the command buffer retains the buffer). |length| 0 means "to the
/// end of the buffer". Vulkan requires |offset| to be a multiple of
/// DeviceLimits::minBindingOffsetAlignment (checked at record time).
struct BindingRef {
  Buffer *buffer = nullptr;
  uint64_t offset = 0;
  uint64_t length = 0;
};

/// One dispatch. |constants| is the constant block packed per
/// kb::pushConstantLayout (natural alignment, offsets from 0); its size must
/// be kb::pushConstantSize of the export. The CUDA driver repacks it into
/// kernel parameters per kb::cudaParamLayout; the Vulkan driver, for an
/// export that takes its constants in a uniform block, into that block
/// (kb::packUniformConstants) in a host-visible buffer it binds there.
struct DispatchParams {
  const Executable *executable = nullptr;
  uint32_t exportIndex = 0;
  std::array<uint32_t, 3> workgroupCount = {1, 1, 1};
  std::vector<BindingRef> bindings;
  std::vector<uint8_t> constants;
  /// Names the dispatch in errors ("function main, op 3"); optional.
  std::string label;
};

struct CommandBufferOptions {
  /// CUDA: capture the recorded commands into a CUDA graph on first submit
  /// and launch the graph thereafter. Ignored by Vulkan (a VkCommandBuffer
  /// is already a pre-recorded batch).
  bool useGraph = false;
};

//===----------------------------------------------------------------------===//
// CommandBuffer
//===----------------------------------------------------------------------===//

/// Created by Device::createCommandBuffer. Recording methods validate their
/// arguments (InvalidArgument/OutOfRange) before touching the driver and
/// fail with FailedPrecondition after a submit until reset(). Not
/// thread-safe.
class CommandBuffer {
public:
  virtual ~CommandBuffer() = default;
  CommandBuffer(const CommandBuffer &) = delete;
  CommandBuffer &operator=(const CommandBuffer &) = delete;

  /// Records a dispatch. Checks: export index, binding count and ranges,
  /// constant block size, workgroup count against the device limits.
  virtual Status dispatch(const DispatchParams &params) = 0;
  /// Full compute/transfer execution and memory barrier (Vulkan:
  /// vkCmdPipelineBarrier with a VkMemoryBarrier, shader+transfer writes ->
  /// shader+transfer reads/writes).
  virtual Status barrier() = 0;
  /// Fills [offset, offset+length) with the 32-bit |pattern|. Offset and
  /// length must be multiples of 4; |length| 0 fills to the end.
  virtual Status fillBuffer(Buffer &buffer, uint64_t offset, uint64_t length,
                            uint32_t pattern) = 0;
  /// Copies |length| bytes; ranges must not overlap when source == target.
  virtual Status copyBuffer(Buffer &source, uint64_t sourceOffset,
                            Buffer &target, uint64_t targetOffset,
                            uint64_t length) = 0;
  /// Writes the device time into |slot| of |timer| once all previously
  /// recorded commands have finished.
  virtual Status writeTimestamp(Timer &timer, uint32_t slot) = 0;

  /// Opens a label named |name| around the commands recorded until the
  /// matching endLabel() (labels nest), for profilers to find the work:
  /// Vulkan records a VK_EXT_debug_utils label (RenderDoc, Nsight, nsys);
  /// CUDA pushes an NVTX range on the host around each submission (`ncu
  /// --nvtx-include`, nsys), so there a label must open before the first
  /// command and close after the last. Unavailable when the device cannot
  /// label (a Vulkan instance without VK_EXT_debug_utils: the driver enables
  /// it for DriverOptions::debugLabels and the validation layer; no NVTX in
  /// this build).
  virtual Status beginLabel(const std::string &name) = 0;
  /// Closes the innermost open label; FailedPrecondition when none is open.
  virtual Status endLabel() = 0;

  /// Runs the recorded commands and blocks until they finish. A kernel fault
  /// is an Internal error naming the dispatch(es) that were in flight
  /// (their labels); the device may be unusable afterwards (CUDA contexts
  /// are sticky-faulted).
  virtual Status submitAndWait() = 0;
  /// Drops the recorded commands; recording can start again.
  virtual Status reset() = 0;

  /// Number of dispatches recorded since the last reset.
  virtual size_t dispatchCount() const = 0;

protected:
  CommandBuffer() = default;

  /// Keeps |resource| alive until releaseRetained() (called by reset()) or
  /// destruction. Implementations retain every object a command refers to
  /// before recording it. InvalidArgument when |resource| is not owned by a
  /// shared_ptr, i.e. was not made by a Device factory.
  template <typename T> Status retain(const T &resource, const char *what) {
    auto owner = resource.weak_from_this().lock();
    if (!owner)
      return invalidArgument(std::string(what) +
                             ": the object is not owned by a shared_ptr "
                             "from a Device factory, so the command buffer "
                             "cannot keep it alive");
    if (retained_.empty() || retained_.back() != owner)
      retained_.push_back(std::move(owner));
    return okStatus();
  }
  /// Drops the references; call only once the device no longer uses the
  /// recorded commands.
  void releaseRetained() { retained_.clear(); }
  /// Keeps every retained object alive for the rest of the process, on
  /// purpose: for work that may still run on the device (a timed-out or
  /// faulted submission whose end could not be confirmed), where freeing
  /// its memory, modules or pipelines under it is worse than a leak.
  void leakRetained() {
    if (!retained_.empty())
      (void)new std::vector<std::shared_ptr<const void>>(std::move(retained_));
    retained_.clear();
  }

private:
  // Destroyed after the implementation's destructor body and members, i.e.
  // after the native command buffer/graph that refers to these objects.
  std::vector<std::shared_ptr<const void>> retained_;
};

/// Shared argument checks for CommandBuffer implementations (one place for
/// the messages). |limits| may be null.
struct DeviceLimits;
Status checkDispatchParams(const DispatchParams &params,
                           const DeviceLimits &limits);
Status checkFillParams(const Buffer &buffer, uint64_t offset, uint64_t length);
Status checkCopyParams(const Buffer &source, uint64_t sourceOffset,
                       const Buffer &target, uint64_t targetOffset,
                       uint64_t length);
/// "dispatch `label`" or "dispatch of `exe` export 0 (`entry`)".
std::string describeDispatch(const DispatchParams &params);

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_COMMAND_BUFFER_H_

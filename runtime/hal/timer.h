//===- runtime/hal/timer.h - Device timestamps ----------------------------===//
//
// A Timer is a fixed set of timestamp slots written on the device's timeline
// by CommandBuffer::writeTimestamp and read after the command buffer has
// completed. CUDA: one CUevent per slot (cuEventElapsedTime, 0.5 us
// resolution). Vulkan: a VkQueryPool of VK_QUERY_TYPE_TIMESTAMP, values
// masked to the queue's timestampValidBits and scaled by timestampPeriod.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_TIMER_H_
#define KB_RUNTIME_HAL_TIMER_H_

#include "common/status.h"

#include <cstdint>
#include <memory>

namespace kb::hal {

/// Shared between the caller (Device::createTimer's shared_ptr) and every
/// CommandBuffer that writes it, until that one is reset or destroyed. Must
/// not outlive its Device. Not thread-safe.
class Timer : public std::enable_shared_from_this<Timer> {
public:
  virtual ~Timer() = default;
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;

  uint32_t slotCount() const { return slotCount_; }

  /// Device time in nanoseconds from slot |begin| to slot |end|, both
  /// written by command buffers that have completed. FailedPrecondition when
  /// a slot was never written; OutOfRange for a bad slot index.
  virtual StatusOr<double> elapsedNs(uint32_t begin, uint32_t end) = 0;

protected:
  explicit Timer(uint32_t slotCount) : slotCount_(slotCount) {}
  Status checkSlot(uint32_t slot) const;

private:
  uint32_t slotCount_;
};

/// Ticks from |begin| to |end| on a counter of |validBits| meaningful bits
/// (Vulkan timestampValidBits): both are masked first and the difference is
/// taken modulo 2^validBits, which is right for any interval shorter than
/// one wrap of the counter.
uint64_t timestampDelta(uint64_t begin, uint64_t end, uint32_t validBits);

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_TIMER_H_

//===- runtime/hal/drivers/cuda/cuda_timer.cpp - Events as timestamps -----===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

namespace kb::hal::cuda {

StatusOr<std::shared_ptr<Timer>> CudaTimer::create(CudaDevice &device,
                                                   uint32_t slotCount) {
  if (slotCount == 0)
    return invalidArgument("a timer needs at least one slot");
  std::unique_ptr<CudaTimer> timer(new CudaTimer(device, slotCount));
  for (uint32_t i = 0; i < slotCount; ++i) {
    CUevent event = nullptr;
    KB_CU_RETURN_IF_ERROR(device.syms(),
                          device.syms().cuEventCreate(&event, CU_EVENT_DEFAULT),
                          "cuEventCreate");
    timer->events_.push_back(event);
  }
  return std::shared_ptr<Timer>(std::move(timer));
}

CudaTimer::~CudaTimer() {
  (void)device_.makeCurrent();
  for (CUevent e : events_)
    (void)device_.syms().cuEventDestroy(e);
}

StatusOr<double> CudaTimer::elapsedNs(uint32_t begin, uint32_t end) {
  KB_RETURN_IF_ERROR(checkSlot(begin));
  KB_RETURN_IF_ERROR(checkSlot(end));
  for (uint32_t slot : {begin, end})
    if (!recorded_[slot])
      return failedPrecondition("timestamp slot " + std::to_string(slot) +
                                " has not been written by a completed "
                                "command buffer");
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  float ms = 0;
  KB_RETURN_IF_ERROR(device_.check(
      device_.syms().cuEventElapsedTime(&ms, events_[begin], events_[end]),
      "cuEventElapsedTime"));
  return static_cast<double>(ms) * 1e6;
}

} // namespace kb::hal::cuda

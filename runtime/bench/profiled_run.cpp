//===- runtime/bench/profiled_run.cpp - One labeled run per variant -------===//
#include "runtime/bench/profiled_run.h"

namespace kb::bench {

Status runProfiled(hal::Device &device, const std::string &range,
                   const std::vector<Subject> &subjects) {
  for (const Subject &subject : subjects) {
    // Plain launches on CUDA (no graph): each kernel is a launch of its own
    // inside the range, as a profiler expects.
    KB_ASSIGN_OR_RETURN(std::unique_ptr<hal::CommandBuffer> commands,
                        device.createCommandBuffer());
    KB_RETURN_IF_ERROR(subject.record(*commands));
    KB_RETURN_IF_ERROR(commands->submitAndWait());
    KB_RETURN_IF_ERROR(commands->reset());
    KB_RETURN_IF_ERROR(commands->beginLabel(range));
    KB_RETURN_IF_ERROR(commands->beginLabel(subject.name));
    KB_RETURN_IF_ERROR(subject.record(*commands));
    KB_RETURN_IF_ERROR(commands->endLabel());
    KB_RETURN_IF_ERROR(commands->endLabel());
    KB_RETURN_IF_ERROR(commands->submitAndWait());
  }
  return okStatus();
}

} // namespace kb::bench

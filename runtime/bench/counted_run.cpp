//===- runtime/bench/counted_run.cpp - Hardware counters per variant ------===//
#include "runtime/bench/counted_run.h"

namespace kb::bench {
namespace {

/// The passes of one session, each submitting |flush| (when not null)
/// outside the pass, then |commands| inside it. The session's own failures (not
/// the device's) come back in |sessionError|.
Status countPasses(hal::CounterSession &session, hal::CommandBuffer *flush,
                   hal::CommandBuffer &commands, Status &sessionError) {
  for (unsigned pass = 0; pass < kMaxCounterPasses; ++pass) {
    if (flush)
      KB_RETURN_IF_ERROR(flush->submitAndWait());
    if (Status begun = session.beginPass(); !begun.ok()) {
      sessionError = begun;
      return okStatus();
    }
    Status ran = commands.submitAndWait();
    StatusOr<bool> done = session.endPass();
    KB_RETURN_IF_ERROR(ran);
    if (!done.ok()) {
      sessionError = done.status();
      return okStatus();
    }
    if (*done)
      return okStatus();
  }
  sessionError = internalError("the counters needed more than " +
                               std::to_string(kMaxCounterPasses) + " passes");
  return okStatus();
}

} // namespace

Status countVariants(hal::Device &device, hal::Buffer *flush,
                     const std::vector<Subject> &subjects,
                     std::vector<Variant> &variants) {
  std::unique_ptr<hal::CommandBuffer> flushing;
  if (flush) {
    KB_ASSIGN_OR_RETURN(flushing, device.createCommandBuffer());
    KB_RETURN_IF_ERROR(recordFlush(*flushing, flush));
  }
  std::string skipped; // why the device cannot count, once known
  for (size_t i = 0; i < subjects.size() && i < variants.size(); ++i) {
    Variant &variant = variants[i];
    if (!skipped.empty()) {
      variant.countersNote = skipped;
      continue;
    }
    // Plain launches on CUDA (no graph), recorded once and replayed per pass.
    KB_ASSIGN_OR_RETURN(std::unique_ptr<hal::CommandBuffer> commands,
                        device.createCommandBuffer());
    KB_RETURN_IF_ERROR(subjects[i].record(*commands));
    KB_RETURN_IF_ERROR(commands->submitAndWait()); // the warm-up
    StatusOr<std::unique_ptr<hal::CounterSession>> session =
        device.createCounterSession();
    Status sessionError = session.status();
    if (session.ok())
      KB_RETURN_IF_ERROR(
          countPasses(**session, flushing.get(), *commands, sessionError));
    if (session.ok() && sessionError.ok()) {
      StatusOr<hal::KernelCounters> values = (*session)->values();
      if (values.ok())
        variant.counters = *values;
      sessionError = values.status();
    }
    if (sessionError.code() == StatusCode::Unavailable)
      variant.countersNote = skipped = "skipped: " + sessionError.message();
    else if (!sessionError.ok())
      variant.countersNote = "failed: " + sessionError.message();
  }
  return okStatus();
}

} // namespace kb::bench

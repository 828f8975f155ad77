//===- runtime/bench/counted_run.h - Hardware counters per variant --------===//
//
// `bench --counters`: after a benchmark is timed and checked again, each
// variant's work runs once untimed (a loaded module, as in its timings),
// then once per pass of the device's counter session
// (runtime/hal/counters.h), until the session has every pass. Each pass starts
// with the L2 flushed in a submission of its own (outside the range), as Nsight
// Compute's default cache control does: the counters are a cold run's, and
// every pass sees the same caches. The counters are read after the timings
// on purpose: a profiler hooked into the context must never share it with a
// timed sample.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_COUNTED_RUN_H_
#define KB_RUNTIME_BENCH_COUNTED_RUN_H_

#include "common/status.h"
#include "runtime/bench/cache_flush.h"
#include "runtime/bench/measure.h"
#include "runtime/bench/results.h"
#include "runtime/hal/api.h"

#include <string>
#include <vector>

namespace kb::bench {

/// More passes than any metric set of ours needs: a session that asks for
/// more is broken, and its work is not replayed forever.
inline constexpr unsigned kMaxCounterPasses = 64;

/// Counts every subject as above into its variant (same index): its
/// counters, or the reason it has none in countersNote ("skipped: ..."
/// when the device or the host cannot count — then for every variant,
/// without asking again — or "failed: ..."). An error status only for a
/// failure of the device running the work.
/// |flush|: the buffer a flush fills (Engine::flushBuffer); null: none.
Status countVariants(hal::Device &device, hal::Buffer *flush,
                     const std::vector<Subject> &subjects,
                     std::vector<Variant> &variants);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_COUNTED_RUN_H_

//===- runtime/bench/profiled_run.h - One labeled run per variant ---------===//
//
// `bench --profile`: each variant's work runs once untimed (the warm-up:
// pipelines and modules are ready, caches as in a warm run), then exactly
// once more inside two nested labels — the benchmark, then the variant — and
// nothing else in that command buffer: no cache flush, no timestamp, no clock
// stamp. A profiler attached to the process (ncu's --nvtx-include, nsys,
// RenderDoc) finds each variant's kernels by those names, once.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_PROFILED_RUN_H_
#define KB_RUNTIME_BENCH_PROFILED_RUN_H_

#include "common/status.h"
#include "runtime/bench/measure.h"
#include "runtime/hal/api.h"

#include <string>
#include <vector>

namespace kb::bench {

/// Runs every subject as above, in order, labeled |range| then its name.
/// Unavailable when the device cannot label (CommandBuffer::beginLabel).
Status runProfiled(hal::Device &device, const std::string &range,
                   const std::vector<Subject> &subjects);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_PROFILED_RUN_H_

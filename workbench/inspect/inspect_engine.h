//===- workbench/inspect/inspect_engine.h - `inspect`, the engine ---------===//
//
// Reads the benchmarks of a build (inspect_benchmarks.h), each variant of
// the benchmarked executable per target (inspect_variant.h), says why the
// candidate differs from the reference (inspect_why.h), and writes the
// listings and diffs to BUILD/inspect/<benchmark>/ (inspect_writer.h).
// Runs no device: everything comes from the code in the modules.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_ENGINE_H_
#define KB_WORKBENCH_INSPECT_INSPECT_ENGINE_H_

#include "common/status.h"
#include "workbench/inspect/driver_statistics.h"
#include "workbench/inspect/inspect_benchmarks.h"
#include "workbench/inspect/inspect_report.h"
#include "workbench/inspect/inspect_tools.h"

namespace kb::workbench {

/// One benchmark's variants by target (in the module's order, candidates
/// before the reference) with the why lines; nothing written. With
/// |statistics|, each SPIR-V variant also gets the Vulkan driver's own
/// statistics (or a note saying why not).
BenchmarkInspection
inspectBenchmark(const LoadedBenchmark &benchmark, const InspectTools &tools,
                 DriverStatisticsSource *statistics = nullptr);

/// The whole command: errors are loadBenchmarks's and writeInspection's;
/// on an error nothing under BUILD/inspect/ has changed.
StatusOr<InspectReport> runInspect(const InspectRequest &request);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_ENGINE_H_

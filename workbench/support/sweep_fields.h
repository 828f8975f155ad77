//===- workbench/support/sweep_fields.h - A sweep point as JSON -----------===//
//
// bench::SweepPoint's keys, shared by build.json (`jobs[].declared.sweep`,
// which `bench` reads to know each benchmark's point) and bench.json
// (`benchmarks[].sweep`, which the reports draw against).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_SWEEP_FIELDS_H_
#define KB_WORKBENCH_SUPPORT_SWEEP_FIELDS_H_

#include "runtime/bench/declared.h"
#include "workbench/support/json_fields.h"

namespace kb::workbench {

template <> struct JsonFields<bench::SweepPoint> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(io.field("kernel", p.kernel));
    return io.field("values", p.values);
  }
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_SWEEP_FIELDS_H_

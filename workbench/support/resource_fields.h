//===- workbench/support/resource_fields.h - ptxas figures as JSON --------===//
//
// ResourceUsage's keys, shared by build.json (`jobs[].resources`) and
// bench.json (`variants[].resources`), which record the same figures.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_RESOURCE_FIELDS_H_
#define KB_WORKBENCH_SUPPORT_RESOURCE_FIELDS_H_

#include "common/resource_usage.h"
#include "workbench/support/json_fields.h"

namespace kb::workbench {

template <> struct JsonFields<ResourceUsage> {
  template <typename IO, typename S> static Status map(IO &io, S &r) {
    KB_RETURN_IF_ERROR(io.field("registers", r.registers));
    KB_RETURN_IF_ERROR(io.field("stack_frame_bytes", r.stackFrameBytes));
    KB_RETURN_IF_ERROR(io.field("spill_store_bytes", r.spillStoreBytes));
    KB_RETURN_IF_ERROR(io.field("spill_load_bytes", r.spillLoadBytes));
    KB_RETURN_IF_ERROR(io.field("shared_memory_bytes", r.sharedMemoryBytes));
    KB_RETURN_IF_ERROR(io.field("barriers", r.barriers));
    return io.field("constant_memory_bytes", r.constantMemoryBytes);
  }
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_RESOURCE_FIELDS_H_

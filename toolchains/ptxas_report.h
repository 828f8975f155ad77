//===- toolchains/ptxas_report.h - Read `ptxas -v` resource reports ------===//
//
// `ptxas -v` prints, per entry (CUDA 13.0):
//
//   ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
//   ptxas info    : Function properties for saxpy
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem
//
// The set of fields in the "Used" line varies by architecture and version
// (sm_75 adds `360 bytes cmem[0]`, calls add `cumulative stack size`), so it
// is read token by token; unknown fields are ignored.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_PTXAS_REPORT_H_
#define KB_TOOLCHAINS_PTXAS_REPORT_H_

#include "toolchains/kernel_builder.h"

#include <optional>
#include <string_view>

namespace kb::toolchains {

/// The resource usage ptxas reported for |entry| in |stderrText|; nullopt
/// when the report does not mention that entry.
std::optional<ResourceUsage>
parsePtxasResourceUsage(std::string_view stderrText, std::string_view entry);

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_PTXAS_REPORT_H_

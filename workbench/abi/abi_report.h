//===- workbench/abi/abi_report.h - What `kernel-bench abi` prints --------===//
//
// A built program's executables and their ABIs as text for a terminal and as
// JSON (`--json`), from the same ProgramAbi. The source spellings come from
// abi_source.h, so the text shows exactly the declarations `new-kernel`
// writes.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_ABI_ABI_REPORT_H_
#define KB_WORKBENCH_ABI_ABI_REPORT_H_

#include "workbench/abi/program_abi.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kb::workbench {

/// One line per executable: its exports' signatures, workgroup size and
/// where a handwritten kernel is substituted.
std::string renderExecutableList(const ProgramAbi &program);

/// Every export of |exe|: entry, workgroup size, dynamic shared memory,
/// bindings and constants with their CUDA parameter and push-constant
/// offsets, the CUDA declaration and the GLSL interface.
std::string renderExecutableAbi(const ProgramAbi &program,
                                const ExecutableAbi &exe);

/// {"module", "executables": [executableJson...]}; schema in docs/cli.md.
nlohmann::ordered_json programAbiJson(const ProgramAbi &program);
/// {"module", "executable": executableJson}.
nlohmann::ordered_json executableAbiJson(const ProgramAbi &program,
                                         const ExecutableAbi &exe);

} // namespace kb::workbench

#endif // KB_WORKBENCH_ABI_ABI_REPORT_H_

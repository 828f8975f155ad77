//===- workbench/inspect/inspect_writer.h - BUILD/inspect/<benchmark>/ ----===//
//
// What `inspect` leaves for people to read: per benchmark, each variant's
// code as text (`<target>.<label>.ptx`, `.sass`, `.spvasm`) and each
// candidate's unified diff against the reference (`<target>.<label>.diff`,
// of every listing both have). All benchmarks are staged in hidden
// directories beside their final place and swapped in only once every file
// of every benchmark is written, so an error (a full disk) leaves
// BUILD/inspect/ as it was.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_WRITER_H_
#define KB_WORKBENCH_INSPECT_INSPECT_WRITER_H_

#include "common/status.h"
#include "workbench/inspect/inspect_report.h"
#include "workbench/inspect/inspect_tools.h"

#include <string>

namespace kb::workbench {

/// A file-name part for |name|: letters, digits, `.`, `_` and `-` kept,
/// anything else (a `/`, a space) as `_`; never "", "." or "..".
std::string fileNamePart(const std::string &name);

/// Writes every benchmark of |report| to |report.buildDir|/inspect/ and
/// records in it the directory and files (and notes for a diff that
/// could not be made). An error names the file it could not write.
Status writeInspection(const InspectTools &tools, InspectReport &report);

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_WRITER_H_

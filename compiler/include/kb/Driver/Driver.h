//===- kb/Driver/Driver.h - Run the kb compiler in-process ----------------===//
//
// The compiler as a library for the workbench and kb-compile: parse a
// program, substitute executables (sources, then objects), materialize
// variants, dump sources/binaries, and write the result. Plain standard C++
// types only (kb/Driver/Records.h): no LLVM/MLIR header is reachable from
// here. kb-compile links KBDriver; kernel-bench never does: it opens
// libKBCompiler.so, which wraps these functions in a C interface
// (kb-c/Compiler.h), and an LLVM fatal error inside compile() is a failed
// result, not a process exit.
//
// Pipeline (docs/pipeline.md):
//   parse + verify -> substitute sources -> materialize variants (targets)
//   -> codegen of every generated variant (PTX + cubin, SPIR-V)
//   -> substitute objects (ABI-checked; generated variant kept as reference)
//   -> generate benchmarks (when .kbm output or a benchmark dump is asked)
//   -> write output: MLIR, OUT_DIR/program.kbm + OUT_DIR/bench/<name>.kbm;
//   then the source dump (of the program as parsed), the binaries dump and
//   the benchmark dump.
// On any error nothing is written: no output file, no dump files.
//
//===----------------------------------------------------------------------===//
#ifndef KB_DRIVER_DRIVER_H_
#define KB_DRIVER_DRIVER_H_

#include "kb/Driver/Records.h"

#include <string>

namespace kb::driver {

/// Runs the pipeline. Never throws; errors are in the result.
CompileResult compile(const CompileOptions &options);

/// Writes a program (.mlir) for |kernel|: `kb.executable @<name>` (the
/// reference's body, or |objects| as external variants) and `@main`, which
/// allocates one buffer per binding and dispatches the export once over the
/// workload with the constants. Returns false with |error| (naming the field
/// or file) when the kernel is inconsistent or a file cannot be read.
bool writeStandaloneProgram(const StandaloneKernel &kernel,
                            const std::string &path, std::string &error);

/// Parses `NAME=FILE` (split at the first '='). Returns false and sets
/// |error| when malformed.
bool parseSubstitution(const std::string &text, Substitution &result,
                       std::string &error);

} // namespace kb::driver

#endif // KB_DRIVER_DRIVER_H_

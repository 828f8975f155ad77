//===- kb/Driver/Driver.h - Run the kb compiler in-process ----------------===//
//
// The compiler as a library for the workbench and kb-compile: parse a
// program, substitute executables (sources, then objects), materialize
// variants, dump sources/binaries, and write the result. Plain standard C++
// types only: no LLVM/MLIR header is reachable from here, so code built with
// exceptions and RTTI (workbench/) can include it and link `KBDriver`.
//
// Pipeline (DESIGN.md §4):
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

#include <string>
#include <vector>

namespace kb::driver {

/// One `NAME=FILE` substitution. NAME is an executable symbol, or
/// `executable/variant` to restrict an object to one variant.
struct Substitution {
  std::string executable;
  std::string file;
  /// Who asked for it, for messages and duplicate detection, e.g. the path
  /// of the kernel.toml that substitutes this executable. May be empty
  /// (command-line flags).
  std::string origin;
};

struct CompileOptions {
  /// The program (.mlir or .mlirbc); "-" reads stdin.
  std::string programPath;

  /// `.mlir`/`.mlirbc` files that replace whole executables.
  std::vector<Substitution> sourceSubstitutions;
  /// Directories scanned for `<executable>.mlir` (dump names round-trip).
  std::vector<std::string> sourceDirectories;
  /// `.ptx`/`.cubin` (cuda variants) and `.spv` (vulkan variants).
  std::vector<Substitution> objectSubstitutions;
  /// Directories scanned for `<executable>[_<variant>].ptx|cubin|spv`.
  std::vector<std::string> objectDirectories;
  /// Where relative substitution files are looked for after the working
  /// directory, in order.
  std::vector<std::string> searchPaths;

  /// `cuda:sm_90`, `vulkan:1.2`, ...: one variant per target. Empty keeps
  /// the program's variants.
  std::vector<std::string> targets;

  /// A substitution name that matches no executable is an error.
  bool strict = false;
  /// Print `NOTE:` lines to stderr as substitutions are applied (the same
  /// lines are returned in CompileResult::notes either way).
  bool printNotes = false;

  /// Where to write the resulting MLIR; empty writes nothing, "-" stdout.
  std::string outputPath;
  /// Write bytecode instead of text.
  bool emitBytecode = false;
  /// Dump directories (created when missing); empty = no dump.
  std::string dumpSourcesDir;
  std::string dumpBinariesDir;

  /// Generate PTX/SPIR-V for every variant without objects (kb-codegen).
  /// Needed for .kbm output; off only to inspect the IR before codegen.
  bool codegen = true;
  /// Also compile a cubin per CUDA variant when ptxas is found.
  bool emitCubin = true;
  /// The ptxas to use; empty searches CUDA_PATH/bin, /usr/local/cuda/bin,
  /// PATH.
  std::string ptxasPath;
  /// Writes <outputDir>/program.kbm and <outputDir>/bench/<name>.kbm (one
  /// per benchmark); empty = no .kbm output.
  std::string outputDir;
  /// Writes <dir>/<name>.kbm per benchmark (IREE's
  /// --dump-executable-benchmarks-to); empty = no dump.
  std::string dumpBenchmarksDir;
};

/// One benchmark the compiler generated (kb-generate-benchmarks).
struct BenchmarkRecord {
  /// `<executable>_<export>_<w0>x<w1>x<w2>` (`_2`, ... when the same shape
  /// has distinct constants or buffer sizes).
  std::string name;
  std::string executable;
  std::string exportName;
  std::vector<long long> workload;       // 3 entries
  std::vector<long long> workgroupCount; // 3 entries
  /// Variant names: candidates are the substituted (handwritten) objects,
  /// references the generated variants.
  std::vector<std::string> candidates;
  std::vector<std::string> references;
  /// Dispatch sites ("file:line:col") this benchmark stands for.
  std::vector<std::string> sites;
  /// Relative to CompileOptions::outputDir ("bench/<name>.kbm"); empty
  /// when no outputDir was given.
  std::string file;
};

/// A dispatch that could not be benchmarked, and why.
struct UnbenchmarkedDispatch {
  std::string executable;
  std::string exportName;
  std::string site;
  std::string reason;
};

/// Codegen of one variant.
struct CodegenRecord {
  std::string executable;
  std::string variant;
  std::string target; // "cuda:sm_90"
  double milliseconds = 0;
};

/// One substitution the compiler applied.
struct AppliedSubstitution {
  std::string executable;
  /// The variant replaced ("cuda_sm_90"); empty for a source substitution.
  std::string variant;
  /// "source" or "object".
  std::string kind;
  /// The file as found on disk.
  std::string file;
  /// Object substitution: the generated variant kept as the reference.
  std::string reference;
  /// The origin of the matching Substitution, when one was given.
  std::string origin;
};

struct CompileResult {
  bool ok = false;
  /// Errors and warnings with locations and source lines, as a compiler
  /// prints them (may be non-empty on success: warnings).
  std::string diagnostics;
  /// One `NOTE: ...` line per applied substitution.
  std::vector<std::string> notes;
  std::vector<AppliedSubstitution> substitutions;
  std::vector<CodegenRecord> codegen;
  std::vector<BenchmarkRecord> benchmarks;
  std::vector<UnbenchmarkedDispatch> unbenchmarked;
  /// Every file written under outputDir and dumpBenchmarksDir.
  std::vector<std::string> writtenFiles;
  /// .kbm output: bytes of every module built, and the wall time to build
  /// (serialize and verify) and write them.
  unsigned long long kbmBytes = 0;
  double kbmMilliseconds = 0;
};

/// Runs the pipeline. Never throws; errors are in the result.
CompileResult compile(const CompileOptions &options);

/// The variant name the compiler gives a target: "cuda:sm_90" ->
/// "cuda_sm_90", "vulkan:1.2" -> "vulkan_1_2"; empty when |target| is not a
/// valid target. A kernel built for several targets substitutes each output
/// into its own variant with the key "<executable>/<variant name>" (a plain
/// "<executable>" key replaces every variant of the file's backend).
std::string variantNameForTarget(const std::string &target);

/// Parses `NAME=FILE` (split at the first '='). Returns false and sets
/// |error| when malformed.
bool parseSubstitution(const std::string &text, Substitution &result,
                       std::string &error);

} // namespace kb::driver

#endif // KB_DRIVER_DRIVER_H_

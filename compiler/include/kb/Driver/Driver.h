//===- kb/Driver/Driver.h - Run the kb compiler in-process ----------------===//
//
// The compiler as a library for the workbench and kb-compile: parse a
// program, substitute executables (sources, then objects), materialize
// variants, dump sources/binaries, and write the result. Plain standard C++
// types only: no LLVM/MLIR header is reachable from here, so code built with
// exceptions and RTTI (workbench/) can include it and link `KBDriver`.
//
// Pipeline (DESIGN.md §4; codegen, benchmarks and .kbm serialization come
// with the next compiler stage):
//   parse + verify -> substitute sources -> materialize variants (targets)
//   -> substitute objects (ABI-checked) -> write output; then the source dump
//   (of the program as parsed) and the binaries dump.
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

//===- kb/Driver/Records.h - What the compiler driver takes and returns ---===//
//
// The compiler driver's options and the typed records it returns (applied
// substitutions, codegen, benchmarks, dispatches not benchmarked) and the
// description of a standalone kernel. Targets, element and scalar types,
// accesses and specialization settings are the common/ types every layer
// shares (common/target.h, common/kernel_abi.h, common/specialization.h),
// not text: the only place they become strings is the C interface
// (kb-c/Compiler.h), whose two thin wrappers (compiler/lib/CAPI and
// workbench/build/compiler_library.cpp) convert these structs to C and
// back. Header-only use: kernel-bench includes this header and never links
// the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef KB_DRIVER_RECORDS_H_
#define KB_DRIVER_RECORDS_H_

#include "common/kernel_abi.h"
#include "common/specialization.h"
#include "common/target.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::driver {

/// How an applied substitution replaced code: a whole executable by a
/// source (.mlir/.mlirbc), or one variant by an object (.ptx/.cubin/.spv).
enum class SubstitutionKind { Source, Object };

/// "source" / "object": the spelling of the C interface and build.json.
inline const char *toString(SubstitutionKind kind) {
  return kind == SubstitutionKind::Source ? "source" : "object";
}
inline std::optional<SubstitutionKind>
parseSubstitutionKind(std::string_view text) {
  if (text == "source")
    return SubstitutionKind::Source;
  if (text == "object")
    return SubstitutionKind::Object;
  return std::nullopt;
}

/// One `NAME=FILE` substitution. NAME is an executable symbol, or
/// `executable/variant` to restrict an object to one variant.
struct Substitution {
  std::string executable;
  std::string file;
  /// Who asked for it, for messages and duplicate detection, e.g. the path
  /// of the kernel.toml that substitutes this executable. May be empty
  /// (command-line flags).
  std::string origin;
  /// An object's dynamic shared memory in bytes (its kernel.toml's), stored
  /// on the variants it replaces; -1: the export's (what the generated code
  /// needs).
  long long sharedMemoryBytes = -1;
  /// The object's kernel.toml `subgroup_size` (0 = any) and
  /// `full_subgroups`, stored on the variants it replaces.
  unsigned subgroupSize = 0;
  bool fullSubgroups = false;
  /// Its [specialization], resolved against the object's SPIR-V and stored
  /// on the variants it replaces.
  std::vector<SpecializationSetting> specialization;
  /// The object's own launch shape (its kernel.toml [abi] workgroup_size and
  /// workload_per_workgroup): 3 entries and 1 to 3, stored on the variants
  /// it replaces, whose dispatches then run ceildiv(workload, these)
  /// workgroups of this size. Empty: the export's (the object must match
  /// its workgroup size).
  std::vector<long long> workgroupSize;
  std::vector<long long> workloadPerWorkgroup;
  /// The device model the object was tuned for (the runtime's device name,
  /// as tuned.toml records it): it goes into a variant of its own beside
  /// the one for any device, which the runtime loads on that model only
  /// (kb.device). Empty: it replaces the variant for any device.
  std::string device;
  /// The object's entry name (kernel.toml `entry`) when it differs from the
  /// export's: a CUDA kernel named otherwise than the dispatch. Empty: the
  /// export's name (or its unique mangled C++ form, or a GLSL `main`).
  std::string entry;
  /// A CUDA object's parameters in its own order (kernel.toml [abi]
  /// `parameters`): the ABI slot of each, binding i being i and constant j
  /// bindings + j. Empty: the bindings, then the constants.
  std::vector<uint32_t> parameterOrder;
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

  /// One variant per target. Empty keeps the program's variants.
  std::vector<Target> targets;

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

/// Codegen of one variant (kb-codegen fills it; kb/Codegen/Codegen.h).
struct CodegenRecord {
  std::string executable;
  std::string variant;
  Target target;
  /// In-process codegen (NVVM/NVPTX or SPIR-V), wall time.
  double milliseconds = 0;
  /// The ptxas run that made the cubin (runs in parallel with others); 0
  /// when there was none.
  double ptxasMilliseconds = 0;
};

/// One substitution the compiler applied.
struct AppliedSubstitution {
  std::string executable;
  /// The variant replaced ("cuda_sm_90"); empty for a source substitution.
  std::string variant;
  SubstitutionKind kind = SubstitutionKind::Object;
  /// The file as found on disk.
  std::string file;
  /// Object substitution: the generated variant kept as the reference.
  std::string reference;
  /// The origin of the matching Substitution, when one was given.
  std::string origin;
  /// Object substitution tuned for a device model: its own variant, chosen
  /// at run time on that model only; empty: for any device.
  std::string device;
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

/// A kernel.toml that substitutes nothing: the workbench
/// synthesizes a one-dispatch program for it with writeStandaloneProgram and
/// compiles that like any program.
struct StandaloneBinding {
  std::string name; // optional
  ElementType elementType = ElementType::F32;
  Access access = Access::ReadWrite;
  unsigned long long elementCount = 0;
  /// How its inputs are drawn ([bench] init): "" = the default (a seeded
  /// uniform draw by element type), "uniform" [initLow, initHigh), "normal"
  /// (initMean, initStddev) or "range" (element i = initStart + i *
  /// initStep; a constant fill has step 0). Set on its kb.alloc as kb.init.
  std::string initDistribution;
  double initLow = 0, initHigh = 1, initMean = 0, initStddev = 1, initStart = 0,
         initStep = 0;
  /// Each element is a struct (kernel.toml `type = "struct"`; the C API
  /// spells it "struct"): its layout is read from the kernel's SPIR-V,
  /// |elementCount| counts structs and the buffer holds count x stride
  /// bytes (|elementType| U8).
  bool isStruct = false;
};
struct StandaloneConstant {
  std::string name; // optional
  ScalarType type = ScalarType::I32;
  /// As kernel.toml writes it: a decimal integer or floating-point literal,
  /// checked against |type| when the program is synthesized.
  std::string value;
};
/// An object for one target when there is no reference: it becomes the
/// external variant of that target directly (nothing is generated).
struct StandaloneObject {
  Target target;
  std::string file; // .ptx, .cubin or .spv
  /// Entry name inside the object when it is not the export's ("main" for
  /// GLSL); empty = the export name.
  std::string entry;
  /// As in Substitution: what the object assumes of its pipeline.
  unsigned subgroupSize = 0;
  bool fullSubgroups = false;
  std::vector<SpecializationSetting> specialization;
  /// The reference the candidate is checked against (a handwritten twin
  /// built like the kernel), not the candidate itself.
  bool reference = false;
  /// As in Substitution.
  std::vector<uint32_t> parameterOrder;
};
struct StandaloneKernel {
  std::string name;  // the executable (kernel) name
  std::string entry; // the export name (CUDA extern "C" name)
  std::vector<StandaloneBinding> bindings;
  std::vector<StandaloneConstant> constants;
  std::vector<long long> workgroupSize; // 3 entries
  std::vector<long long> workload;      // 1 to 3 entries
  /// Optional; default: the workgroup size (docs/kernel-abi.md).
  std::vector<long long> workloadPerWorkgroup;
  long long sharedMemoryBytes = 0;
  /// Optional .mlir/.mlirbc holding a kb.executable whose export @entry has
  /// the same layout: its body is the reference the kernel is checked and
  /// timed against (substitute the kernel's objects as usual). Without one,
  /// |objects| are the executable's only variants.
  std::string referenceExecutable;
  std::vector<StandaloneObject> objects;
};

} // namespace kb::driver

#endif // KB_DRIVER_RECORDS_H_

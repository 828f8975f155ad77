//===- workbench/build/program_record.h - What the program step did, ------===//
//
// The program step's record: what was compiled, the compiler's typed records
// (kb/Driver/Records.h: substitutions, benchmarks, undispatched, codegen),
// and one entry per standalone kernel. The build command fills it, its
// summary line reads it, the no-op stamp keeps it, and only
// build_report.cpp renders it (build.json "program") or reads it back (the
// stamp).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_PROGRAM_RECORD_H_
#define KB_WORKBENCH_BUILD_PROGRAM_RECORD_H_

#include "kb/Driver/Records.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

enum class StepStatus { Ok, Failed, Skipped };

/// One applied substitution, with the kernel that asked for it.
struct SubstitutionEntry {
  std::string executable;
  std::string variant; // "" for a source substitution
  driver::SubstitutionKind kind = driver::SubstitutionKind::Object;
  /// The substituting kernel and its kernel.toml; nullopt for flags.
  std::optional<std::string> kernel;
  std::optional<std::string> manifest;
  /// Relative to the output directory when below it.
  std::string file;
  std::string reference;
  /// The device model the object was tuned for (its own variant, chosen at
  /// run time on that model); nullopt: it serves any device.
  std::optional<std::string> device;
  /// The object's own launch (driver::Substitution::workgroupSize and
  /// workloadPerWorkgroup); empty: the export's.
  std::vector<long long> workgroupSize;
  std::vector<long long> workloadPerWorkgroup;
  /// A SPIR-V object that takes its constants in a uniform block (read
  /// from the object); nullopt: push constants, as the export's kernel.
  std::optional<UniformConstants> uniformConstants;
};

/// What one compile was asked and what it produced.
struct CompiledModule {
  std::vector<Target> targets;
  std::string diagnostics;
  /// Set once the compile succeeded.
  bool ok = false;
  /// "program.kbm", "standalone/<kernel>/program.kbm".
  std::string module;
  std::vector<SubstitutionEntry> substitutions;
  /// Files relative to the output directory.
  std::vector<driver::BenchmarkRecord> benchmarks;
  std::vector<driver::UnbenchmarkedDispatch> unbenchmarked;
  std::vector<driver::CodegenRecord> codegen;
};

/// A standalone kernel's C/C++ reference as the build compiled it
/// (toolchains/host_reference.h).
struct HostReferenceRecord {
  std::string source;   // as the kernel.toml names it
  std::string function; // what the shared object calls
  std::string file;     // relative to the output directory
  std::string sha256;
  uint64_t bytes = 0;
  std::string cache; // "hit" | "miss" | "disabled"
  double seconds = 0;
  std::string command; // the compile, as a shell would write it
};

/// A binding of struct elements as the kernel's SPIR-V lays it out.
struct StructBindingRecord {
  uint32_t binding = 0;
  std::string name; // the [abi] binding's
  StructLayout layout;
};

/// The one-dispatch program of a standalone kernel (`[bench]`).
struct StandaloneRecord {
  std::string kernel;
  std::string manifest;
  StepStatus status = StepStatus::Failed;
  std::string reason; // skipped: why
  std::string error;  // failed before the compiler ran
  /// "standalone/<kernel>/program.mlir" once synthesized.
  std::optional<std::string> program;
  /// Set once the compiler ran.
  std::optional<CompiledModule> compiled;
  /// Its host reference, once built.
  std::optional<HostReferenceRecord> hostReference;
  /// Its struct bindings (build.json "struct_bindings"), read from its
  /// SPIR-V object once synthesized; empty without any.
  std::vector<StructBindingRecord> structBindings;
};

struct ProgramRecord {
  /// The project's program; nullopt when it has only standalone kernels.
  std::optional<std::string> path;
  StepStatus status = StepStatus::Failed;
  std::string reason; // skipped: why
  std::string error;  // failed before the compiler ran
  /// The project's program compile; set once the compiler ran.
  std::optional<CompiledModule> compiled;
  std::vector<StandaloneRecord> standalone;
  /// Set when the step finished: whether it reused the previous outputs.
  std::optional<bool> cached;

  /// Benchmarks and substitutions of every module compiled; the variants
  /// tuned for a device model are counted apart from the substitutions.
  size_t benchmarkCount() const;
  size_t substitutionCount() const;
  size_t tunedVariantCount() const;
};

/// The no-op stamp: the key of everything the step read, the sha256 of
/// every file it wrote (relative to the output directory) and its record.
struct ProgramStamp {
  std::string key;
  std::map<std::string, std::string> outputs;
  ProgramRecord record;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_PROGRAM_RECORD_H_

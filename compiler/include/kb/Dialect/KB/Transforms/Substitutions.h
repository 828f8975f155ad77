//===- Substitutions.h - File names and records of substitutions ----------===//
//
// The conventions the substitution and dump passes share (so that dump
// directories feed straight back into directory scans) and the record of
// applied substitutions that the pass leaves on the module for drivers.
//
//===----------------------------------------------------------------------===//
#ifndef KB_DIALECT_KB_TRANSFORMS_SUBSTITUTIONS_H_
#define KB_DIALECT_KB_TRANSFORMS_SUBSTITUTIONS_H_

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::kb {

/// Module attribute: array of {executable, variant, kind, file, reference}
/// dictionaries, one per applied substitution, in the order applied.
inline constexpr llvm::StringLiteral kSubstitutionsAttrName =
    "kb.substitutions";

/// `<executable>.mlir`: what kb-dump-executable-sources writes.
std::string getSourceDumpFileName(llvm::StringRef executable);
/// `<executable>_<variant>.<format>`: what kb-dump-executable-binaries writes.
std::string getBinaryDumpFileName(llvm::StringRef executable,
                                  llvm::StringRef variant,
                                  llvm::StringRef format);

struct SubstitutionRecord {
  std::string executable;
  std::string variant;   // empty for a source substitution (whole executable)
  std::string kind;      // "source" or "object"
  std::string file;      // the file as found on disk
  std::string reference; // object: the generated variant kept as reference
  std::string device;    // object tuned for this device model; empty: any
};

/// Reads the records of |module|'s kSubstitutionsAttrName (empty if none).
std::vector<SubstitutionRecord> readSubstitutionRecords(ModuleOp module);

/// The `NOTE: ...` line announcing |record| (no trailing newline).
std::string formatSubstitutionNote(const SubstitutionRecord &record);

} // namespace mlir::kb

#endif // KB_DIALECT_KB_TRANSFORMS_SUBSTITUTIONS_H_

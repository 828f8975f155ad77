//===- SubstitutionMatcher.h - What a substitution request names ---------===//
//
// Shared by source and object substitution (SubstituteExecutables.cpp):
// requests from NAME=FILE entries and scanned directories, their `launch`
// settings, the file they name (searched in the documented order) and the
// executable or variant their key resolves to. The object ABI check is
// ObjectAbiCheck.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KB_DIALECT_KB_TRANSFORMS_SUBSTITUTIONMATCHER_H_
#define KB_DIALECT_KB_TRANSFORMS_SUBSTITUTIONMATCHER_H_

#include "kb/Dialect/KB/IR/KBOps.h"

#include "common/kernel_abi.h"
#include "common/specialization.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::kb::substitution {

enum class FileKind { Source, CudaObject, VulkanObject };

/// One requested substitution, before its name is resolved.
struct Request {
  std::string key;    // executable, executable/variant, or a file stem
  std::string file;   // as written, or the full path of a scanned file
  std::string origin; // for messages: "substitution 'k=f'" / "directory 'd'"
  FileKind kind;
  bool fromScan;
  /// `launch` of an explicit object substitution: the dynamic shared memory
  /// the object needs (set on its variants as kb.shared_memory); unset: the
  /// export's.
  std::optional<int64_t> sharedMemoryBytes = std::nullopt;
  /// `launch`: the subgroup size the object requires, full subgroups and
  /// its [specialization] settings (resolved against the object's SPIR-V).
  uint32_t subgroupSize = 0;
  bool fullSubgroups = false;
  std::vector<::kb::SpecializationSetting> specialization = {};
  /// `launch`: the workgroup size and workload per workgroup the object runs
  /// with in place of the export's (kb.workgroup_size,
  /// kb.workload_per_workgroup on its variants); empty: the export's.
  SmallVector<int64_t, 3> workgroupSize = {};
  SmallVector<int64_t, 3> workloadPerWorkgroup = {};
  /// `launch`'s `device=MODEL` (last; it takes the rest of the entry): the
  /// object was tuned for that device model and goes into a variant of its
  /// own beside the one for any device (kb.device); empty: it replaces the
  /// variant for any device.
  std::string device = {};
  /// `launch`'s `entry=NAME`: the object's entry for the executable's one
  /// export when its name differs; empty: the export's.
  std::string entry = {};
  /// `launch`'s `parameter_order=S0.S1...`: a CUDA object's parameters in its
  /// own order, each the ABI slot it holds (bindings, then constants);
  /// empty: the bindings, then the constants.
  std::vector<uint32_t> parameterOrder = {};
};

struct ResolvedKey {
  ExecutableOp executable;
  VariantOp variant; // null: every variant of the file's backend
};

/// The kind of |path| by extension (case-insensitive); nullopt if unknown.
std::optional<FileKind> classifyFile(StringRef path);

/// Checks that |dir| exists and is a directory.
LogicalResult checkDirectory(ModuleOp module, StringRef dir, StringRef what);

/// Adds one request per file of |dir| whose extension stage |stage| (source,
/// object, any) takes, in file-name order.
LogicalResult scanDirectory(ModuleOp module, StringRef dir, StringRef stage,
                            std::vector<Request> &requests);

/// Parses one `NAME=FILE` entry with its origin and `launch` settings.
LogicalResult parseExplicit(ModuleOp module, StringRef text, StringRef origin,
                            StringRef launch, StringRef stage,
                            std::vector<Request> &requests);

/// The file of |request|: as given, then in each of |searchPaths|; the error
/// lists every path tried.
FailureOr<std::string> resolveFile(ModuleOp module, const Request &request,
                                   ArrayRef<std::string> searchPaths);

/// "a, b, c" (at most 8 names, then a count) for "executables are" lists.
std::string listExecutables(ModuleOp module);

VariantOp lookupVariant(ExecutableOp executable, StringRef name);

/// Resolves a request's key: `exe`, `exe/variant`, a `module_`-prefixed
/// stem, or (objects) an `<exe>_<variant>` stem. Failure on a hard error; an
/// unmatched name leaves |result.executable| null.
LogicalResult resolveKey(ModuleOp module, SymbolTable &symbols,
                         const Request &request, ResolvedKey &result);

/// Checks |bytes| (of format |format|: ptx, cubin, spv) against every export
/// of |executable| for the variants |targets| (ObjectAbiCheck.cpp).
LogicalResult checkObject(ExecutableOp executable, ArrayRef<VariantOp> targets,
                          StringRef format, StringRef bytes, StringRef path,
                          const Request &request, ::kb::KernelAbi &pipeline,
                          NamedAttrList &entryPoints);

} // namespace mlir::kb::substitution

#endif // KB_DIALECT_KB_TRANSFORMS_SUBSTITUTIONMATCHER_H_

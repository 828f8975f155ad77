//===- SubstitutionMatcher.cpp - What a substitution request names -------===//
#include "SubstitutionMatcher.h"

#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Substitutions.h"
#include "common/abi_check.h"
#include "common/ptx_reader.h"
#include "common/specialization.h"
#include "common/spirv_reader.h"
#include "common/target.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb::substitution {
/// The kind of |path| by extension (case-insensitive); nullopt if unknown.
std::optional<FileKind> classifyFile(StringRef path) {
  StringRef ext = llvm::sys::path::extension(path);
  if (ext.equals_insensitive(".mlir") || ext.equals_insensitive(".mlirbc"))
    return FileKind::Source;
  if (ext.equals_insensitive(".ptx") || ext.equals_insensitive(".cubin"))
    return FileKind::CudaObject;
  if (ext.equals_insensitive(".spv"))
    return FileKind::VulkanObject;
  return std::nullopt;
}

static bool acceptsKind(StringRef stage, FileKind kind) {
  if (stage == "source")
    return kind == FileKind::Source;
  if (stage == "object")
    return kind != FileKind::Source;
  return true;
}

/// Checks that |dir| exists and is a directory.
LogicalResult checkDirectory(ModuleOp module, StringRef dir, StringRef what) {
  if (!llvm::sys::fs::exists(dir))
    return module.emitError() << "kb-substitute-executables: " << what << " '"
                              << dir << "' does not exist";
  if (!llvm::sys::fs::is_directory(dir))
    return module.emitError() << "kb-substitute-executables: " << what << " '"
                              << dir << "' is not a directory";
  return success();
}

/// Adds one request per file of |dir| whose extension this stage takes, in
/// file-name order. Subdirectories and other files are skipped.
LogicalResult scanDirectory(ModuleOp module, StringRef dir, StringRef stage,
                            std::vector<Request> &requests) {
  if (failed(checkDirectory(module, dir, "substitution directory")))
    return failure();
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (it->type() == llvm::sys::fs::file_type::directory_file)
      continue;
    files.push_back(it->path());
  }
  if (ec)
    return module.emitError() << "kb-substitute-executables: cannot list "
                              << "directory '" << dir << "': " << ec.message();
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    std::optional<FileKind> kind = classifyFile(file);
    if (!kind || !acceptsKind(stage, *kind))
      continue;
    requests.push_back({llvm::sys::path::stem(file).str(), file,
                        ("directory '" + dir + "'").str(), *kind, true});
  }
  return success();
}

/// Parses one `NAME=FILE` entry into a request.
/// `XxYxZ` (|min| to |max| positive integers; `x`, since the pass's list
/// options split at commas) into |dims|; false when malformed.
static bool parseDims(StringRef text, size_t min, size_t max,
                      SmallVector<int64_t, 3> &dims) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  if (parts.size() < min || parts.size() > max)
    return false;
  dims.clear();
  for (StringRef part : parts) {
    int64_t v = 0;
    if (part.getAsInteger(10, v) || v < 1 ||
        v > std::numeric_limits<uint32_t>::max())
      return false;
    dims.push_back(v);
  }
  return true;
}

/// One `launch` item: `shared_memory=BYTES`, `subgroup_size=N`,
/// `full_subgroups`, `spec=KEY=VALUE`, `entry=NAME`,
/// `parameter_order=S0.S1...`, `workgroup_size=XxYxZ` or
/// `workload_per_workgroup=X[xY[xZ]]`; false when malformed.
static bool parseLaunchItem(StringRef item, Request &request) {
  auto [key, value] = item.split('=');
  int64_t number = 0;
  if (key == "workgroup_size") {
    auto &size = request.workgroupSize;
    // The export's bounds (kb.export's verifier).
    return parseDims(value, 3, 3, size) && size[0] <= 1024 && size[1] <= 1024 &&
           size[2] <= 64 && size[0] * size[1] * size[2] <= 1024;
  }
  if (key == "workload_per_workgroup")
    return parseDims(value, 1, 3, request.workloadPerWorkgroup);
  if (key == "shared_memory") {
    if (value.getAsInteger(10, number) || number < 0 ||
        number > std::numeric_limits<uint32_t>::max())
      return false;
    request.sharedMemoryBytes = number;
    return true;
  }
  if (key == "subgroup_size") {
    if (value.getAsInteger(10, number) || number < 1 || number > 128 ||
        (number & (number - 1)))
      return false;
    request.subgroupSize = static_cast<uint32_t>(number);
    return true;
  }
  if (key == "entry") {
    request.entry = value.str();
    return !value.empty();
  }
  if (key == "parameter_order") {
    SmallVector<StringRef> slots;
    value.split(slots, '.');
    for (StringRef slot : slots) {
      uint32_t index = 0;
      if (slot.getAsInteger(10, index))
        return false;
      request.parameterOrder.push_back(index);
    }
    return true;
  }
  if (item == "full_subgroups") {
    request.fullSubgroups = true;
    return true;
  }
  if (key == "spec") {
    auto setting = ::kb::parseSpecializationSetting(
        std::string_view(value.data(), value.size()));
    if (!setting)
      return false;
    request.specialization.push_back(std::move(*setting));
    return true;
  }
  return false;
}

/// A `launch` entry: empty, or `;`-separated items (parseLaunchItem), the
/// last of which may be `device=MODEL`, which takes the rest of the entry
/// (a device name may hold any character).
static LogicalResult parseLaunch(ModuleOp module, StringRef text,
                                 StringRef substitution, Request &request) {
  if (text.empty())
    return success();
  size_t device = text.startswith("device=") ? 0 : text.find(";device=");
  if (device != StringRef::npos) {
    StringRef model = text.substr(device).drop_front(device ? 8 : 7);
    if (model.empty())
      return module.emitError()
             << "kb-substitute-executables: launch setting 'device=' of "
                "substitution '"
             << substitution << "' names no device model";
    request.device = model.str();
    text = text.take_front(device);
  }
  SmallVector<StringRef> items;
  text.split(items, ';', -1, /*KeepEmpty=*/false);
  for (StringRef item : items)
    if (!parseLaunchItem(item, request))
      return module.emitError()
             << "kb-substitute-executables: launch setting '" << item
             << "' of substitution '" << substitution
             << "': expected shared_memory=BYTES (0 to 4294967295), "
                "subgroup_size=N (a power of two, 1 to 128), full_subgroups, "
                "spec=KEY=VALUE, entry=NAME, parameter_order=S0.S1... (ABI "
                "slots), workgroup_size=XxYxZ (X, Y <= 1024, Z <= 64, X*Y*Z "
                "<= 1024) or workload_per_workgroup=X[xY[xZ]] (positive), "
                "separated by ';', then optionally device=MODEL";
  if (request.kind == FileKind::Source)
    return module.emitError()
           << "kb-substitute-executables: launch settings '" << text
           << "' of substitution '" << substitution
           << "': only an object (.ptx, .cubin, .spv) has launch settings; a "
              "source executable declares shared_memory on its kb.export";
  return success();
}

LogicalResult parseExplicit(ModuleOp module, StringRef text, StringRef origin,
                            StringRef launch, StringRef stage,
                            std::vector<Request> &requests) {
  auto [key, file] = text.split('=');
  if (!text.contains('=') || key.empty() || file.empty())
    return module.emitError()
           << "kb-substitute-executables: malformed substitution '" << text
           << "'; expected NAME=FILE (e.g. saxpy=kernels/saxpy.ptx), where "
              "NAME is an executable or executable/variant";
  std::optional<FileKind> kind = classifyFile(file);
  if (!kind)
    return module.emitError()
           << "kb-substitute-executables: substitution '" << text
           << "' names a file of unknown type; expected .mlir or .mlirbc "
              "(source) or .ptx, .cubin or .spv (object)";
  if (!acceptsKind(stage, *kind))
    return module.emitError()
           << "kb-substitute-executables: substitution '" << text << "' is "
           << (*kind == FileKind::Source ? "a source" : "an object")
           << " file but this stage takes "
           << (stage == "source" ? "sources (.mlir, .mlirbc); use "
                                   "--substitute-executable-object"
                                 : "objects (.ptx, .cubin, .spv); use "
                                   "--substitute-executable-source");
  std::string described = ("substitution '" + text + "'").str();
  if (!origin.empty())
    described += (" from " + origin).str();
  requests.push_back({key.str(), file.str(), described, *kind, false});
  return parseLaunch(module, launch, text, requests.back());
}

/// Resolves |file| in the documented order: as given (absolute, or relative
/// to the working directory), then each search path. The error lists every
/// path tried.
FailureOr<std::string> resolveFile(ModuleOp module, const Request &request,
                                   ArrayRef<std::string> searchPaths) {
  std::vector<std::string> tried = {request.file};
  if (llvm::sys::fs::exists(request.file) &&
      !llvm::sys::fs::is_directory(request.file))
    return request.file;
  if (!llvm::sys::path::is_absolute(request.file)) {
    for (const std::string &dir : searchPaths) {
      llvm::SmallString<256> candidate(dir);
      llvm::sys::path::append(candidate, request.file);
      tried.push_back(candidate.str().str());
      if (llvm::sys::fs::exists(candidate) &&
          !llvm::sys::fs::is_directory(candidate))
        return candidate.str().str();
    }
  }
  InFlightDiagnostic diag = module.emitError();
  diag << "kb-substitute-executables: file '" << request.file << "' of "
       << request.origin << " not found; tried:";
  for (const std::string &path : tried)
    diag << "\n  " << path;
  diag << "\nadd its directory with --executable-object-search-path=DIR "
          "(pass option search-paths)";
  return failure();
}

/// "a, b, c" (at most 8 names, then a count) for "executables are" lists.
std::string listExecutables(ModuleOp module) {
  std::string text;
  int count = 0;
  for (ExecutableOp executable : module.getOps<ExecutableOp>()) {
    if (count++ < 8)
      text += (text.empty() ? "@" : ", @") + executable.getSymName().str();
  }
  if (count > 8)
    text += ", ... (" + std::to_string(count) + " in all)";
  return text.empty() ? "none" : text;
}

/// Looks |name| up as an executable. A symbol that is something else is an
/// error (|failed| is set).
static ExecutableOp lookupExecutable(SymbolTable &symbols, StringRef name,
                                     const Request &request, bool &failed) {
  Operation *op = symbols.lookup(name);
  if (!op)
    return {};
  auto executable = dyn_cast<ExecutableOp>(op);
  if (!executable) {
    op->emitError() << "symbol @" << name << " named by " << request.origin
                    << " is a '" << op->getName().getStringRef()
                    << "', not a kb.executable";
    failed = true;
  }
  return executable;
}

VariantOp lookupVariant(ExecutableOp executable, StringRef name) {
  return dyn_cast_or_null<VariantOp>(
      SymbolTable::lookupSymbolIn(executable, name));
}

/// Resolves a request's key: `exe`, `exe/variant`, a `module_`-prefixed
/// stem, or (objects) an `<exe>_<variant>` stem. Returns failure on a hard
/// error; an unmatched name leaves |result.executable| null.
LogicalResult resolveKey(ModuleOp module, SymbolTable &symbols,
                         const Request &request, ResolvedKey &result) {
  bool failedLookup = false;
  StringRef key = request.key;
  if (key.contains('/')) {
    auto [exeName, variantName] = key.split('/');
    result.executable =
        lookupExecutable(symbols, exeName, request, failedLookup);
    if (failedLookup)
      return failure();
    if (!result.executable)
      return success();
    if (request.kind == FileKind::Source)
      return module.emitError()
             << "kb-substitute-executables: " << request.origin
             << " names a variant, but an MLIR source replaces the whole "
                "executable; use NAME=FILE with the executable name";
    result.variant = lookupVariant(result.executable, variantName);
    if (!result.variant) {
      std::string names;
      for (VariantOp v : result.executable.getVariantOps())
        names += (names.empty() ? "@" : ", @") + v.getSymName().str();
      return result.executable.emitError()
             << "kb.executable @" << exeName << " has no variant @"
             << variantName << " (named by " << request.origin
             << "); its variants are: " << (names.empty() ? "none" : names);
    }
    return success();
  }

  SmallVector<StringRef, 3> candidates = {key};
  std::string moduleName = module.getSymName().value_or("module").str();
  if (key.starts_with(moduleName + "_"))
    candidates.push_back(key.drop_front(moduleName.size() + 1));
  if (moduleName != "module" && key.starts_with("module_"))
    candidates.push_back(key.drop_front(strlen("module_")));
  for (StringRef name : candidates) {
    result.executable = lookupExecutable(symbols, name, request, failedLookup);
    if (failedLookup)
      return failure();
    if (result.executable)
      return success();
  }
  if (request.kind == FileKind::Source)
    return success();
  // `<exe>_<variant>`: try every `_` as the split point.
  for (StringRef name : candidates) {
    for (size_t pos = name.find('_'); pos != StringRef::npos;
         pos = name.find('_', pos + 1)) {
      auto executable =
          dyn_cast_or_null<ExecutableOp>(symbols.lookup(name.take_front(pos)));
      if (!executable)
        continue;
      if (VariantOp variant =
              lookupVariant(executable, name.drop_front(pos + 1))) {
        result.executable = executable;
        result.variant = variant;
        return success();
      }
    }
  }
  return success();
}

} // namespace mlir::kb::substitution

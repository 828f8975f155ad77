//===- SubstituteExecutables.cpp - Replace executables with files ---------===//
//
// Source substitution replaces a whole kb.executable with one parsed from an
// .mlir/.mlirbc file; object substitution makes the variants of one backend
// external with a PTX/cubin/SPIR-V file's bytes, after checking the object
// against every export's ABI with the readers of common/. See Passes.td.
//
//===----------------------------------------------------------------------===//
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

namespace mlir::kb {
#define GEN_PASS_DEF_SUBSTITUTEEXECUTABLESPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

namespace {

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
  std::vector<::kb::SpecializationSetting> specialization;
};

/// A resolved object substitution: one variant of one executable.
struct ObjectTarget {
  ExecutableOp executable;
  VariantOp variant;
};

} // namespace

/// The kind of |path| by extension (case-insensitive); nullopt if unknown.
static std::optional<FileKind> classifyFile(StringRef path) {
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
static LogicalResult checkDirectory(ModuleOp module, StringRef dir,
                                    StringRef what) {
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
static LogicalResult scanDirectory(ModuleOp module, StringRef dir,
                                   StringRef stage,
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
/// One `launch` item: `shared_memory=BYTES`, `subgroup_size=N`,
/// `full_subgroups` or `spec=KEY=VALUE`; false when malformed.
static bool parseLaunchItem(StringRef item, Request &request) {
  auto [key, value] = item.split('=');
  int64_t number = 0;
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

/// A `launch` entry: empty, or `;`-separated items (parseLaunchItem).
static LogicalResult parseLaunch(ModuleOp module, StringRef text,
                                 StringRef substitution, Request &request) {
  if (text.empty())
    return success();
  SmallVector<StringRef> items;
  text.split(items, ';', -1, /*KeepEmpty=*/false);
  for (StringRef item : items)
    if (!parseLaunchItem(item, request))
      return module.emitError()
             << "kb-substitute-executables: launch setting '" << item
             << "' of substitution '" << substitution
             << "': expected shared_memory=BYTES (0 to 4294967295), "
                "subgroup_size=N (a power of two, 1 to 128), full_subgroups "
                "or spec=KEY=VALUE, separated by ';'";
  if (request.kind == FileKind::Source)
    return module.emitError()
           << "kb-substitute-executables: launch settings '" << text
           << "' of substitution '" << substitution
           << "': only an object (.ptx, .cubin, .spv) has launch settings; a "
              "source executable declares shared_memory on its kb.export";
  return success();
}

static LogicalResult parseExplicit(ModuleOp module, StringRef text,
                                   StringRef origin, StringRef launch,
                                   StringRef stage,
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
static FailureOr<std::string> resolveFile(ModuleOp module,
                                          const Request &request,
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
static std::string listExecutables(ModuleOp module) {
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

namespace {
struct ResolvedKey {
  ExecutableOp executable;
  VariantOp variant; // null: every variant of the file's backend
};
} // namespace

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

static VariantOp lookupVariant(ExecutableOp executable, StringRef name) {
  return dyn_cast_or_null<VariantOp>(
      SymbolTable::lookupSymbolIn(executable, name));
}

/// Resolves a request's key: `exe`, `exe/variant`, a `module_`-prefixed
/// stem, or (objects) an `<exe>_<variant>` stem. Returns failure on a hard
/// error; an unmatched name leaves |result.executable| null.
static LogicalResult resolveKey(ModuleOp module, SymbolTable &symbols,
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

//===----------------------------------------------------------------------===//
// Source substitution
//===----------------------------------------------------------------------===//

/// Replaces |executable| with the executable of the same name in |path|.
static FailureOr<ExecutableOp> substituteSource(ExecutableOp executable,
                                                StringRef path,
                                                SymbolTable &symbols) {
  MLIRContext *context = executable.getContext();
  std::string error;
  auto buffer = mlir::openInputFile(path, &error);
  if (!buffer)
    return executable.emitError()
           << "cannot read substitution source '" << path << "': " << error;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  Block block;
  ParserConfig config(context);
  if (failed(parseSourceFile(sourceMgr, &block, config)))
    return executable.emitError()
           << "cannot parse substitution source '" << path
           << "' for kb.executable @" << executable.getSymName()
           << " (see the errors above)";

  StringRef name = executable.getSymName();
  ExecutableOp replacement;
  std::string found;
  for (Operation &op : block) {
    if (auto candidate = dyn_cast<ExecutableOp>(op)) {
      found += (found.empty() ? "@" : ", @") + candidate.getSymName().str();
      if (candidate.getSymName() == name)
        replacement = candidate;
    } else if (auto module = dyn_cast<ModuleOp>(op)) {
      for (ExecutableOp candidate : module.getOps<ExecutableOp>()) {
        found += (found.empty() ? "@" : ", @") + candidate.getSymName().str();
        if (candidate.getSymName() == name)
          replacement = candidate;
      }
    }
  }
  if (!replacement)
    return executable.emitError()
           << "substitution source '" << path
           << "' does not contain kb.executable @" << name
           << " (it contains: " << (found.empty() ? "no executable" : found)
           << ")";

  OpBuilder builder(executable);
  auto clone = cast<ExecutableOp>(builder.clone(*replacement));
  symbols.remove(executable);
  executable.erase();
  symbols.insert(clone);
  return clone;
}

//===----------------------------------------------------------------------===//
// Object substitution
//===----------------------------------------------------------------------===//

/// Checks |bytes| (of format |format|) against every export of |executable|
/// for the variants |targets|, and fills |entryPoints| with the export ->
/// entry names that differ. Errors are emitted at the export (ABI) or the
/// variant (architecture).
static LogicalResult checkObject(ExecutableOp executable,
                                 ArrayRef<VariantOp> targets, StringRef format,
                                 StringRef bytes, StringRef path,
                                 const Request &request,
                                 ::kb::KernelAbi &pipeline,
                                 NamedAttrList &entryPoints) {
  MLIRContext *context = executable.getContext();
  bool ok = true;
  auto reportMismatches =
      [&](ExportOp exportOp, const std::vector<::kb::AbiMismatch> &mismatches) {
        if (mismatches.empty())
          return;
        exportOp.emitError()
            << "object '" << path << "' does not match the ABI of export @"
            << exportOp.getSymName() << " of kb.executable @"
            << executable.getSymName() << ":\n"
            << ::kb::formatMismatches(mismatches);
        ok = false;
      };

  pipeline.subgroupSize = request.subgroupSize;
  pipeline.fullSubgroups = request.fullSubgroups;
  if (format != "spv" && request.subgroupSize && request.subgroupSize != 32)
    return executable.emitError()
           << "object '" << path << "' requires subgroup size "
           << request.subgroupSize << ", but CUDA warps are 32 wide";
  if (format != "spv" && !request.specialization.empty())
    return executable.emitError()
           << "object '" << path
           << "' has specialization constants, which are SPIR-V only";

  if (format == "ptx") {
    auto ptx = ::kb::readPtx(std::string_view(bytes.data(), bytes.size()));
    if (!ptx.ok())
      return executable.emitError()
             << "cannot read PTX '" << path << "': " << ptx.status().message();
    for (ExportOp exportOp : executable.getExportOps()) {
      // The export's entry, or the unique mangled C++ name of a function
      // so named; a missing one is reported by checkPtxAbi below.
      StringRef exportName = exportOp.getSymName();
      const ::kb::PtxEntry *resolved = ::kb::resolvePtxEntry(
          *ptx, std::string_view(exportName.data(), exportName.size()));
      std::string entry = resolved ? resolved->name : exportName.str();
      if (entry != exportOp.getSymName())
        entryPoints.set(exportOp.getSymName(), StringAttr::get(context, entry));
      reportMismatches(exportOp,
                       ::kb::checkPtxAbi(*ptx, getKernelAbi(exportOp, entry)));
    }
    std::optional<::kb::SmArch> ptxSm = ::kb::parseSmArch(ptx->target);
    for (VariantOp variant : targets) {
      if (ptxSm && ptxSm->number > getTarget(variant)->smNumber()) {
        variant.emitError() << "PTX '" << path << "' targets " << ptx->target
                            << ", newer than variant @" << variant.getSymName()
                            << " (" << variant.getArch() << "); build it for "
                            << variant.getArch() << " or older";
        ok = false;
      }
    }
    return success(ok);
  }

  if (format == "spv") {
    auto spirv =
        ::kb::readSpirvBytes(std::string_view(bytes.data(), bytes.size()));
    if (!spirv.ok())
      return executable.emitError() << "cannot read SPIR-V '" << path
                                    << "': " << spirv.status().message();
    SmallVector<const ::kb::SpirvEntryPoint *> computeEntries;
    for (const ::kb::SpirvEntryPoint &entry : spirv->entryPoints)
      if (entry.executionModel == 5 /*GLCompute*/)
        computeEntries.push_back(&entry);
    size_t exportCount = std::distance(executable.getExportOps().begin(),
                                       executable.getExportOps().end());
    for (ExportOp exportOp : executable.getExportOps()) {
      std::string entry = exportOp.getSymName().str();
      // GLSL entry points are always `main`: a module with a single compute
      // entry point serves a single export whatever its name.
      if (!spirv->findEntryPoint(entry) && computeEntries.size() == 1 &&
          exportCount == 1) {
        entry = computeEntries.front()->name;
        entryPoints.set(exportOp.getSymName(), StringAttr::get(context, entry));
      }
      auto values =
          ::kb::resolveSpecialization(*spirv, entry, request.specialization);
      if (!values.ok())
        return exportOp.emitError()
               << "object '" << path << "': " << values.status().message();
      pipeline.specialization = std::move(*values);
      ::kb::KernelAbi abi = getKernelAbi(exportOp, entry);
      abi.specialization = pipeline.specialization;
      reportMismatches(exportOp, ::kb::checkSpirvAbi(*spirv, abi));
    }
    for (VariantOp variant : targets) {
      uint32_t max = getTarget(variant)->spirvEnvironment().version;
      if (spirv->version > max) {
        variant.emitError()
            << "SPIR-V '" << path << "' has version "
            << ::kb::spirvVersionText(spirv->version) << ", newer than "
            << variant.getArch() << " of variant @" << variant.getSymName()
            << " accepts (" << ::kb::spirvVersionText(max)
            << "); compile it with --target-env=" << variant.getArch();
        ok = false;
      }
    }
    return success(ok);
  }

  // cubin: an ELF image. There is no cubin reader in common/, so only the
  // header is checked; the PTX of the same kernel gets the full check.
  if (!bytes.starts_with("\x7f"
                         "ELF"))
    return executable.emitError()
           << "'" << path << "' is not a cubin (no ELF header)";
  executable.emitWarning()
      << "the ABI of cubin '" << path
      << "' is not checked (no cubin reader); substitute the kernel's .ptx "
         "to have entry, parameters and workgroup size checked";
  return success();
}

/// Makes |variant| external with |object|. A generated variant is kept as
/// the reference (`<name>_reference`); an external one just gets the new
/// object (an identical object is left untouched, which makes a
/// dump-then-scan round trip a no-op).
static FailureOr<VariantOp>
applyObject(ExecutableOp executable, VariantOp variant, ObjectAttr object,
            DictionaryAttr entryPoints, std::optional<int64_t> sharedMemory,
            const ::kb::KernelAbi &pipeline, std::string &referenceName) {
  MLIRContext *context = executable.getContext();
  auto objects = ArrayAttr::get(context, {object});
  auto setLaunch = [&](VariantOp external) {
    setVariantPipeline(external, pipeline);
    if (sharedMemory)
      external->setAttr(
          kVariantSharedMemoryAttrName,
          IntegerAttr::get(IntegerType::get(context, 64), *sharedMemory));
    else
      external->removeAttr(kVariantSharedMemoryAttrName);
  };
  if (variant.isExternal()) {
    setLaunch(variant);
    auto current = variant.getObjectsAttr()[0].cast<ObjectAttr>();
    if (current.getData() != object.getData())
      variant.setObjectsAttr(objects);
    if (entryPoints.empty())
      variant.removeEntryPointsAttr();
    else
      variant.setEntryPointsAttr(entryPoints);
    // The reference created by the first substitution stays.
    std::string reference = (variant.getSymName() + "_reference").str();
    if (auto ref = lookupVariant(executable, reference);
        ref && ref.getReference())
      referenceName = reference;
    return variant;
  }

  std::string name = variant.getSymName().str();
  referenceName = name + "_reference";
  if (lookupVariant(executable, referenceName))
    return variant.emitError()
           << "cannot keep the generated variant as @" << referenceName
           << ": kb.executable @" << executable.getSymName()
           << " already has a variant of that name";
  OpBuilder builder(variant);
  auto external = builder.create<VariantOp>(
      variant.getLoc(), builder.getStringAttr(name),
      BackendAttr::get(context, variant.getBackend()), variant.getArchAttr(),
      objects, /*reference=*/nullptr,
      entryPoints.empty() ? DictionaryAttr() : entryPoints);
  SymbolTable::setSymbolName(variant, referenceName);
  variant.setReference(true);
  setLaunch(external);
  return external;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
class SubstituteExecutablesPass
    : public mlir::kb::impl::SubstituteExecutablesPassBase<
          SubstituteExecutablesPass> {
public:
  using SubstituteExecutablesPassBase::SubstituteExecutablesPassBase;

  void runOnOperation() override;

private:
  LogicalResult collectRequests(std::vector<Request> &requests);
  /// Replaces whole executables; the last request for one wins.
  LogicalResult substituteSources(SymbolTable &symbols,
                                  const std::vector<Request> &requests);
  /// The variants each object request replaces; the last request for a
  /// variant wins.
  FailureOr<llvm::MapVector<Operation *, const Request *>>
  matchObjects(SymbolTable &symbols, const std::vector<Request> &requests);
  /// Reads and checks each object once per (executable, request), then
  /// makes its variants external.
  LogicalResult substituteObjects(
      const llvm::MapVector<Operation *, const Request *> &objects);
  /// Appends this run's records to the module's kb.substitutions.
  void publishRecords();
  /// Warns (or, under `strict`, errors) about a name that matches nothing.
  LogicalResult reportUnmatched(const Request &request);
  void record(SubstitutionRecord record);

  SmallVector<Attribute> records_;
};
} // namespace

LogicalResult
SubstituteExecutablesPass::collectRequests(std::vector<Request> &requests) {
  ModuleOp module = getOperation();
  if (kind != "any" && kind != "source" && kind != "object")
    return module.emitError() << "kb-substitute-executables: kind='" << kind
                              << "' is not one of any, source, object";
  for (const std::string &dir : searchPaths)
    if (failed(checkDirectory(module, dir, "search path")))
      return failure();
  for (const std::string &dir : directories)
    if (failed(scanDirectory(module, dir, kind, requests)))
      return failure();
  if (!origins.empty() && origins.size() != substitutions.size())
    return module.emitError()
           << "kb-substitute-executables: " << origins.size() << " origins for "
           << substitutions.size()
           << " substitutions; give one origin per substitution, or none";
  if (!launch.empty() && launch.size() != substitutions.size())
    return module.emitError()
           << "kb-substitute-executables: " << launch.size()
           << " launch settings for " << substitutions.size()
           << " substitutions; give one per substitution, or none";
  for (auto [i, text] : llvm::enumerate(substitutions))
    if (failed(parseExplicit(
            module, text, origins.empty() ? StringRef() : origins[i],
            launch.empty() ? StringRef() : launch[i], kind, requests)))
      return failure();
  return success();
}

LogicalResult
SubstituteExecutablesPass::reportUnmatched(const Request &request) {
  ModuleOp module = getOperation();
  // No op is at fault, and the module's own location is line 0 of the
  // program: the message names the request's origin and the program file
  // instead of pointing at a bogus `program.mlir:0:0`.
  Location loc = UnknownLoc::get(module.getContext());
  InFlightDiagnostic diag = strict ? emitError(loc) : emitWarning(loc);
  diag << "kb-substitute-executables: no kb.executable matches '" << request.key
       << "' (" << request.origin << ", file '" << request.file << "')";
  if (auto file = module.getLoc()->findInstanceOf<FileLineColLoc>())
    diag << " in '" << file.getFilename().getValue() << "'";
  diag << "; executables: " << listExecutables(module);
  if (strict)
    return failure();
  return success();
}

void SubstituteExecutablesPass::record(SubstitutionRecord r) {
  MLIRContext *context = &getContext();
  Builder b(context);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("executable", b.getStringAttr(r.executable)),
      b.getNamedAttr("kind", b.getStringAttr(r.kind)),
      b.getNamedAttr("file", b.getStringAttr(r.file))};
  if (!r.variant.empty())
    fields.push_back(b.getNamedAttr("variant", b.getStringAttr(r.variant)));
  if (!r.reference.empty())
    fields.push_back(b.getNamedAttr("reference", b.getStringAttr(r.reference)));
  records_.push_back(b.getDictionaryAttr(fields));
  if (printNotes)
    llvm::errs() << formatSubstitutionNote(r) << "\n";
}

LogicalResult SubstituteExecutablesPass::substituteSources(
    SymbolTable &symbols, const std::vector<Request> &requests) {
  ModuleOp module = getOperation();
  bool ok = true;
  llvm::MapVector<StringRef, const Request *> sources;
  for (const Request &request : requests) {
    if (request.kind != FileKind::Source)
      continue;
    ResolvedKey resolved;
    if (failed(resolveKey(module, symbols, request, resolved))) {
      ok = false;
      continue;
    }
    if (!resolved.executable) {
      ok &= succeeded(reportUnmatched(request));
      continue;
    }
    sources[resolved.executable.getSymName()] = &request;
  }
  if (!ok)
    return failure();
  for (auto &[name, request] : sources) {
    auto executable = cast<ExecutableOp>(symbols.lookup(name));
    std::string exeName = name.str();
    FailureOr<std::string> path = resolveFile(module, *request, searchPaths);
    if (failed(path) || failed(substituteSource(executable, *path, symbols))) {
      ok = false;
      continue;
    }
    record({exeName, "", "source", *path, ""});
  }
  return failure(!ok);
}

FailureOr<llvm::MapVector<Operation *, const Request *>>
SubstituteExecutablesPass::matchObjects(SymbolTable &symbols,
                                        const std::vector<Request> &requests) {
  ModuleOp module = getOperation();
  bool ok = true;
  llvm::MapVector<Operation *, const Request *> objects;
  for (const Request &request : requests) {
    if (request.kind == FileKind::Source)
      continue;
    ResolvedKey resolved;
    if (failed(resolveKey(module, symbols, request, resolved))) {
      ok = false;
      continue;
    }
    if (!resolved.executable) {
      ok &= succeeded(reportUnmatched(request));
      continue;
    }
    Backend backend =
        request.kind == FileKind::CudaObject ? Backend::Cuda : Backend::Vulkan;
    StringRef format = request.kind == FileKind::CudaObject
                           ? "a CUDA object (.ptx/.cubin)"
                           : "a SPIR-V object";
    ExecutableOp executable = resolved.executable;
    if (resolved.variant) {
      if (resolved.variant.getBackend() != backend ||
          resolved.variant.getReference()) {
        executable.emitError()
            << "'" << request.file << "' (" << request.origin << ") is "
            << format << " but variant @" << resolved.variant.getSymName()
            << " is "
            << (resolved.variant.getReference() ? "a reference for " : "for ")
            << resolved.variant.getTargetString();
        ok = false;
        continue;
      }
      objects[resolved.variant] = &request;
      continue;
    }
    SmallVector<VariantOp> matching;
    std::string names;
    for (VariantOp variant : executable.getVariantOps()) {
      names += (names.empty() ? "@" : ", @") + variant.getSymName().str();
      if (variant.getBackend() == backend && !variant.getReference())
        matching.push_back(variant);
    }
    if (matching.empty()) {
      executable.emitError()
          << "'" << request.file << "' (" << request.origin << ") is " << format
          << " but kb.executable @" << executable.getSymName() << " has no "
          << stringifyBackend(backend)
          << " variant (variants: " << (names.empty() ? "none" : names)
          << "); request one with --target="
          << (backend == Backend::Cuda ? "cuda:sm_90" : "vulkan:1.2")
          << " or substitute "
          << (backend == Backend::Cuda ? "a .spv" : "a .ptx");
      ok = false;
      continue;
    }
    for (VariantOp variant : matching)
      objects[variant] = &request;
  }
  if (!ok)
    return failure();
  return objects;
}

LogicalResult SubstituteExecutablesPass::substituteObjects(
    const llvm::MapVector<Operation *, const Request *> &objects) {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  bool ok = true;
  llvm::MapVector<std::pair<Operation *, const Request *>,
                  SmallVector<VariantOp>>
      groups;
  for (auto &[op, request] : objects) {
    auto variant = cast<VariantOp>(op);
    groups[{variant->getParentOp(), request}].push_back(variant);
  }
  for (auto &[key, variants] : groups) {
    auto executable = cast<ExecutableOp>(key.first);
    const Request &request = *key.second;
    FailureOr<std::string> path = resolveFile(module, request, searchPaths);
    if (failed(path)) {
      ok = false;
      continue;
    }
    auto buffer = llvm::MemoryBuffer::getFile(*path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      executable.emitError()
          << "cannot read '" << *path << "': " << buffer.getError().message();
      ok = false;
      continue;
    }
    StringRef bytes = (*buffer)->getBuffer();
    std::string format =
        classifyFile(*path) == FileKind::VulkanObject
            ? "spv"
            : llvm::sys::path::extension(*path).drop_front().lower();
    NamedAttrList entryPoints;
    ::kb::KernelAbi pipeline;
    if (failed(checkObject(executable, variants, format, bytes, *path, request,
                           pipeline, entryPoints))) {
      ok = false;
      continue;
    }
    auto object =
        ObjectAttr::get(context, llvm::sys::path::filename(*path), bytes);
    for (VariantOp variant : variants) {
      std::string variantName = variant.getSymName().str();
      std::string referenceName;
      if (failed(applyObject(
              executable, variant, object, entryPoints.getDictionary(context),
              request.sharedMemoryBytes, pipeline, referenceName))) {
        ok = false;
        continue;
      }
      record({executable.getSymName().str(), variantName, "object", *path,
              referenceName});
    }
  }
  return failure(!ok);
}

void SubstituteExecutablesPass::publishRecords() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  if (!records_.empty()) {
    SmallVector<Attribute> all;
    if (auto existing =
            module->getAttrOfType<ArrayAttr>(kSubstitutionsAttrName))
      all.append(existing.begin(), existing.end());
    all.append(records_.begin(), records_.end());
    module->setAttr(kSubstitutionsAttrName, ArrayAttr::get(context, all));
  }
}

void SubstituteExecutablesPass::runOnOperation() {
  records_.clear();
  std::vector<Request> requests;
  if (failed(collectRequests(requests)))
    return signalPassFailure();
  if (requests.empty())
    return;
  SymbolTable symbols(getOperation());
  // Sources first: they replace whole executables, and objects apply to the
  // result.
  if (failed(substituteSources(symbols, requests)))
    return signalPassFailure();
  FailureOr<llvm::MapVector<Operation *, const Request *>> objects =
      matchObjects(symbols, requests);
  if (failed(objects))
    return signalPassFailure();
  LogicalResult applied = substituteObjects(*objects);
  publishRecords();
  if (failed(applied))
    signalPassFailure();
}

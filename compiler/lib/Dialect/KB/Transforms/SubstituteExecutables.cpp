//===- SubstituteExecutables.cpp - Replace executables with files ---------===//
//
// Source substitution replaces a whole kb.executable with one parsed from an
// .mlir/.mlirbc file; object substitution makes the variants of one backend
// external with a PTX/cubin/SPIR-V file's bytes, after checking the object
// against every export's ABI with the readers of common/. See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "SubstitutionMatcher.h"

#include "common/mlir_nesting.h"
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
#include <map>
#include <optional>

namespace mlir::kb {
#define GEN_PASS_DEF_SUBSTITUTEEXECUTABLESPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;
using namespace mlir::kb::substitution;

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
  if (auto excess = ::kb::findExcessNesting(
          std::string_view(buffer->getBufferStart(), buffer->getBufferSize())))
    return executable.emitError()
           << ::kb::describeExcessNesting(path.str(), *excess);
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

/// Sets what |request| says of |external|'s launch: the pipeline (subgroup
/// size, specialization), the dynamic shared memory and the launch shape.
static void setObjectLaunch(VariantOp external, const Request &request,
                            const ::kb::KernelAbi &pipeline) {
  MLIRContext *context = external.getContext();
  setVariantPipeline(external, pipeline);
  if (request.sharedMemoryBytes)
    external->setAttr(kVariantSharedMemoryAttrName,
                      IntegerAttr::get(IntegerType::get(context, 64),
                                       *request.sharedMemoryBytes));
  else
    external->removeAttr(kVariantSharedMemoryAttrName);
  auto setDims = [&](StringRef name, ArrayRef<int64_t> dims) {
    if (dims.empty())
      external->removeAttr(name);
    else
      external->setAttr(name, DenseI64ArrayAttr::get(context, dims));
  };
  setDims(kVariantWorkgroupSizeAttrName, request.workgroupSize);
  setDims(kVariantWorkloadPerWorkgroupAttrName, request.workloadPerWorkgroup);
}

/// Gives the external |variant| |objects| and |entryPoints| (an identical
/// object is left untouched, so a dump-then-scan round trip is a no-op).
static void setObjects(VariantOp variant, ArrayAttr objects,
                       DictionaryAttr entryPoints) {
  auto current = variant.getObjectsAttr()[0].cast<ObjectAttr>();
  if (current.getData() != objects[0].cast<ObjectAttr>().getData())
    variant.setObjectsAttr(objects);
  if (entryPoints.empty())
    variant.removeEntryPointsAttr();
  else
    variant.setEntryPointsAttr(entryPoints);
}

/// Keeps the generated |variant| as the reference (`<name>_reference`),
/// whose name goes to |referenceName|.
static LogicalResult keepAsReference(ExecutableOp executable, VariantOp variant,
                                     std::string &referenceName) {
  referenceName = variant.getSymName().str() + "_reference";
  if (lookupVariant(executable, referenceName))
    return variant.emitError()
           << "cannot keep the generated variant as @" << referenceName
           << ": kb.executable @" << executable.getSymName()
           << " already has a variant of that name";
  SymbolTable::setSymbolName(variant, referenceName);
  variant.setReference(true);
  return success();
}

/// A new variant named |name| for |like|'s target with |objects|, inserted
/// at |builder|, with the object's launch settings.
static VariantOp createObjectVariant(OpBuilder &builder, VariantOp like,
                                     StringRef name, ArrayAttr objects,
                                     DictionaryAttr entryPoints,
                                     const Request &request,
                                     const ::kb::KernelAbi &pipeline) {
  auto created = builder.create<VariantOp>(
      like.getLoc(), builder.getStringAttr(name),
      BackendAttr::get(like.getContext(), like.getBackend()),
      like.getArchAttr(), objects, /*reference=*/nullptr,
      entryPoints.empty() ? DictionaryAttr() : entryPoints);
  setObjectLaunch(created, request, pipeline);
  return created;
}

/// Makes |variant| external with |object|. A generated variant is kept as
/// the reference (`<name>_reference`); an external one just gets the new
/// object.
static FailureOr<VariantOp>
applyObject(ExecutableOp executable, VariantOp variant, ObjectAttr object,
            DictionaryAttr entryPoints, const Request &request,
            const ::kb::KernelAbi &pipeline, std::string &referenceName) {
  MLIRContext *context = executable.getContext();
  auto objects = ArrayAttr::get(context, {object});
  if (variant.isExternal()) {
    setObjectLaunch(variant, request, pipeline);
    setObjects(variant, objects, entryPoints);
    // The reference created by the first substitution stays.
    std::string reference = (variant.getSymName() + "_reference").str();
    if (auto ref = lookupVariant(executable, reference);
        ref && ref.getReference())
      referenceName = reference;
    return variant;
  }

  std::string name = variant.getSymName().str();
  if (failed(keepAsReference(executable, variant, referenceName)))
    return failure();
  OpBuilder builder(variant);
  return createObjectVariant(builder, variant, name, objects, entryPoints,
                             request, pipeline);
}

/// Gives |variant|'s target a variant tuned for |request.device| with
/// |object| (`<name>_tuned<N>`, kb.device), beside |variant|, the one for
/// any device, which stays; an existing one for that model gets the new
/// object. A generated |variant| is first kept as the reference, as
/// applyObject does, so the target then has no variant for other devices
/// but the reference.
static FailureOr<VariantOp>
applyTunedObject(ExecutableOp executable, VariantOp variant, ObjectAttr object,
                 DictionaryAttr entryPoints, const Request &request,
                 const ::kb::KernelAbi &pipeline, std::string &referenceName) {
  MLIRContext *context = executable.getContext();
  auto objects = ArrayAttr::get(context, {object});
  for (VariantOp v : executable.getVariantOps()) {
    if (v.getReference() && v.getTargetString() == variant.getTargetString())
      referenceName = v.getSymName().str();
  }
  for (VariantOp v : executable.getVariantOps()) {
    if (v.getReference() || getVariantDevice(v) != request.device ||
        v.getTargetString() != variant.getTargetString())
      continue;
    setObjectLaunch(v, request, pipeline);
    setObjects(v, objects, entryPoints);
    return v;
  }
  // |variant| was matched before any object was applied: an object for any
  // device may since have made it the reference, beside a new variant for
  // any device, which the tuned one then sits beside.
  if (variant.getReference())
    for (VariantOp v : executable.getVariantOps())
      if (!v.getReference() && getVariantDevice(v).empty() &&
          v.getTargetString() == variant.getTargetString())
        variant = v;
  StringRef baseName = variant.getSymName();
  if (variant.getReference())
    baseName.consume_back("_reference");
  std::string base = baseName.str();
  if (!variant.getReference() && !variant.isExternal() &&
      failed(keepAsReference(executable, variant, referenceName)))
    return failure();
  std::string name;
  for (int n = 1; name.empty() || lookupVariant(executable, name); ++n)
    name = base + "_tuned" + std::to_string(n);
  // After the target's other candidates, in the order requested.
  VariantOp last = variant;
  for (VariantOp v : executable.getVariantOps())
    if (!v.getReference() && v.getTargetString() == variant.getTargetString())
      last = v;
  OpBuilder builder(last);
  builder.setInsertionPointAfter(last);
  VariantOp tuned = createObjectVariant(builder, variant, name, objects,
                                        entryPoints, request, pipeline);
  tuned->setAttr(kVariantDeviceAttrName,
                 StringAttr::get(context, request.device));
  return tuned;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
/// A variant and the object request that applies to it.
using ObjectMatches = std::vector<std::pair<VariantOp, const Request *>>;

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
  /// The variants each object request replaces (or, with a device model,
  /// adds a tuned variant beside), in request order; the last request for
  /// a variant and model wins.
  FailureOr<ObjectMatches> matchObjects(SymbolTable &symbols,
                                        const std::vector<Request> &requests);
  /// Reads and checks each object once per (executable, request), then
  /// makes its variants external: those for any device first, then the
  /// tuned ones beside them.
  LogicalResult substituteObjects(const ObjectMatches &objects);
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
  if (!r.device.empty())
    fields.push_back(b.getNamedAttr("device", b.getStringAttr(r.device)));
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

FailureOr<ObjectMatches>
SubstituteExecutablesPass::matchObjects(SymbolTable &symbols,
                                        const std::vector<Request> &requests) {
  ModuleOp module = getOperation();
  bool ok = true;
  ObjectMatches objects;
  // (variant, device model) -> its entry in |objects|: a later request for
  // the same pair replaces the earlier one in place.
  std::map<std::pair<Operation *, std::string>, size_t> positions;
  auto match = [&](VariantOp variant, const Request &request) {
    auto [it, inserted] = positions.try_emplace(
        {variant.getOperation(), request.device}, objects.size());
    if (inserted)
      objects.push_back({variant, &request});
    else
      objects[it->second].second = &request;
  };
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
      match(resolved.variant, request);
      continue;
    }
    SmallVector<VariantOp> matching;
    std::string names;
    for (VariantOp variant : executable.getVariantOps()) {
      names += (names.empty() ? "@" : ", @") + variant.getSymName().str();
      // Variants tuned for a device model are replaced by requests for
      // that model only (applyTunedObject).
      if (variant.getBackend() == backend && !variant.getReference() &&
          getVariantDevice(variant).empty())
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
      match(variant, request);
  }
  if (!ok)
    return failure();
  return objects;
}

LogicalResult
SubstituteExecutablesPass::substituteObjects(const ObjectMatches &objects) {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  bool ok = true;
  llvm::MapVector<std::pair<Operation *, const Request *>,
                  SmallVector<VariantOp>>
      groups;
  // Objects for any device first, so a tuned one finds its target's
  // variant already external and sits beside it.
  for (bool tuned : {false, true})
    for (auto &[variant, request] : objects)
      if (request->device.empty() != tuned)
        groups[{variant->getParentOp(), request}].push_back(variant);
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
      std::string referenceName;
      FailureOr<VariantOp> applied =
          request.device.empty()
              ? applyObject(executable, variant, object,
                            entryPoints.getDictionary(context), request,
                            pipeline, referenceName)
              : applyTunedObject(executable, variant, object,
                                 entryPoints.getDictionary(context), request,
                                 pipeline, referenceName);
      if (failed(applied)) {
        ok = false;
        continue;
      }
      record({executable.getSymName().str(), applied->getSymName().str(),
              "object", *path, referenceName, request.device});
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
  FailureOr<ObjectMatches> objects = matchObjects(symbols, requests);
  if (failed(objects))
    return signalPassFailure();
  LogicalResult applied = substituteObjects(*objects);
  publishRecords();
  if (failed(applied))
    signalPassFailure();
}

//===- ObjectAbiCheck.cpp - Does a substituted object fit its variants ----===//
//
// The object half of substitution: a PTX/cubin/SPIR-V file checked against
// every export of the executable with common/'s readers and ABI check
// (entry, parameters or bindings, workgroup size, specialization), and the
// PTX .target / SPIR-V version against each variant's target.
//
//===----------------------------------------------------------------------===//
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
#include <functional>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb::substitution {
namespace {
/// The error at |exportOp| for an object that does not fit it: each
/// mismatch, then the whole expected signature — a handwritten kernel for a
/// formed dispatch is written from it (the front end named its bindings, not
/// the kernel's author).
void emitAbiMismatches(ExecutableOp executable, ExportOp exportOp,
                       StringRef path, const ::kb::KernelAbi &abi,
                       const std::vector<::kb::AbiMismatch> &mismatches) {
  ::kb::KernelAbi expected = abi;
  expected.entry = exportOp.getSymName().str();
  const auto &wg = expected.workgroupSize;
  exportOp.emitError() << "object '" << path
                       << "' does not match the ABI of export @"
                       << exportOp.getSymName() << " of kb.executable @"
                       << executable.getSymName() << ":\n"
                       << ::kb::formatMismatches(mismatches)
                       << "\nexpected: " << ::kb::formatSignature(expected)
                       << ", workgroup " << wg[0] << "x" << wg[1] << "x"
                       << wg[2];
}
/// The ABI an object substituted by |request| must have at |exportOp|:
/// the export's, with the request's own workgroup size when it brings one.
::kb::KernelAbi expectedAbi(ExportOp exportOp, StringRef entry,
                            const Request &request) {
  ::kb::KernelAbi abi = getKernelAbi(exportOp, entry);
  abi.parameterOrder = request.parameterOrder;
  if (!request.workgroupSize.empty())
    for (size_t i = 0; i < 3; ++i)
      abi.workgroupSize[i] = static_cast<uint32_t>(request.workgroupSize[i]);
  return abi;
}
} // namespace

/// Emits an export's ABI mismatches (none: nothing) and records a failure.
using MismatchReporter = std::function<void(
    ExportOp, const ::kb::KernelAbi &, const std::vector<::kb::AbiMismatch> &)>;

/// The PTX half of checkObject: each export's entry and parameters, and the
/// PTX .target against each variant's.
static LogicalResult checkPtxObject(ExecutableOp executable,
                                    ArrayRef<VariantOp> targets,
                                    StringRef bytes, StringRef path,
                                    const Request &request,
                                    NamedAttrList &entryPoints, bool &ok,
                                    const MismatchReporter &reportMismatches) {
  MLIRContext *context = executable.getContext();
  auto ptx = ::kb::readPtx(std::string_view(bytes.data(), bytes.size()));
  if (!ptx.ok())
    return executable.emitError()
           << "cannot read PTX '" << path << "': " << ptx.status().message();
  for (ExportOp exportOp : executable.getExportOps()) {
    // The object's own entry (kernel.toml `entry`) or the export's, or
    // the unique mangled C++ name of a function so named; a missing one
    // is reported by checkPtxAbi below.
    StringRef exportName =
        request.entry.empty() ? exportOp.getSymName() : request.entry;
    const ::kb::PtxEntry *resolved = ::kb::resolvePtxEntry(
        *ptx, std::string_view(exportName.data(), exportName.size()));
    std::string entry = resolved ? resolved->name : exportName.str();
    if (entry != exportOp.getSymName())
      entryPoints.set(exportOp.getSymName(), StringAttr::get(context, entry));
    ::kb::KernelAbi abi = expectedAbi(exportOp, entry, request);
    reportMismatches(exportOp, abi, ::kb::checkPtxAbi(*ptx, abi));
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

/// What |request| asks of the pipeline, before the object is read: CUDA
/// has 32-wide warps and no specialization constants; an entry or a
/// parameter order of the object's own fits an executable with one export,
/// and an order is a permutation of that export's slots. Fills |pipeline|.
static LogicalResult checkRequest(ExecutableOp executable, StringRef format,
                                  StringRef path, const Request &request,
                                  ::kb::KernelAbi &pipeline) {
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
  size_t exportCount = std::distance(executable.getExportOps().begin(),
                                     executable.getExportOps().end());
  if (!request.entry.empty() && exportCount != 1)
    return executable.emitError()
           << "object '" << path << "' names its entry `" << request.entry
           << "`, but kb.executable @" << executable.getSymName() << " has "
           << exportCount
           << " exports; an object with an entry of its own substitutes an "
              "executable with one export";
  if (request.parameterOrder.empty())
    return success();
  if (format == "spv" || exportCount != 1)
    return executable.emitError()
           << "object '" << path << "' orders its parameters itself, "
           << (format == "spv"
                   ? "which only a CUDA kernel does (SPIR-V binds by binding "
                     "number and push-constant offset)"
                   : "so it substitutes an executable with one export");
  std::string wrong = ::kb::checkParameterOrder(
      expectedAbi(*executable.getExportOps().begin(), "", request));
  if (!wrong.empty())
    return executable.emitError()
           << "object '" << path << "': parameter order for kb.executable @"
           << executable.getSymName() << ": " << wrong;
  pipeline.parameterOrder = request.parameterOrder;
  return success();
}

/// Adds a mismatch for each binding of |abi| whose storage buffer in
/// |spirv| holds structs: the ABI check takes them as the bytes under the
/// kernel's own type, which a standalone kernel may declare as such, but a
/// program dispatch's buffers are arrays of scalars that the program's
/// other kernels read as scalars.
static void refuseStructElements(const ::kb::SpirvModule &spirv,
                                 const ::kb::KernelAbi &abi,
                                 std::vector<::kb::AbiMismatch> &mismatches) {
  for (const ::kb::SpirvResource &r : spirv.resources)
    if (r.set == 0 && r.binding < abi.bindings.size() && r.elementStruct &&
        r.kind == ::kb::SpirvResource::Kind::StorageBuffer)
      mismatches.push_back(
          {::kb::describeBinding(abi, r.binding) + " holds a struct (" +
           ::kb::describeStructLayout(*r.elementStruct) +
           "); a program dispatch's bindings are arrays of scalars, so a "
           "struct-element kernel can only be benchmarked standalone "
           "([bench], the binding declared `type = \"struct\"`)"});
}

/// The SPIR-V half of checkObject: each export's entry point (a GLSL
/// `main` serves a single export), its specialization and interface, and
/// the module's version against each variant's environment.
static LogicalResult
checkSpirvObject(ExecutableOp executable, ArrayRef<VariantOp> targets,
                 StringRef bytes, StringRef path, const Request &request,
                 ::kb::KernelAbi &pipeline, NamedAttrList &entryPoints,
                 bool &ok, const MismatchReporter &reportMismatches) {
  MLIRContext *context = executable.getContext();
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
    if (!request.entry.empty() && spirv->findEntryPoint(request.entry)) {
      entry = request.entry;
      if (entry != exportOp.getSymName())
        entryPoints.set(exportOp.getSymName(), StringAttr::get(context, entry));
    }
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
    // A uniform block of constants is the object's own choice: the
    // dispatch's constants go there instead of into push constants.
    pipeline.uniformConstants = ::kb::uniformConstantsOf(*spirv);
    ::kb::KernelAbi abi = expectedAbi(exportOp, entry, request);
    abi.specialization = pipeline.specialization;
    abi.uniformConstants = pipeline.uniformConstants;
    std::vector<::kb::AbiMismatch> mismatches =
        ::kb::checkSpirvAbi(*spirv, abi);
    refuseStructElements(*spirv, abi, mismatches);
    reportMismatches(exportOp, abi, mismatches);
  }
  for (VariantOp variant : targets) {
    uint32_t max = getTarget(variant)->spirvEnvironment().version;
    if (spirv->version > max) {
      variant.emitError() << "SPIR-V '" << path << "' has version "
                          << ::kb::spirvVersionText(spirv->version)
                          << ", newer than " << variant.getArch()
                          << " of variant @" << variant.getSymName()
                          << " accepts (" << ::kb::spirvVersionText(max)
                          << "); compile it with --target-env="
                          << variant.getArch();
      ok = false;
    }
  }
  return success(ok);
}

/// Checks |bytes| (of format |format|) against every export of |executable|
/// for the variants |targets|, and fills |entryPoints| with the export ->
/// entry names that differ. Errors are emitted at the export (ABI) or the
/// variant (architecture).
LogicalResult checkObject(ExecutableOp executable, ArrayRef<VariantOp> targets,
                          StringRef format, StringRef bytes, StringRef path,
                          const Request &request, ::kb::KernelAbi &pipeline,
                          NamedAttrList &entryPoints) {
  bool ok = true;
  MismatchReporter reportMismatches =
      [&](ExportOp exportOp, const ::kb::KernelAbi &abi,
          const std::vector<::kb::AbiMismatch> &mismatches) {
        if (mismatches.empty())
          return;
        emitAbiMismatches(executable, exportOp, path, abi, mismatches);
        ok = false;
      };
  if (failed(checkRequest(executable, format, path, request, pipeline)))
    return failure();
  if (format == "ptx")
    return checkPtxObject(executable, targets, bytes, path, request,
                          entryPoints, ok, reportMismatches);
  if (format == "spv")
    return checkSpirvObject(executable, targets, bytes, path, request, pipeline,
                            entryPoints, ok, reportMismatches);

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

} // namespace mlir::kb::substitution

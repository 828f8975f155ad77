//===- Standalone.cpp - A one-dispatch program for a standalone kernel ----===//
//
// A kernel.toml that substitutes nothing still gets a benchmark:
// this builds the program the workbench then compiles like any other, so
// the same pipeline (codegen of the reference, object substitution, ABI
// checks, benchmark generation, .kbm) runs for it.
//
//===----------------------------------------------------------------------===//
#include "common/mlir_nesting.h"
#include "kb/Driver/Driver.h"

#include "common/abi_check.h"
#include "common/specialization.h"

#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Codegen/FatalErrorRecovery.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Serialization/HostProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Support/FileUtilities.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
namespace kbir = mlir::kb;

namespace kb::driver {

/// The signless MLIR type a buffer of |type| holds.
static Type getMlirElementType(MLIRContext *context,
                               kbir::BindingElementType type) {
  switch (type) {
  case kbir::BindingElementType::I8:
  case kbir::BindingElementType::U8:
    return IntegerType::get(context, 8);
  case kbir::BindingElementType::I16:
  case kbir::BindingElementType::U16:
    return IntegerType::get(context, 16);
  case kbir::BindingElementType::I32:
  case kbir::BindingElementType::U32:
    return IntegerType::get(context, 32);
  case kbir::BindingElementType::I64:
  case kbir::BindingElementType::U64:
    return IntegerType::get(context, 64);
  case kbir::BindingElementType::F16:
    return FloatType::getF16(context);
  case kbir::BindingElementType::BF16:
    return FloatType::getBF16(context);
  case kbir::BindingElementType::F32:
    return FloatType::getF32(context);
  case kbir::BindingElementType::F64:
    return FloatType::getF64(context);
  }
  return {};
}

/// The constant's value as an arith.constant attribute, or null.
static TypedAttr parseConstantValue(Builder &b, kbir::ConstantType type,
                                    StringRef text) {
  text = text.trim();
  switch (type) {
  case kbir::ConstantType::F32:
  case kbir::ConstantType::F64: {
    double value = 0;
    if (text.getAsDouble(value))
      return {};
    return type == kbir::ConstantType::F32
               ? TypedAttr(b.getF32FloatAttr(value))
               : TypedAttr(b.getF64FloatAttr(value));
  }
  default: {
    unsigned width =
        (type == kbir::ConstantType::I32 || type == kbir::ConstantType::U32)
            ? 32
            : 64;
    // Parsed into 64 bits of the declared signedness, then range-checked:
    // an APInt of the literal's minimum width reads 8 (0b1000) as -8.
    llvm::APInt value;
    if (type == kbir::ConstantType::U32 || type == kbir::ConstantType::U64) {
      uint64_t parsed = 0;
      if (text.getAsInteger(10, parsed) ||
          (width == 32 && parsed > std::numeric_limits<uint32_t>::max()))
        return {};
      value = llvm::APInt(width, parsed, /*isSigned=*/false);
    } else {
      int64_t parsed = 0;
      if (text.getAsInteger(10, parsed) ||
          (width == 32 && (parsed < std::numeric_limits<int32_t>::min() ||
                           parsed > std::numeric_limits<int32_t>::max())))
        return {};
      value = llvm::APInt(width, static_cast<uint64_t>(parsed),
                          /*isSigned=*/true);
    }
    return b.getIntegerAttr(b.getIntegerType(width), value);
  }
  }
}

static std::string describe(const std::string &what, size_t index,
                            const std::string &name) {
  return what + " " + std::to_string(index) +
         (name.empty() ? "" : " (`" + name + "`)");
}

/// The declared layout as a kb attribute; false with |error|.
static bool buildLayout(MLIRContext *context, const StandaloneKernel &kernel,
                        kbir::LayoutAttr &layout, std::string &error) {
  Builder b(context);
  auto nameAttr = [&](const std::string &name) {
    return name.empty() ? StringAttr() : b.getStringAttr(name);
  };
  SmallVector<kbir::BindingAttr> bindings;
  for (auto [i, binding] : llvm::enumerate(kernel.bindings)) {
    if (binding.elementCount == 0) {
      error = describe("binding", i, binding.name) +
              ": element count is 0; a standalone kernel needs each buffer's "
              "size";
      return false;
    }
    bindings.push_back(kbir::BindingAttr::get(
        context, nameAttr(binding.name), kbir::fromCommon(binding.elementType),
        kbir::fromCommon(binding.access)));
  }
  SmallVector<kbir::ConstantAttr> constants;
  for (const StandaloneConstant &constant : kernel.constants)
    constants.push_back(kbir::ConstantAttr::get(
        context, nameAttr(constant.name), kbir::fromCommon(constant.type)));
  layout = kbir::LayoutAttr::get(context, bindings, constants);
  return true;
}

/// The kb.init of a binding's [bench] init; failure for an unknown
/// distribution or parameters the generator cannot use.
static FailureOr<DictionaryAttr>
buildDeclaredInit(Builder &b, const StandaloneBinding &binding) {
  auto finite = [](double v) { return std::isfinite(v); };
  std::vector<std::pair<const char *, double>> numbers;
  const std::string &kind = binding.initDistribution;
  if (kind == "uniform" && finite(binding.initLow) &&
      finite(binding.initHigh) && binding.initLow < binding.initHigh)
    numbers = {{"low", binding.initLow}, {"high", binding.initHigh}};
  else if (kind == "normal" && finite(binding.initMean) &&
           finite(binding.initStddev) && binding.initStddev >= 0)
    numbers = {{"mean", binding.initMean}, {"stddev", binding.initStddev}};
  else if (kind == "range" && finite(binding.initStart) &&
           finite(binding.initStep))
    numbers = {{"start", binding.initStart}, {"step", binding.initStep}};
  else
    return failure();
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("distribution", b.getStringAttr(kind))};
  for (const auto &[name, value] : numbers)
    fields.push_back(b.getNamedAttr(name, b.getF64FloatAttr(value)));
  return b.getDictionaryAttr(fields);
}

/// The executable of the reference file, renamed to |kernel.name|; null
/// with |error|.
static OwningOpRef<Operation *> loadReference(MLIRContext *context,
                                              const StandaloneKernel &kernel,
                                              kbir::LayoutAttr layout,
                                              std::string &error) {
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, context, os);
  std::string openError;
  auto input = openInputFile(kernel.referenceExecutable, &openError);
  if (!input) {
    error = "cannot read the reference '" + kernel.referenceExecutable +
            "': " + openError;
    return {};
  }
  if (auto excess = ::kb::findExcessNesting(
          std::string_view(input->getBufferStart(), input->getBufferSize()))) {
    error = ::kb::describeExcessNesting(kernel.referenceExecutable, *excess);
    return {};
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> parsed =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
  if (!parsed) {
    error = "the reference '" + kernel.referenceExecutable +
            "' does not parse:\n" + os.str();
    return {};
  }
  auto executables = parsed->getOps<kbir::ExecutableOp>();
  if (std::distance(executables.begin(), executables.end()) != 1) {
    error = "the reference '" + kernel.referenceExecutable +
            "' must hold exactly one kb.executable";
    return {};
  }
  kbir::ExecutableOp executable = *executables.begin();
  auto exportOp = dyn_cast_or_null<kbir::ExportOp>(
      SymbolTable::lookupSymbolIn(executable, kernel.entry));
  // A reference may name a C++ kernel's export by its plain name; the
  // export (and its body) then takes the entry's mangled name.
  std::string plain = ::kb::readableEntryName(kernel.entry);
  if (!exportOp && plain != kernel.entry) {
    exportOp = dyn_cast_or_null<kbir::ExportOp>(
        SymbolTable::lookupSymbolIn(executable, plain));
    if (exportOp) {
      if (ModuleOp body = executable.getBodyModule())
        if (Operation *function = SymbolTable::lookupSymbolIn(body, plain))
          SymbolTable::setSymbolName(function, kernel.entry);
      SymbolTable::setSymbolName(exportOp, kernel.entry);
    }
  }
  if (!exportOp) {
    error = "the reference '" + kernel.referenceExecutable +
            "' has no export @" + kernel.entry + " (the kernel's entry)" +
            (plain != kernel.entry ? " or @" + plain : "");
    return {};
  }
  if (exportOp.getLayout() != layout) {
    std::string declared, found;
    llvm::raw_string_ostream d(declared), f(found);
    d << layout;
    f << exportOp.getLayout();
    error = "the reference's export @" + kernel.entry + " has layout " +
            f.str() + " but the kernel declares " + d.str() +
            "; they must match to compare results";
    return {};
  }
  // Only the body is the reference; the kernel's variants come from the
  // targets, its objects from substitution.
  for (auto variant : llvm::make_early_inc_range(executable.getVariantOps()))
    variant.erase();
  Operation *clone = executable->clone();
  SymbolTable::setSymbolName(clone, kernel.name);
  clone->setAttr(kbir::kKernelNameAttrName,
                 StringAttr::get(context, kernel.name));
  return OwningOpRef<Operation *>(clone);
}

/// The struct layout of each binding, as the kernel's first SPIR-V object
/// lays it out (nullopt for a binding of scalars); the others must agree.
using StructLayouts = std::vector<std::optional<::kb::StructLayout>>;

/// Marks |kernel|'s struct bindings in |abi| (their layouts are read from
/// the object next); an error when the object (|extension|) is not SPIR-V.
static std::string declareStructs(const StandaloneKernel &kernel,
                                  StringRef extension, ::kb::KernelAbi &abi) {
  for (auto [i, binding] : llvm::enumerate(kernel.bindings)) {
    if (!binding.isStruct || i >= abi.bindings.size())
      continue;
    if (extension != ".spv")
      return describe("binding", i, binding.name) +
             " holds structs, whose layout is read from a SPIR-V kernel; "
             "a " +
             extension.str() +
             " object has none (declare CUDA bindings with a scalar type)";
    abi.bindings[i].structLayout = ::kb::StructLayout{};
  }
  return "";
}

/// Records |abi|'s struct layouts in |layouts| (the first object's; a
/// later one was checked against them).
static void recordStructs(const ::kb::KernelAbi &abi, StructLayouts &layouts) {
  layouts.resize(abi.bindings.size());
  for (auto [i, binding] : llvm::enumerate(abi.bindings))
    if (binding.structLayout && !layouts[i])
      layouts[i] = binding.structLayout;
}

/// What |object| (an |extension| file) assumes of its pipeline that its
/// kind cannot give, as text to follow its name; empty when nothing. Marks
/// |kernel|'s struct bindings in |abi|.
static std::string checkObjectSettings(const StandaloneKernel &kernel,
                                       const StandaloneObject &object,
                                       StringRef extension,
                                       ::kb::KernelAbi &abi) {
  if (std::string why = declareStructs(kernel, extension, abi); !why.empty())
    return ": " + why;
  if (extension == ".spv" && !abi.parameterOrder.empty())
    return ": a parameter order is CUDA only (SPIR-V binds by binding number "
           "and push-constant offset)";
  if (std::string wrong = ::kb::checkParameterOrder(abi); !wrong.empty())
    return ": parameter order: " + wrong;
  if (extension != ".spv" && !object.specialization.empty())
    return ": specialization constants are SPIR-V only";
  if (extension != ".spv" && object.subgroupSize && object.subgroupSize != 32)
    return " requires subgroup size " + std::to_string(object.subgroupSize) +
           ", but CUDA warps are 32 wide";
  return "";
}

/// Checks |object| against the export of |executable| (the same ABI check
/// object substitution does; a cubin has no reflection and is checked by
/// the runtime's limits only) and adds it as a variant, with what it
/// assumes of its pipeline. Returns an error message, empty on success.
static std::string addObjectVariant(kbir::ExecutableOp executable,
                                    const StandaloneKernel &kernel,
                                    const StandaloneObject &object,
                                    StructLayouts &layouts) {
  MLIRContext *context = executable.getContext();
  Builder b(context);
  std::string where = "object '" + object.file + "'";
  const ::kb::Target &target = object.target;
  auto bytes = llvm::MemoryBuffer::getFile(object.file, /*IsText=*/false);
  if (!bytes)
    return "cannot read " + where + ": " + bytes.getError().message();
  StringRef extension = llvm::sys::path::extension(object.file);
  ::kb::KernelAbi abi =
      kbir::getKernelAbi(cast<kbir::ExportOp>(executable.getBlock().front()),
                         object.entry.empty() ? kernel.entry : object.entry);
  abi.subgroupSize = object.subgroupSize;
  abi.fullSubgroups = object.fullSubgroups;
  abi.parameterOrder = object.parameterOrder;
  if (std::string why = checkObjectSettings(kernel, object, extension, abi);
      !why.empty())
    return where + why;
  std::vector<::kb::AbiMismatch> mismatches;
  std::string data = (*bytes)->getBuffer().str();
  // What the runtime launches: the .entry itself, as object substitution
  // resolves it (a plain C++ name or a template instance such as
  // `MatrixMulCUDA<16>` names a mangled one).
  std::string entry = object.entry;
  if (extension == ".ptx") {
    auto ptx = ::kb::readPtx(data);
    if (!ptx.ok())
      return where + ": " + ptx.status().message();
    mismatches = ::kb::checkPtxAbi(*ptx, abi);
    if (const ::kb::PtxEntry *resolved = ::kb::resolvePtxEntry(*ptx, abi.entry))
      entry = resolved->name;
  } else if (extension == ".spv") {
    auto spirv = ::kb::readSpirvBytes(data);
    if (!spirv.ok())
      return where + ": " + spirv.status().message();
    auto values =
        ::kb::resolveSpecialization(*spirv, abi.entry, object.specialization);
    if (!values.ok())
      return where + ": " + values.status().message();
    abi.specialization = std::move(*values);
    // Constants in a uniform block: the kernel's choice, kept on its variant.
    abi.uniformConstants = ::kb::uniformConstantsOf(*spirv);
    // Struct elements likewise: their layout is the kernel's. Every
    // object (a twin, another target's) must lay them out as the first:
    // the buffer is filled, and outputs compared, by one layout.
    ::kb::setStructLayouts(*spirv, abi);
    for (size_t i = 0; i < layouts.size() && i < abi.bindings.size(); ++i)
      if (layouts[i] && abi.bindings[i].structLayout)
        abi.bindings[i].structLayout = layouts[i];
    mismatches = ::kb::checkSpirvAbi(*spirv, abi);
  }
  if (!mismatches.empty())
    return where + " does not match the declared ABI:\n" +
           ::kb::formatMismatches(mismatches);
  recordStructs(abi, layouts);
  auto objectAttr = kbir::ObjectAttr::get(
      context, llvm::sys::path::filename(object.file), (*bytes)->getBuffer());
  DictionaryAttr entryPoints;
  if (!entry.empty() && entry != kernel.entry)
    entryPoints = b.getDictionaryAttr(
        {b.getNamedAttr(kernel.entry, b.getStringAttr(entry))});
  OpBuilder inner = OpBuilder::atBlockEnd(&executable.getBlock());
  // A twin reference sits beside the candidate of its target.
  std::string name =
      target.variantName() + (object.reference ? "_reference" : "");
  auto variant = inner.create<kbir::VariantOp>(
      executable.getLoc(), b.getStringAttr(name),
      kbir::BackendAttr::get(context, kbir::toBackend(target.kind())),
      b.getStringAttr(target.arch()), b.getArrayAttr({objectAttr}),
      object.reference ? b.getUnitAttr() : nullptr, entryPoints);
  kbir::setVariantPipeline(variant, abi);
  return "";
}

/// The elements of binding |i|'s buffer: its count, or for a struct
/// binding the bytes of that many structs; failure when no object laid
/// the struct out or the size overflows.
static FailureOr<int64_t> bufferElements(const StandaloneKernel &kernel,
                                         const StructLayouts &structs,
                                         size_t i) {
  unsigned long long count = kernel.bindings[i].elementCount;
  if (!kernel.bindings[i].isStruct)
    return static_cast<int64_t>(count);
  if (i >= structs.size() || !structs[i] || !structs[i]->stride)
    return failure();
  if (count > (1ull << 62) / structs[i]->stride)
    return failure();
  return static_cast<int64_t>(count * structs[i]->stride);
}

/// The host function `main`: one buffer per binding (with its declared
/// init), the constants, one dispatch of the kernel. An empty string, or
/// what is wrong with a declared value.
static std::string buildHostFunction(OpBuilder &builder,
                                     const StandaloneKernel &kernel,
                                     kbir::LayoutAttr layout,
                                     const StructLayouts &structs) {
  MLIRContext &context = *builder.getContext();
  Builder b(&context);
  Location loc = builder.getUnknownLoc();
  auto main = builder.create<func::FuncOp>(loc, "main",
                                           builder.getFunctionType({}, {}));
  OpBuilder host = OpBuilder::atBlockEnd(main.addEntryBlock());
  SmallVector<Value> workload, buffers, constants;
  for (long long w : kernel.workload)
    workload.push_back(host.create<arith::ConstantIndexOp>(loc, w));
  for (auto [i, binding] : llvm::enumerate(layout.getBindings())) {
    FailureOr<int64_t> count = bufferElements(kernel, structs, i);
    if (failed(count))
      return describe("binding", i, kernel.bindings[i].name) +
             " holds structs, but no SPIR-V object lays them out (or " +
             std::to_string(kernel.bindings[i].elementCount) +
             " of them pass 2^62 bytes)";
    auto type = kbir::BufferType::get(
        &context, {*count},
        getMlirElementType(&context, binding.getElementType()));
    auto alloc = host.create<kbir::AllocOp>(loc, type, ValueRange{});
    const StandaloneBinding &declared = kernel.bindings[i];
    if (!declared.initDistribution.empty()) {
      FailureOr<DictionaryAttr> init = buildDeclaredInit(b, declared);
      if (failed(init))
        return (describe("binding", i, declared.name) +
                ": init distribution '" + declared.initDistribution +
                "' is not one of uniform, normal, range, or its "
                "parameters are not finite (uniform needs low < high, "
                "normal stddev >= 0)");
      alloc->setAttr(kbir::kInitAttrName, *init);
    }
    buffers.push_back(alloc);
  }
  for (auto [i, constant] : llvm::enumerate(layout.getConstants())) {
    TypedAttr value =
        parseConstantValue(b, constant.getType(), kernel.constants[i].value);
    if (!value)
      return (describe("constant", i, kernel.constants[i].name) + ": value '" +
              kernel.constants[i].value + "' is not a " +
              kbir::stringifyConstantType(constant.getType()).str());
    constants.push_back(host.create<arith::ConstantOp>(loc, value));
  }
  host.create<kbir::DispatchOp>(
      loc,
      SymbolRefAttr::get(
          b.getStringAttr(kernel.name),
          {FlatSymbolRefAttr::get(b.getStringAttr(kernel.entry))}),
      workload, buffers, constants);
  host.create<func::ReturnOp>(loc);

  return "";
}

/// What is wrong with |kernel|'s shape (names, workgroup size, workload,
/// something to run), or an empty string.
static std::string checkKernelShape(const StandaloneKernel &kernel) {
  if (kernel.name.empty() || kernel.entry.empty())
    return "needs a name and an entry";
  if (kernel.workgroupSize.size() != 3)
    return "workgroup_size must have 3 entries";
  if (kernel.workload.empty() || kernel.workload.size() > 3)
    return "workload must have 1 to 3 entries, found " +
           std::to_string(kernel.workload.size());
  for (long long w : kernel.workload)
    if (w < 1)
      return "workload entries must be >= 1, found " + std::to_string(w);
  if (kernel.referenceExecutable.empty() && kernel.objects.empty())
    return "has neither a reference executable nor objects; nothing could "
           "run";
  return "";
}

/// Without a reference: an executable whose only export is the declared
/// one and whose variants are |kernel|'s objects. An error message, or an
/// empty string.
static std::string buildObjectExecutable(OpBuilder &builder,
                                         const StandaloneKernel &kernel,
                                         kbir::LayoutAttr layout,
                                         StructLayouts &structs) {
  Builder b(builder.getContext());
  Location loc = builder.getUnknownLoc();
  auto executable = builder.create<kbir::ExecutableOp>(loc, kernel.name);
  executable->setAttr(kbir::kKernelNameAttrName, b.getStringAttr(kernel.name));
  auto dims = [&](const std::vector<long long> &values) {
    return b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(values.begin(), values.end()));
  };
  OpBuilder inner = OpBuilder::atBlockEnd(&executable.getBlock());
  inner.create<kbir::ExportOp>(
      loc, b.getStringAttr(kernel.entry), layout, dims(kernel.workgroupSize),
      kernel.workloadPerWorkgroup.empty() ? DenseI64ArrayAttr()
                                          : dims(kernel.workloadPerWorkgroup),
      kernel.sharedMemoryBytes ? b.getI64IntegerAttr(kernel.sharedMemoryBytes)
                               : IntegerAttr());
  for (const StandaloneObject &object : kernel.objects)
    if (std::string why = addObjectVariant(executable, kernel, object, structs);
        !why.empty())
      return why;
  return "";
}

/// Verifies |module| and prints it to |path|. An error message, or an
/// empty string.
static std::string verifyAndPrint(ModuleOp module,
                                  const StandaloneKernel &kernel,
                                  const std::string &path) {
  std::string diagnostics;
  {
    llvm::raw_string_ostream os(diagnostics);
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
      os << d << "\n";
      return success();
    });
    if (failed(verify(module)))
      return "the synthesized program is invalid: " + os.str();
  }
  std::string openError;
  auto output = openOutputFile(path, &openError);
  if (!output)
    return "cannot write '" + path + "': " + openError;
  output->os() << "// Synthesized by kernel-bench for the standalone kernel '"
               << kernel.name << "'.\n";
  module.print(output->os());
  // On a write error the file is not kept (removed with |output|).
  if (std::string failed = kbir::closeOutputStream(output->os(), path);
      !failed.empty())
    return failed;
  output->keep();
  return "";
}

/// Why |kernel| cannot have an MLIR reference: a struct binding, which a
/// kb.executable's layout (arrays of scalars) cannot spell. Empty if none.
static std::string refuseStructReference(const StandaloneKernel &kernel) {
  for (auto [i, binding] : llvm::enumerate(kernel.bindings))
    if (binding.isStruct)
      return describe("binding", i, binding.name) +
             " holds structs, but the reference '" +
             kernel.referenceExecutable +
             "' is a kb.executable, whose bindings are arrays of scalars; "
             "benchmark the kernel without a reference";
  return "";
}

/// The synthesized program of |kernel| in |context|; null with |error|.
static OwningOpRef<ModuleOp> buildProgram(MLIRContext &context,
                                          const StandaloneKernel &kernel,
                                          std::string &error) {
  kbir::LayoutAttr layout;
  if (!buildLayout(&context, kernel, layout, error))
    return nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  StructLayouts structs;
  if (!kernel.referenceExecutable.empty()) {
    error = refuseStructReference(kernel);
    if (!error.empty())
      return nullptr;
    OwningOpRef<Operation *> reference =
        loadReference(&context, kernel, layout, error);
    if (!reference)
      return nullptr;
    builder.insert(reference.release());
  } else {
    error = buildObjectExecutable(builder, kernel, layout, structs);
  }
  if (error.empty())
    error = buildHostFunction(builder, kernel, layout, structs);
  if (!error.empty())
    return nullptr;
  return module;
}

bool writeStandaloneProgram(const StandaloneKernel &kernel,
                            const std::string &path, std::string &error) {
  DialectRegistry registry;
  registry.insert<kbir::KBDialect, arith::ArithDialect, func::FuncDialect,
                  gpu::GPUDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  error = checkKernelShape(kernel);
  if (error.empty())
    if (OwningOpRef<ModuleOp> module = buildProgram(context, kernel, error))
      error = verifyAndPrint(*module, kernel, path);
  if (error.empty())
    return true;
  error = "standalone kernel '" + kernel.name + "': " + error;
  return false;
}

} // namespace kb::driver

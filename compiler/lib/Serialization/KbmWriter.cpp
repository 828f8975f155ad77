//===- KbmWriter.cpp - Program and benchmark modules as .kbm files --------===//
#include "kb/Serialization/KbmWriter.h"
#include "kb/Codegen/Codegen.h"
#include "kb/Codegen/FatalErrorRecovery.h"
#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Serialization/HostProgram.h"

#include "common/kbm/kbm_generated.h"
#include "common/kbm/kbm_limits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::kb;
namespace fb = flatbuffers;
namespace kbm = ::kb::kbm;

// The kbm enums are declared in the same order as the dialect's (both follow
// common/kernel_abi.h), so they convert by value.
static kbm::ElementType toKbm(BindingElementType t) {
  return static_cast<kbm::ElementType>(static_cast<uint8_t>(t));
}
static kbm::ScalarType toKbm(ConstantType t) {
  return static_cast<kbm::ScalarType>(static_cast<uint8_t>(t));
}
static kbm::Access toKbm(BindingAccess a) {
  return static_cast<kbm::Access>(static_cast<uint8_t>(a));
}

static std::optional<kbm::ExecutableFormat> getFormat(ObjectAttr object) {
  StringRef format = object.getFormat();
  if (format == "ptx")
    return kbm::ExecutableFormat::Ptx;
  if (format == "cubin")
    return kbm::ExecutableFormat::Cubin;
  if (format == "spv")
    return kbm::ExecutableFormat::Spirv;
  return std::nullopt;
}

/// The low bytes of |value| as the layout type |type| reads them.
static uint64_t getBits(TypedAttr value) {
  if (auto f = value.dyn_cast<FloatAttr>())
    return f.getValue().bitcastToAPInt().getZExtValue();
  return value.cast<IntegerAttr>().getValue().getZExtValue();
}

/// Converts |value| to the constant's declared scalar type (a dispatch may
/// pass `i32` for a `u32`, or a float literal of the right width).
static TypedAttr castToLayout(TypedAttr value, ConstantType type) {
  MLIRContext *context = value.getContext();
  auto intValue = value.dyn_cast<IntegerAttr>();
  switch (type) {
  case ConstantType::I32:
  case ConstantType::U32:
  case ConstantType::I64:
  case ConstantType::U64: {
    if (!intValue)
      return {};
    unsigned width =
        (type == ConstantType::I32 || type == ConstantType::U32) ? 32 : 64;
    return IntegerAttr::get(IntegerType::get(context, width),
                            intValue.getValue().sextOrTrunc(width));
  }
  case ConstantType::F32:
  case ConstantType::F64: {
    auto f = value.dyn_cast<FloatAttr>();
    if (!f)
      return {};
    Type ft = type == ConstantType::F32 ? FloatType::getF32(context)
                                        : FloatType::getF64(context);
    if (f.getType() == ft)
      return f;
    return FloatAttr::get(ft, f.getValueAsDouble());
  }
  }
  return {};
}

namespace {

class ModuleWriter {
public:
  fb::FlatBufferBuilder fbb{1 << 16};

  /// Writes |executable|; failure when a variant has no code.
  FailureOr<fb::Offset<kbm::Executable>>
  writeExecutable(ExecutableOp executable) {
    // A handwritten object is always a candidate, generated code always a
    // reference. An executable shipped only as objects (a standalone kernel
    // without a reference) thus has no reference: `kernel-bench run` says
    // so instead of passing the handwritten kernel off as generated.
    std::vector<fb::Offset<kbm::ExecutableVariant>> variants;
    for (VariantOp v : executable.getVariantOps()) {
      auto exports = writeExports(executable, v);
      if (v.isExternal()) {
        auto object = v.getObjectsAttr()[0].cast<ObjectAttr>();
        std::optional<kbm::ExecutableFormat> format = getFormat(object);
        if (!format)
          return v.emitOpError("object '")
                 << object.getPath() << "' has no .ptx/.cubin/.spv extension";
        kbm::VariantRole role = v.getReference() ? kbm::VariantRole::Reference
                                                 : kbm::VariantRole::Candidate;
        variants.push_back(writeVariant(*format, v.getArch(), role,
                                        object.getData(), exports,
                                        getVariantDevice(v)));
        continue;
      }
      auto generated = v->getAttrOfType<ArrayAttr>(kGeneratedAttrName);
      if (!generated || generated.empty())
        return v.emitOpError("of kb.executable @")
               << executable.getSymName()
               << " has no generated code to serialize; run kb-codegen first";
      for (Attribute entry : generated) {
        auto dict = entry.cast<DictionaryAttr>();
        auto object = dict.getAs<ObjectAttr>("object");
        auto target = dict.getAs<StringAttr>("target");
        std::optional<kbm::ExecutableFormat> format =
            object ? getFormat(object) : std::nullopt;
        if (!format || !target)
          return v.emitOpError("has a malformed ")
                 << kGeneratedAttrName << " entry " << entry;
        variants.push_back(writeVariant(*format, target.getValue(),
                                        kbm::VariantRole::Reference,
                                        object.getData(), exports));
      }
    }
    // Children are written one statement at a time throughout: the order of
    // a call's arguments is unspecified (GCC and Clang differ), and the
    // module's bytes must not depend on the compiler that built us.
    auto name = fbb.CreateString(executable.getSymName().str());
    auto variantVector = fbb.CreateVector(variants);
    return kbm::CreateExecutable(fbb, name, variantVector);
  }

  fb::Offset<fb::Vector<fb::Offset<kbm::Export>>>
  writeExports(ExecutableOp executable, VariantOp variant) {
    std::vector<fb::Offset<kbm::Export>> exports;
    for (ExportOp exportOp : executable.getExportOps()) {
      LayoutAttr layout = exportOp.getLayout();
      ::kb::KernelAbi pipeline;
      // Sized so that the variant's struct layouts find their bindings.
      pipeline.bindings.resize(layout.getBindings().size());
      getVariantPipeline(variant, pipeline);
      std::vector<fb::Offset<kbm::BindingLayout>> bindings =
          writeBindings(layout, pipeline);
      std::vector<fb::Offset<kbm::ConstantLayout>> constants;
      for (ConstantAttr c : layout.getConstants())
        constants.push_back(kbm::CreateConstantLayout(
            fbb, c.getName() ? fbb.CreateString(c.getName().str()) : 0,
            toKbm(c.getType())));
      SmallVector<int64_t, 3> size = getWorkgroupSize(variant, exportOp);
      kbm::Dim3 workgroupSize(size[0], size[1], size[2]);
      SmallVector<int64_t, 3> per = getWorkloadPerWorkgroup(variant, exportOp);
      kbm::Dim3 workloadPerWorkgroup(per[0], per[1], per[2]);
      std::string entry =
          variant.getEntryPointName(exportOp.getSymName()).str();
      std::vector<fb::Offset<kbm::SpecializationConstant>> specialization;
      for (const ::kb::SpecializationValue &v : pipeline.specialization)
        specialization.push_back(kbm::CreateSpecializationConstant(
            fbb, v.id, fbb.CreateString(v.name), v.size, v.bits));
      auto entryName = fbb.CreateString(entry);
      auto bindingVector = fbb.CreateVector(bindings);
      auto constantVector = fbb.CreateVector(constants);
      auto specializationVector =
          specialization.empty() ? 0 : fbb.CreateVector(specialization);
      auto parameterOrder = pipeline.parameterOrder.empty()
                                ? 0
                                : fbb.CreateVector(pipeline.parameterOrder);
      auto uniformConstants = writeUniformConstants(pipeline);
      exports.push_back(kbm::CreateExport(
          fbb, entryName, bindingVector, constantVector, &workgroupSize,
          static_cast<uint32_t>(getSharedMemoryBytes(variant, exportOp)),
          pipeline.subgroupSize, pipeline.fullSubgroups, specializationVector,
          &workloadPerWorkgroup, parameterOrder, uniformConstants));
    }
    return fbb.CreateVector(exports);
  }

  /// The bindings of |layout|, each with the struct layout |pipeline|
  /// (the variant's) records for it.
  std::vector<fb::Offset<kbm::BindingLayout>>
  writeBindings(LayoutAttr layout, const ::kb::KernelAbi &pipeline) {
    std::vector<fb::Offset<kbm::BindingLayout>> bindings;
    for (auto [i, b] : llvm::enumerate(layout.getBindings())) {
      auto name = b.getName() ? fbb.CreateString(b.getName().str()) : 0;
      fb::Offset<kbm::StructLayout> structLayout = 0;
      if (i < pipeline.bindings.size() && pipeline.bindings[i].structLayout)
        structLayout = writeStructLayout(*pipeline.bindings[i].structLayout);
      bindings.push_back(
          kbm::CreateBindingLayout(fbb, name, toKbm(b.getElementType()),
                                   toKbm(b.getAccess()), structLayout));
    }
    return bindings;
  }

  fb::Offset<kbm::StructLayout>
  writeStructLayout(const ::kb::StructLayout &layout) {
    std::vector<fb::Offset<kbm::StructMember>> members;
    for (const ::kb::StructMember &m : layout.members) {
      auto name = fbb.CreateString(m.name);
      members.push_back(kbm::CreateStructMember(
          fbb, name, static_cast<kbm::ElementType>(m.type), m.offset,
          m.components, m.count, m.arrayStride));
    }
    auto name = fbb.CreateString(layout.name);
    auto memberVector = fbb.CreateVector(members);
    return kbm::CreateStructLayout(fbb, name, layout.stride, memberVector);
  }

  /// A handwritten SPIR-V kernel's uniform block of constants; none (push
  /// constants) for everything else.
  fb::Offset<kbm::UniformConstants>
  writeUniformConstants(const ::kb::KernelAbi &pipeline) {
    if (!pipeline.uniformConstants)
      return 0;
    const ::kb::UniformConstants &block = *pipeline.uniformConstants;
    auto offsets = fbb.CreateVector(block.offsets);
    return kbm::CreateUniformConstants(fbb, block.binding, offsets, block.size);
  }

  fb::Offset<kbm::ExecutableVariant>
  writeVariant(kbm::ExecutableFormat format, StringRef target,
               kbm::VariantRole role, StringRef data,
               fb::Offset<fb::Vector<fb::Offset<kbm::Export>>> exports,
               StringRef device = {}) {
    auto bytes = fbb.CreateVector(
        reinterpret_cast<const uint8_t *>(data.data()), data.size());
    auto targetName = fbb.CreateString(target.str());
    auto deviceName = device.empty() ? 0 : fbb.CreateString(device.str());
    return kbm::CreateExecutableVariant(fbb, format, targetName, role, bytes,
                                        exports, deviceName);
  }

  fb::Offset<kbm::InitSpec> writeInit(DictionaryAttr init) {
    auto distribution = init.getAs<StringAttr>("distribution");
    if (!distribution || distribution.getValue() == "zero")
      return kbm::CreateInitSpec(fbb, kbm::Distribution::Zero);
    auto seed = init.getAs<IntegerAttr>("seed");
    auto number = [&](StringRef name, double otherwise) {
      auto value = init.getAs<FloatAttr>(name);
      return value ? value.getValueAsDouble() : otherwise;
    };
    kbm::Distribution kind =
        distribution.getValue() == "normal"  ? kbm::Distribution::Normal
        : distribution.getValue() == "range" ? kbm::Distribution::Range
                                             : kbm::Distribution::Uniform;
    return kbm::CreateInitSpec(
        fbb, kind, seed ? seed.getValue().getZExtValue() : 0,
        number("low", 0.0), number("high", 1.0), number("mean", 0.0),
        number("stddev", 1.0), number("start", 0.0), number("step", 1.0));
  }

  fb::Offset<kbm::Op> writeDispatch(unsigned executableIndex,
                                    unsigned exportIndex, ExportOp exportOp,
                                    ArrayRef<int64_t> bufferOfBinding,
                                    ArrayRef<TypedAttr> constants,
                                    ArrayRef<int64_t> workload,
                                    ArrayRef<int64_t> workgroupCount) {
    std::vector<kbm::BindingRef> bindings;
    for (int64_t buffer : bufferOfBinding)
      bindings.emplace_back(static_cast<uint32_t>(buffer), 0, 0);
    std::vector<kbm::ConstantValue> values;
    for (auto [i, c] : llvm::enumerate(exportOp.getLayout().getConstants()))
      values.emplace_back(toKbm(c.getType()), getBits(constants[i]));
    kbm::Dim3 count(static_cast<uint32_t>(workgroupCount[0]),
                    static_cast<uint32_t>(workgroupCount[1]),
                    static_cast<uint32_t>(workgroupCount[2]));
    // Each variant's count follows from the workload and its export's
    // workload per workgroup (a handwritten kernel may bring its own).
    SmallVector<int64_t, 3> padded(workload.begin(), workload.end());
    padded.resize(3, 1);
    kbm::Dim3 workloadDims(static_cast<uint32_t>(padded[0]),
                           static_cast<uint32_t>(padded[1]),
                           static_cast<uint32_t>(padded[2]));
    // An empty vector of 8-byte-aligned structs is not padded to that
    // alignment by FlatBuffers; the runtime rejects it as misaligned. None
    // is written instead (an export without constants).
    auto structs = [&](const auto &v) {
      return v.empty() ? 0 : fbb.CreateVectorOfStructs(v);
    };
    auto bindingVector = structs(bindings);
    auto valueVector = structs(values);
    auto dispatch =
        kbm::CreateDispatch(fbb, executableIndex, exportIndex, bindingVector,
                            valueVector, 0, &count, &workloadDims);
    return kbm::CreateOp(fbb, kbm::Command::Dispatch, dispatch.Union());
  }

  fb::Offset<kbm::Function>
  writeFunction(StringRef name,
                const std::vector<fb::Offset<kbm::Buffer>> &buffers,
                const std::vector<fb::Offset<kbm::Op>> &ops,
                const std::vector<fb::Offset<kbm::Output>> &outputs) {
    auto functionName = fbb.CreateString(name.str());
    auto bufferVector = fbb.CreateVector(buffers);
    auto opVector = fbb.CreateVector(ops);
    auto outputVector = fbb.CreateVector(outputs);
    return kbm::CreateFunction(fbb, functionName, bufferVector, opVector,
                               outputVector);
  }

  fb::Offset<kbm::Op> writeAlloc(unsigned buffer) {
    return kbm::CreateOp(fbb, kbm::Command::Alloc,
                         kbm::CreateAlloc(fbb, buffer).Union());
  }

  /// Finishes the module and checks it with the same verifier the runtime
  /// runs first.
  LogicalResult finish(Operation *anchor, StringRef name,
                       std::vector<fb::Offset<kbm::Executable>> &executables,
                       std::vector<fb::Offset<kbm::Function>> &functions,
                       StringRef entryFunction,
                       std::vector<fb::Offset<kbm::Benchmark>> &benchmarks,
                       std::string &bytes) {
    auto moduleName = fbb.CreateString(name.str());
    auto executableVector = fbb.CreateVector(executables);
    auto functionVector = fbb.CreateVector(functions);
    auto entryName =
        entryFunction.empty() ? 0 : fbb.CreateString(entryFunction.str());
    auto benchmarkVector = fbb.CreateVector(benchmarks);
    auto module = kbm::CreateModule(
        fbb, static_cast<uint32_t>(kbm::SchemaVersion::Current), moduleName,
        executableVector, functionVector, entryName, benchmarkVector);
    kbm::FinishModuleBuffer(fbb, module);
    fb::Verifier verifier(fbb.GetBufferPointer(), fbb.GetSize());
    if (!kbm::VerifyModuleBuffer(verifier))
      return anchor->emitError("internal error: the .kbm module '")
             << name << "' fails the FlatBuffers verifier";
    bytes.assign(reinterpret_cast<const char *>(fbb.GetBufferPointer()),
                 fbb.GetSize());
    return success();
  }
};

/// The program's view of one host function.
struct HostFunctionWriter {
  HostFunctionWriter(ModuleWriter &writer,
                     llvm::StringMap<unsigned> &executableIndex,
                     SymbolTable &symbols)
      : writer(writer), executableIndex(executableIndex), symbols(symbols) {}

  ModuleWriter &writer;
  llvm::StringMap<unsigned> &executableIndex;
  SymbolTable &symbols;
  std::vector<fb::Offset<kbm::Buffer>> buffers;
  std::vector<fb::Offset<kbm::Op>> ops;
  DenseMap<Value, unsigned> bufferIndex;
  llvm::StringSet<> bufferNames;
  // Per buffer: op index of its last read and last write by a dispatch.
  std::vector<int64_t> lastRead, lastWrite;

  /// The element type a buffer holds and whether it is an input, from the
  /// first dispatch (in program order) that binds it: its binding's element
  /// type (u32 vs i32) and whether that binding reads. A buffer no dispatch
  /// binds keeps its MLIR element type and counts as an input.
  std::optional<BindingElementType> getBufferElementType(Value buffer,
                                                         bool &isInput) {
    DispatchOp first;
    for (Operation *user : buffer.getUsers())
      if (auto dispatch = dyn_cast<DispatchOp>(user))
        if (!first || dispatch->isBeforeInBlock(first))
          first = dispatch;
    isInput = true;
    std::optional<BindingElementType> fromBinding;
    ExecutableOp executable =
        first ? symbols.lookup<ExecutableOp>(first.getExecutableName())
              : ExecutableOp();
    auto exportOp =
        executable ? dyn_cast_or_null<ExportOp>(SymbolTable::lookupSymbolIn(
                         executable, first.getExportName()))
                   : ExportOp();
    if (exportOp) {
      isInput = false;
      for (auto [i, value] : llvm::enumerate(first.getBindings())) {
        if (value != buffer)
          continue;
        BindingAttr binding = exportOp.getLayout().getBindings()[i];
        if (!fromBinding)
          fromBinding = binding.getElementType();
        isInput |= binding.getAccess() != BindingAccess::WriteOnly;
      }
    }
    if (fromBinding)
      return fromBinding;
    return getElementTypeOf(
        buffer.getType().cast<BufferType>().getElementType());
  }

  /// A name for |buffer| that `kernel-bench run` shows: `exe.binding` of
  /// the last dispatch that writes it (what the output holds), else of the
  /// first that reads it (an input); `buffer<N>` when no dispatch binds it
  /// or the binding is unnamed. A name taken by an earlier buffer (the same
  /// export dispatched twice) gets `#<N>` appended, so each is distinct.
  std::string getBufferName(Value buffer, unsigned index) {
    DispatchOp lastWriter, firstReader;
    unsigned writerBinding = 0, readerBinding = 0;
    for (Operation *user : buffer.getUsers()) {
      auto dispatch = dyn_cast<DispatchOp>(user);
      if (!dispatch)
        continue;
      ExecutableOp executable =
          symbols.lookup<ExecutableOp>(dispatch.getExecutableName());
      auto exportOp =
          executable ? dyn_cast_or_null<ExportOp>(SymbolTable::lookupSymbolIn(
                           executable, dispatch.getExportName()))
                     : ExportOp();
      if (!exportOp)
        continue;
      ArrayRef<BindingAttr> layout = exportOp.getLayout().getBindings();
      for (auto [i, value] : llvm::enumerate(dispatch.getBindings())) {
        if (value != buffer || i >= layout.size())
          continue;
        if (layout[i].getAccess() != BindingAccess::ReadOnly &&
            (!lastWriter || lastWriter->isBeforeInBlock(dispatch))) {
          lastWriter = dispatch;
          writerBinding = i;
        }
        if (!firstReader || dispatch->isBeforeInBlock(firstReader)) {
          firstReader = dispatch;
          readerBinding = i;
        }
      }
    }
    DispatchOp named = lastWriter ? lastWriter : firstReader;
    unsigned binding = lastWriter ? writerBinding : readerBinding;
    std::string name;
    if (named) {
      ExportOp exportOp = cast<ExportOp>(SymbolTable::lookupSymbolIn(
          symbols.lookup<ExecutableOp>(named.getExecutableName()),
          named.getExportName()));
      StringAttr bindingName =
          exportOp.getLayout().getBindings()[binding].getName();
      if (bindingName && !bindingName.getValue().empty())
        name = (named.getExecutableName() + "." + bindingName.getValue()).str();
    }
    if (name.empty())
      name = "buffer" + std::to_string(index);
    if (!bufferNames.insert(name).second) {
      name += "#" + std::to_string(index);
      bufferNames.insert(name);
    }
    return name;
  }

  LogicalResult writeAlloc(AllocOp alloc, StringRef functionName) {
    std::string reason;
    std::optional<int64_t> count =
        getBufferElementCount(alloc.getResult(), &reason);
    if (!count)
      return alloc.emitOpError("cannot be serialized to .kbm: ") << reason;
    if (*count < 1)
      return alloc.emitOpError("allocates ")
             << *count << " elements; a buffer needs >= 1";
    bool isInput = false;
    std::optional<BindingElementType> type =
        getBufferElementType(alloc.getResult(), isInput);
    if (!type)
      return alloc.emitOpError("has element type ")
             << alloc.getType().cast<BufferType>().getElementType()
             << ", which no .kbm buffer holds";
    unsigned index = buffers.size();
    // The seed depends on the buffer's position only, so renaming bindings
    // does not change a program's inputs.
    uint64_t seed =
        hashName((functionName + "/%" + std::to_string(index)).str());
    auto init =
        writer.writeInit(buildInitSpec(alloc.getContext(), *type, isInput, seed,
                                       getDeclaredInit(alloc.getResult())));
    std::string name = getBufferName(alloc.getResult(), index);
    auto bufferName = writer.fbb.CreateString(name);
    buffers.push_back(kbm::CreateBuffer(writer.fbb, bufferName, toKbm(*type),
                                        static_cast<uint64_t>(*count), init));
    bufferIndex[alloc.getResult()] = index;
    lastRead.push_back(-1);
    lastWrite.push_back(-1);
    ops.push_back(writer.writeAlloc(index));
    return success();
  }

  LogicalResult writeDispatch(DispatchOp dispatch) {
    std::string reason;
    std::optional<DispatchInfo> info =
        analyzeDispatch(dispatch, reason, &symbols);
    if (!info)
      return dispatch.emitOpError("cannot be serialized to .kbm: ") << reason;
    SmallVector<int64_t> bufferOfBinding;
    ArrayRef<BindingAttr> layout = info->exportOp.getLayout().getBindings();
    int64_t opIndex = ops.size();
    for (auto [i, value] : llvm::enumerate(dispatch.getBindings())) {
      auto it = bufferIndex.find(value);
      if (it == bufferIndex.end())
        return dispatch.emitOpError("binds a buffer that is not a kb.alloc of ")
               << "this function (binding " << i << ")";
      bufferOfBinding.push_back(it->second);
      if (layout[i].getAccess() != BindingAccess::WriteOnly)
        lastRead[it->second] = opIndex;
      if (layout[i].getAccess() != BindingAccess::ReadOnly)
        lastWrite[it->second] = opIndex;
    }
    SmallVector<TypedAttr> constants;
    for (auto [i, c] :
         llvm::enumerate(info->exportOp.getLayout().getConstants())) {
      TypedAttr value = castToLayout(info->constants[i], c.getType());
      if (!value)
        return dispatch.emitOpError("constant ")
               << i << " (" << info->constants[i] << ") does not convert to "
               << stringifyConstantType(c.getType());
      constants.push_back(value);
    }
    // A substituted object's count rule must cover every dimension of the
    // workload it is given: a missing entry would be 1, one workgroup per
    // workload item, which a tiled kernel is not written for.
    for (VariantOp variant : info->executable.getVariantOps()) {
      auto per = variant->getAttrOfType<DenseI64ArrayAttr>(
          kVariantWorkloadPerWorkgroupAttrName);
      if (!per)
        continue;
      for (size_t d = per.size(); d < info->workload.size(); ++d) {
        if (info->workload[d] == 1)
          continue;
        std::string workload;
        for (int64_t w : info->workload)
          workload += (workload.empty() ? "" : "x") + std::to_string(w);
        return dispatch.emitOpError("has the workload ")
               << workload << ", but the workload_per_workgroup of variant @"
               << variant.getSymName() << " of kb.executable @"
               << info->executable.getSymName() << " has " << per.size()
               << (per.size() == 1 ? " entry" : " entries")
               << ": give one per workload dimension (kernel.toml [abi] "
                  "workload_per_workgroup)";
      }
    }
    ops.push_back(writer.writeDispatch(
        executableIndex.lookup(info->executable.getSymName()),
        info->exportIndex, info->exportOp, bufferOfBinding, constants,
        info->workload, info->workgroupCount));
    return success();
  }

  FailureOr<fb::Offset<kbm::Function>> write(func::FuncOp func) {
    if (func.getNumArguments() != 0)
      return func.emitOpError("takes arguments; a .kbm program function runs "
                              "with none (sizes and constants must be "
                              "constants in the function)");
    if (!func.getBody().hasOneBlock())
      return func.emitOpError("has more than one block; the .kbm writer "
                              "needs a straight-line host function");
    for (Operation &op : func.getBody().front()) {
      if (auto alloc = dyn_cast<AllocOp>(op)) {
        if (failed(writeAlloc(alloc, func.getSymName())))
          return failure();
      } else if (auto dispatch = dyn_cast<DispatchOp>(op)) {
        if (failed(writeDispatch(dispatch)))
          return failure();
      } else if (!isa<func::ReturnOp>(op) &&
                 !isa<arith::ArithDialect>(op.getDialect())) {
        return op.emitOpError("is not supported in a host function by the "
                              ".kbm writer (expected kb.alloc, kb.dispatch, "
                              "arith ops and func.return)");
      }
    }
    // Outputs: what a dispatch writes and no later dispatch reads.
    std::vector<fb::Offset<kbm::Output>> outputs;
    for (unsigned i = 0; i < buffers.size(); ++i)
      if (lastWrite[i] >= 0 && lastRead[i] <= lastWrite[i])
        outputs.push_back(kbm::CreateOutput(writer.fbb, i));
    return writer.writeFunction(func.getSymName(), buffers, ops, outputs);
  }
};

} // namespace

namespace {
/// What program.kbm holds at least: FlatBuffers tables and code bytes.
struct KbmSize {
  uint64_t tables = 1; // the Module
  uint64_t bytes = 0;
  uint64_t executables = 0, dispatches = 0;
};
} // namespace

/// An executable: itself, and per variant written (each generated entry is
/// one) the variant, its exports and their binding and constant layouts.
static void countExecutable(ExecutableOp executable, KbmSize &size) {
  uint64_t exportTables = 0;
  for (ExportOp e : executable.getExportOps())
    exportTables += 1 + e.getLayout().getBindings().size() +
                    e.getLayout().getConstants().size();
  size.tables += 1;
  ++size.executables;
  for (VariantOp v : executable.getVariantOps()) {
    uint64_t written = 1;
    if (v.isExternal()) {
      for (Attribute object : v.getObjectsAttr())
        if (auto data = object.dyn_cast<ObjectAttr>())
          size.bytes += data.getData().size();
    } else if (auto generated =
                   v->getAttrOfType<ArrayAttr>(kGeneratedAttrName)) {
      written = std::max<uint64_t>(1, generated.size());
      for (Attribute entry : generated)
        if (auto dict = entry.dyn_cast<DictionaryAttr>())
          if (auto object = dict.getAs<ObjectAttr>("object"))
            size.bytes += object.getData().size();
    }
    size.tables += written * (1 + exportTables);
  }
}

/// A host function written to program.kbm: itself, a Buffer, its InitSpec,
/// an Op and an Alloc per kb.alloc, an Op and a Dispatch per kb.dispatch.
static void countHostFunction(func::FuncOp func, KbmSize &size) {
  if (func.getNumArguments() != 0)
    return; // left out of program.kbm
  size.tables += 1;
  func.walk([&](Operation *op) {
    if (isa<AllocOp>(op))
      size.tables += 4;
    else if (isa<DispatchOp>(op)) {
      size.tables += 2;
      ++size.dispatches;
    }
  });
}

KbmLimits mlir::kb::defaultKbmLimits() {
  return {::kb::kbm::kMaxModuleBytes, ::kb::kbm::kMaxModuleTables};
}

LogicalResult mlir::kb::checkKbmLimits(ModuleOp module,
                                       const KbmLimits &limits) {
  KbmSize size;
  for (auto executable : module.getOps<ExecutableOp>())
    countExecutable(executable, size);
  for (Operation *op : getHostFunctions(module))
    countHostFunction(cast<func::FuncOp>(op), size);
  if (size.tables > limits.maxTables)
    return module.emitError("the program is too large for one .kbm module: "
                            "program.kbm would hold at least ")
           << size.tables << " FlatBuffers tables (" << size.executables
           << " executables, " << size.dispatches
           << " dispatches), over the format's limit of " << limits.maxTables
           << " tables per module (the FlatBuffers verifier kernel-bench "
              "reads modules with); split the program into smaller ones";
  if (size.bytes > limits.maxBytes)
    return module.emitError("the program is too large for one .kbm module: "
                            "its kernels' code alone is ")
           << size.bytes << " bytes, over the format's limit of "
           << limits.maxBytes
           << " bytes per module (a FlatBuffers buffer, just under 2 GiB); "
              "split the program into smaller ones";
  return success();
}

LogicalResult mlir::kb::buildProgramKbm(ModuleOp module, std::string &bytes) {
  // Before the builder: past 2 GiB it would overflow its offsets.
  if (failed(checkKbmLimits(module)))
    return failure();
  ModuleWriter writer;
  std::vector<fb::Offset<kbm::Executable>> executables;
  llvm::StringMap<unsigned> executableIndex;
  for (auto executable : module.getOps<ExecutableOp>()) {
    auto written = writer.writeExecutable(executable);
    if (failed(written))
      return failure();
    executableIndex[executable.getSymName()] = executables.size();
    executables.push_back(*written);
  }
  std::vector<fb::Offset<kbm::Function>> functions;
  std::string entry;
  SymbolTable symbols(module);
  for (Operation *op : getHostFunctions(module)) {
    auto func = cast<func::FuncOp>(op);
    // A function with arguments cannot run without a caller to supply them;
    // its dispatches still get benchmarks where their values are constants.
    if (func.getNumArguments() != 0) {
      func.emitWarning("takes arguments, so it is not written to program.kbm "
                       "(kernel-bench run runs functions without arguments)");
      continue;
    }
    HostFunctionWriter functionWriter{writer, executableIndex, symbols};
    auto written = functionWriter.write(func);
    if (failed(written))
      return failure();
    functions.push_back(*written);
    if (entry.empty() || func.getSymName() == "main")
      entry = func.getSymName().str();
  }
  if (functions.empty())
    return module.emitError(
        "has no function to write as program.kbm: give a model (a "
        "func.func over tensors in tosa or linalg, docs/front-end.md) or a "
        "host function without arguments (func.func with kb.alloc and "
        "kb.dispatch)");
  std::vector<fb::Offset<kbm::Benchmark>> none;
  StringRef name = module.getSymName() ? *module.getSymName() : "program";
  return writer.finish(module, name, executables, functions, entry, none,
                       bytes);
}

namespace {
/// A kb.benchmarks entry's fields and the export it names.
struct BenchmarkFields {
  StringAttr name, executableName, exportName;
  ArrayAttr buffers, constants;
  DenseI64ArrayAttr bindings, workload, workgroupCount;
  ExecutableOp executable;
  ExportOp exportOp;
  unsigned exportIndex = 0;
};
} // namespace

/// Reads |spec| into |fields|; failure after a diagnostic when a field is
/// missing or the export it names does not exist.
static LogicalResult readBenchmarkFields(ModuleOp module, SymbolTable &symbols,
                                         DictionaryAttr spec,
                                         BenchmarkFields &f) {
  f.name = spec.getAs<StringAttr>("name");
  f.executableName = spec.getAs<StringAttr>("executable");
  f.exportName = spec.getAs<StringAttr>("export");
  f.buffers = spec.getAs<ArrayAttr>("buffers");
  f.bindings = spec.getAs<DenseI64ArrayAttr>("bindings");
  f.constants = spec.getAs<ArrayAttr>("constants");
  f.workload = spec.getAs<DenseI64ArrayAttr>("workload");
  f.workgroupCount = spec.getAs<DenseI64ArrayAttr>("workgroup_count");
  if (!f.name || !f.executableName || !f.exportName || !f.buffers ||
      !f.bindings || !f.constants || !f.workload || !f.workgroupCount)
    return module.emitError("malformed ")
           << kBenchmarksAttrName << " entry " << spec;
  f.executable = symbols.lookup<ExecutableOp>(f.executableName.getValue());
  if (f.executable)
    for (auto [i, e] : llvm::enumerate(f.executable.getExportOps()))
      if (e.getSymName() == f.exportName.getValue()) {
        f.exportOp = e;
        f.exportIndex = i;
      }
  if (!f.exportOp)
    return module.emitError("benchmark '")
           << f.name.getValue() << "' names @" << f.executableName.getValue()
           << "::@" << f.exportName.getValue() << ", which does not exist";
  return success();
}

/// Buffer |index| is named after the binding that uses it, as in
/// program.kbm: `<executable>.<binding>`, else `buffer<index>`.
static std::string getBufferName(BenchmarkFields &f, size_t index) {
  ArrayRef<BindingAttr> layout = f.exportOp.getLayout().getBindings();
  for (auto [b, buffer] : llvm::enumerate(f.bindings.asArrayRef()))
    if (buffer == static_cast<int64_t>(index) && b < layout.size())
      if (StringAttr n = layout[b].getName())
        if (!n.getValue().empty())
          return (f.executableName.getValue() + "." + n.getValue()).str();
  return "buffer" + std::to_string(index);
}

/// Writes the benchmark's buffers, one kb.alloc op each, and its outputs.
static LogicalResult
writeBenchmarkBuffers(ModuleWriter &writer, ModuleOp module, BenchmarkFields &f,
                      std::vector<fb::Offset<kbm::Buffer>> &buffers,
                      std::vector<fb::Offset<kbm::Op>> &ops,
                      std::vector<fb::Offset<kbm::Output>> &outputs) {
  for (auto [i, attr] : llvm::enumerate(f.buffers)) {
    auto buffer = attr.cast<DictionaryAttr>();
    std::optional<BindingElementType> type = symbolizeBindingElementType(
        buffer.getAs<StringAttr>("element_type").getValue());
    auto count = buffer.getAs<IntegerAttr>("element_count");
    auto init = buffer.getAs<DictionaryAttr>("init");
    auto output = buffer.getAs<BoolAttr>("output");
    if (!type || !count || !init || !output)
      return module.emitError("malformed buffer in benchmark '")
             << f.name.getValue() << "': " << buffer;
    auto bufferNameOffset = writer.fbb.CreateString(getBufferName(f, i));
    auto initOffset = writer.writeInit(init);
    buffers.push_back(
        kbm::CreateBuffer(writer.fbb, bufferNameOffset, toKbm(*type),
                          count.getValue().getZExtValue(), initOffset));
    ops.push_back(writer.writeAlloc(i));
    if (output.getValue())
      outputs.push_back(kbm::CreateOutput(writer.fbb, i));
  }
  return success();
}

/// The benchmark's constants cast to the export's layout; failure after a
/// diagnostic when one is missing or of another type.
static LogicalResult
readBenchmarkConstants(ModuleOp module, BenchmarkFields &f,
                       SmallVectorImpl<TypedAttr> &values) {
  for (auto [i, c] : llvm::enumerate(f.exportOp.getLayout().getConstants())) {
    TypedAttr value =
        i < f.constants.size()
            ? castToLayout(f.constants[i].cast<TypedAttr>(), c.getType())
            : TypedAttr();
    if (!value)
      return module.emitError("benchmark '")
             << f.name.getValue() << "' has no valid value for constant " << i;
    values.push_back(value);
  }
  return success();
}

/// One benchmark module from a kb.benchmarks entry.
static LogicalResult buildBenchmarkKbm(ModuleOp module, SymbolTable &symbols,
                                       DictionaryAttr spec, KbmFile &file) {
  BenchmarkFields f;
  if (failed(readBenchmarkFields(module, symbols, spec, f)))
    return failure();
  ModuleWriter writer;
  std::vector<fb::Offset<kbm::Executable>> executables;
  auto written = writer.writeExecutable(f.executable);
  if (failed(written))
    return failure();
  executables.push_back(*written);

  std::vector<fb::Offset<kbm::Buffer>> buffers;
  std::vector<fb::Offset<kbm::Op>> ops;
  std::vector<fb::Offset<kbm::Output>> outputs;
  SmallVector<TypedAttr> values;
  if (failed(writeBenchmarkBuffers(writer, module, f, buffers, ops, outputs)) ||
      failed(readBenchmarkConstants(module, f, values)))
    return failure();
  unsigned dispatchOp = ops.size();
  ops.push_back(writer.writeDispatch(
      0, f.exportIndex, f.exportOp, f.bindings.asArrayRef(), values,
      f.workload.asArrayRef(), f.workgroupCount.asArrayRef()));
  StringRef name = f.name.getValue();
  std::vector<fb::Offset<kbm::Function>> functions = {
      writer.writeFunction(name, buffers, ops, outputs)};
  std::vector<fb::Offset<kbm::Benchmark>> benchmarks = {kbm::CreateBenchmark(
      writer.fbb, writer.fbb.CreateString(name.str()), 0, dispatchOp)};
  file.path = ("bench/" + name + ".kbm").str();
  return writer.finish(module, name, executables, functions, "", benchmarks,
                       file.bytes);
}

LogicalResult mlir::kb::buildBenchmarkKbms(ModuleOp module,
                                           SmallVectorImpl<KbmFile> &files) {
  auto benchmarks = module->getAttrOfType<ArrayAttr>(kBenchmarksAttrName);
  if (!benchmarks)
    return success();
  SymbolTable symbols(module);
  for (Attribute attr : benchmarks) {
    auto spec = attr.dyn_cast<DictionaryAttr>();
    if (!spec)
      return module.emitError("malformed ") << kBenchmarksAttrName;
    KbmFile file;
    if (failed(buildBenchmarkKbm(module, symbols, spec, file)))
      return failure();
    files.push_back(std::move(file));
  }
  return success();
}

LogicalResult mlir::kb::buildKbmFiles(ModuleOp module, bool withProgram,
                                      SmallVectorImpl<KbmFile> &files) {
  if (withProgram) {
    KbmFile program{"program.kbm", {}};
    if (failed(buildProgramKbm(module, program.bytes)))
      return failure();
    files.push_back(std::move(program));
  }
  return buildBenchmarkKbms(module, files);
}

LogicalResult mlir::kb::writeKbmFiles(StringRef directory,
                                      ArrayRef<KbmFile> files,
                                      std::string &error) {
  SmallVector<std::string> written;
  auto rollback = [&](std::string message) {
    for (const std::string &path : written)
      llvm::sys::fs::remove(path);
    error = std::move(message);
    return failure();
  };
  llvm::StringSet<> keep;
  for (const KbmFile &file : files) {
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, file.path);
    if (std::error_code ec = llvm::sys::fs::create_directories(
            llvm::sys::path::parent_path(path)))
      return rollback("cannot create directory '" +
                      llvm::sys::path::parent_path(path).str() +
                      "': " + ec.message());
    llvm::SmallString<256> temp(path);
    temp += ".tmp";
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(temp, ec, llvm::sys::fs::OF_None);
      if (ec)
        return rollback("cannot write '" + temp.str().str() +
                        "': " + ec.message());
      os << file.bytes;
      if (std::string failed = closeOutputStream(os, temp); !failed.empty()) {
        llvm::sys::fs::remove(temp);
        return rollback(failed);
      }
    }
    if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
      llvm::sys::fs::remove(temp);
      return rollback("cannot rename '" + temp.str().str() + "' to '" +
                      path.str().str() + "': " + ec.message());
    }
    written.push_back(path.str().str());
    keep.insert(path.str());
  }
  // Benchmarks of an earlier build that this one no longer has would be
  // run by `kernel-bench bench` as if current: remove them.
  llvm::SmallString<256> benchDir(directory);
  llvm::sys::path::append(benchDir, "bench");
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(benchDir, ec), end;
       !ec && it != end; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".kbm" &&
        !keep.contains(it->path()))
      llvm::sys::fs::remove(it->path());
  return success();
}

//===- CpuExecution.cpp - A kernel body run on the host (test-only) -------===//
#include "kb/Codegen/CpuExecution.h"

#include "KernelBody.h"
#include "LlvmLowering.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>
#include <mutex>

using namespace mlir;
using namespace mlir::kb;

static constexpr llvm::StringLiteral kHostFunction = "kb_host_dispatch";

/// Invocations run one after another here, so a body that shares data
/// between the invocations of a workgroup cannot run (phase 1).
static LogicalResult refuseWorkgroupSharing(ExecutableOp executable,
                                            const std::string &what) {
  ModuleOp body = executable.getBodyModule();
  if (!body)
    return executable.emitOpError("has no kernel body module for the ") << what;
  WalkResult walk = body.walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, memref::AllocOp>(op)) {
      op->emitOpError("is not supported by the ")
          << what
          << ": it runs invocations one after another, so bodies with "
             "workgroup barriers or workgroup memory are not covered";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// The value a GPU id op stands for in the loops: an induction variable
/// (thread and block ids), a grid-size parameter, or the workgroup size.
static void replaceGpuIds(func::FuncOp function, ArrayRef<Value> threadIds,
                          ArrayRef<Value> blockIds, ArrayRef<Value> gridDims,
                          ArrayRef<int64_t> workgroupSize) {
  SmallVector<Operation *> ids;
  function.walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp>(
            op))
      ids.push_back(op);
  });
  for (Operation *op : ids) {
    OpBuilder b(op);
    auto dim = [&](gpu::Dimension d) { return static_cast<unsigned>(d); };
    Value replacement;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = threadIds[dim(id.getDimension())];
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = blockIds[dim(id.getDimension())];
    else if (auto count = dyn_cast<gpu::GridDimOp>(op))
      replacement = gridDims[dim(count.getDimension())];
    else
      replacement = b.create<arith::ConstantIndexOp>(
          op->getLoc(),
          workgroupSize[dim(cast<gpu::BlockDimOp>(op).getDimension())]);
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
}

/// `func.func @kb_host_dispatch(<kernel parameters>, %gx, %gy, %gz: index)`
/// running |kernel|'s body once per (workgroup, invocation), x innermost.
static void buildHostFunction(gpu::GPUFuncOp kernel,
                              ArrayRef<int64_t> workgroupSize,
                              ModuleOp hostModule) {
  MLIRContext *context = kernel.getContext();
  Location loc = kernel.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(hostModule.getBody());
  SmallVector<Type> argTypes(kernel.getArgumentTypes());
  argTypes.append(3, b.getIndexType());
  auto function = b.create<func::FuncOp>(loc, kHostFunction,
                                         b.getFunctionType(argTypes, {}));
  function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(context));
  Block *entry = function.addEntryBlock();
  b.setInsertionPointToStart(entry);
  unsigned numKernelArgs = kernel.getNumArguments();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  SmallVector<Value> gridDims, blockIds(3), threadIds(3);
  for (unsigned d = 0; d < 3; ++d)
    gridDims.push_back(entry->getArgument(numKernelArgs + d));
  // z outermost, x innermost: workgroups, then the invocations in each.
  for (int d = 2; d >= 0; --d) {
    auto loop = b.create<scf::ForOp>(loc, zero, gridDims[d], one);
    blockIds[d] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  for (int d = 2; d >= 0; --d) {
    Value size = b.create<arith::ConstantIndexOp>(loc, workgroupSize[d]);
    auto loop = b.create<scf::ForOp>(loc, zero, size, one);
    threadIds[d] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  IRMapping mapping;
  for (unsigned i = 0; i < numKernelArgs; ++i)
    mapping.map(kernel.getArgument(i), entry->getArgument(i));
  for (Operation &op : kernel.getBody().front())
    if (!isa<gpu::ReturnOp>(op))
      b.clone(op, mapping);
  b.setInsertionPointToEnd(entry);
  b.create<func::ReturnOp>(loc);
  replaceGpuIds(function, threadIds, blockIds, gridDims, workgroupSize);
}

/// The host module, lowered to the LLVM dialect with the CUDA codegen's
/// math steps and an index of |indexBitwidth| bits.
static LogicalResult lowerHostModule(ModuleOp hostModule,
                                     unsigned indexBitwidth,
                                     const std::string &what) {
  MLIRContext *context = hostModule.getContext();
  if (failed(codegen::approximateMath(hostModule, what)))
    return failure();
  LowerToLLVMOptions options(context);
  options.overrideIndexBitwidth(indexBitwidth);
  LLVMTypeConverter converter(context, options);
  if (failed(codegen::lowerNativeMath(hostModule, converter)) ||
      failed(codegen::lowerScfToCf(hostModule)))
    return failure();
  RewritePatternSet patterns(context);
  codegen::populateBodyToLlvmPatterns(converter, patterns);
  // What the CUDA codegen would refuse (no libdevice) becomes a libm call.
  populateMathToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*context);
  if (failed(applyPartialConversion(hostModule, target, std::move(patterns))))
    return failure();
  return codegen::reconcileCasts(hostModule);
}

namespace {
/// A 1-D strided memref descriptor as the C interface passes it.
template <typename Index> struct Descriptor {
  void *allocated;
  void *aligned;
  Index offset;
  Index size;
  Index stride;
};

/// The packed arguments of the C interface wrapper: a pointer to each
/// argument (a descriptor pointer, a constant's bits, a grid size).
template <typename Index> struct PackedArguments {
  std::vector<Descriptor<Index>> descriptors;
  std::vector<Descriptor<Index> *> descriptorPointers;
  std::vector<uint64_t> constants;
  std::array<Index, 3> grid;
  std::vector<void *> pointers;

  PackedArguments(const CpuDispatch &dispatch) {
    for (std::vector<uint8_t> &buffer : *dispatch.buffers)
      descriptors.push_back({buffer.data(), buffer.data(), 0,
                             static_cast<Index>(buffer.size()), 1});
    for (Descriptor<Index> &d : descriptors)
      descriptorPointers.push_back(&d);
    // Little-endian: a 32-bit parameter reads the low half of its slot.
    constants = dispatch.constants;
    for (int d = 0; d < 3; ++d)
      grid[d] = static_cast<Index>(dispatch.workgroupCount[d]);
    for (Descriptor<Index> *&p : descriptorPointers)
      pointers.push_back(&p);
    for (uint64_t &c : constants)
      pointers.push_back(&c);
    for (Index &g : grid)
      pointers.push_back(&g);
  }
};
} // namespace

/// LLVM's x86 back end lowers an f32/f64 -> bf16 truncation it meets to a
/// compiler-rt call (__truncsfbf2) that Debian 12's libgcc lacks; these
/// round to nearest even like kb::legalizeBf16Arithmetic (f64 through f32,
/// as it does). The x86-64 ABI returns a bf16 in the low 16 bits of xmm0,
/// which is where a float with those bits returns it.
static float truncateToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t out =
      value != value ? 0x7fc0u : (bits + 0x7fffu + ((bits >> 16) & 1)) >> 16;
  float result;
  std::memcpy(&result, &out, 4);
  return result;
}
static float truncateDoubleToBf16(double value) {
  return truncateToBf16(static_cast<float>(value));
}

static void registerRuntimeCalls(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](const char *name, auto *function) {
      symbols[interner(name)] =
          llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(function),
                                   llvm::JITSymbolFlags::Exported);
    };
    add("__truncsfbf2", &truncateToBf16);
    add("__truncdfbf2", &truncateDoubleToBf16);
    return symbols;
  });
}

static LogicalResult invoke(ExecutionEngine &engine,
                            const CpuDispatch &dispatch,
                            ExecutableOp executable) {
  std::string name = ("_mlir_ciface_" + kHostFunction).str();
  llvm::Error error = llvm::Error::success();
  if (dispatch.indexBitwidth == 32) {
    PackedArguments<int32_t> args(dispatch);
    error = engine.invokePacked(name, args.pointers);
  } else {
    PackedArguments<int64_t> args(dispatch);
    error = engine.invokePacked(name, args.pointers);
  }
  if (error)
    return executable.emitOpError("could not run on the CPU: ")
           << llvm::toString(std::move(error));
  return success();
}

/// The export |dispatch| names, when the dispatch fits its layout.
static FailureOr<ExportOp> findExport(ExecutableOp executable,
                                      const CpuDispatch &dispatch) {
  auto exportOp = executable.lookupSymbol<ExportOp>(dispatch.exportName);
  if (!exportOp)
    return executable.emitOpError("has no export @") << dispatch.exportName;
  if (dispatch.buffers->size() != exportOp.getLayout().getBindings().size() ||
      dispatch.constants.size() != exportOp.getLayout().getConstants().size())
    return exportOp.emitOpError("declares ")
           << exportOp.getLayout().getBindings().size() << " bindings and "
           << exportOp.getLayout().getConstants().size()
           << " constants; the CPU dispatch gives " << dispatch.buffers->size()
           << " and " << dispatch.constants.size();
  return exportOp;
}

/// The host function of |exportOp|, in a module of its own.
static FailureOr<OwningOpRef<ModuleOp>>
buildHostModule(ExecutableOp executable, ExportOp exportOp,
                const std::string &what) {
  FailureOr<OwningOpRef<ModuleOp>> kernels =
      codegen::buildKernelModule(executable, what, codegen::KernelFlavor::Host);
  if (failed(kernels))
    return failure();
  gpu::GPUFuncOp kernel;
  (**kernels).walk([&](gpu::GPUFuncOp f) {
    if (f.getName() == exportOp.getSymName())
      kernel = f;
  });
  OwningOpRef<ModuleOp> hostModule = ModuleOp::create(executable.getLoc());
  buildHostFunction(kernel, exportOp.getWorkgroupSize(), *hostModule);
  return hostModule;
}

LogicalResult mlir::kb::runOnCpu(ExecutableOp executable,
                                 const CpuDispatch &dispatch) {
  std::string what = "CPU execution of kb.executable @" +
                     executable.getSymName().str() + " (index " +
                     std::to_string(dispatch.indexBitwidth) + " bits)";
  FailureOr<ExportOp> exportOp = findExport(executable, dispatch);
  if (failed(exportOp) || failed(refuseWorkgroupSharing(executable, what)))
    return failure();
  FailureOr<OwningOpRef<ModuleOp>> hostModule =
      buildHostModule(executable, *exportOp, what);
  if (failed(hostModule) ||
      failed(lowerHostModule(**hostModule, dispatch.indexBitwidth, what)))
    return failure();

  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  registerLLVMDialectTranslation(*executable.getContext());
  ExecutionEngineOptions options;
  options.llvmModuleBuilder = [](Operation *module, llvm::LLVMContext &ctx) {
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(module, ctx, "kb_host");
    if (llvmModule)
      codegen::accessBf16AsI16(*llvmModule);
    return llvmModule;
  };
  auto engine = ExecutionEngine::create(**hostModule, options);
  if (!engine)
    return executable.emitOpError("could not be compiled for the CPU: ")
           << llvm::toString(engine.takeError());
  registerRuntimeCalls(**engine);
  return invoke(**engine, dispatch, executable);
}

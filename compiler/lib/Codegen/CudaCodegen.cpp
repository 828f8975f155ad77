//===- CudaCodegen.cpp - Kernel body -> NVVM -> LLVM IR -> PTX (+ cubin) --===//
//
// MLIR 16's convert-gpu-to-nvvm has no bare-pointer option, so the lowering
// is assembled here with LowerToLLVMOptions::useBarePtrCallConv (the kernel
// ABI passes one pointer per binding, docs/kernel-abi.md). Math functions are
// approximated by polynomials or lowered to LLVM intrinsics the NVPTX backend
// selects: nothing calls libdevice, which the compiler does not link.
//
//===----------------------------------------------------------------------===//
#include "KernelBody.h"
#include "LlvmLowering.h"
#include "kb/Codegen/Codegen.h"
#include "kb/Codegen/FatalErrorRecovery.h"
#include "kb/Codegen/FloatLegalization.h"
#include "kb/Dialect/KB/IR/KBAbi.h"

#include "common/abi_check.h"
#include "common/ptx_reader.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <mutex>

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb::codegen {
LogicalResult generateCuda(ExecutableOp executable, VariantOp variant,
                           const CodegenOptions &options,
                           SmallVectorImpl<GeneratedBinary> &result);
} // namespace mlir::kb::codegen

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";
// LLVM 16's NVPTX backend knows these architectures (and PTX ISA 7.8); a
// newer requested architecture gets PTX for the newest one it knows, which
// ptxas and the driver compile forward.
static constexpr int kKnownSms[] = {75, 80, 86, 87, 89, 90};
static constexpr const char *kPtxFeatures = "+ptx78";

static std::string pickLlvmCpu(int requested) {
  int chosen = kKnownSms[0];
  for (int sm : kKnownSms)
    if (sm <= requested)
      chosen = sm;
  return "sm_" + std::to_string(chosen);
}

static void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// gpu.module (arith/math/scf/memref/gpu) -> LLVM + NVVM dialects.
static LogicalResult lowerToNvvm(gpu::GPUModuleOp gpuModule,
                                 const std::string &what) {
  MLIRContext *context = gpuModule.getContext();
  if (failed(codegen::approximateMath(gpuModule, what)))
    return failure();

  // #gpu.address_space<workgroup> -> NVVM shared (3), global (1).
  if (failed(codegen::lowerAddressSpaces(
          gpuModule,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::kSharedMemorySpace),
          static_cast<unsigned>(NVVM::NVVMMemorySpace::kGlobalMemorySpace), 0)))
    return failure();

  LowerToLLVMOptions options(context, DataLayout(cast<DataLayoutOpInterface>(
                                          gpuModule.getOperation())));
  options.useBarePtrCallConv = true;
  LLVMTypeConverter converter(context, options);

  if (failed(codegen::lowerNativeMath(gpuModule, converter)))
    return failure();
  // Whatever math is left would become a libdevice call (__nv_*), which
  // the compiler does not link: refuse it at the op.
  WalkResult leftover = gpuModule.walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect())) {
      op->emitOpError("is not supported by the ")
          << what << " (it would need libdevice); use arith/math ops with a "
          << "native or polynomial lowering (exp, log, tanh, erf, sin, cos, "
          << "atan, sqrt, rsqrt, fma, abs, floor, ceil)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (leftover.wasInterrupted())
    return failure();

  if (failed(codegen::lowerScfToCf(gpuModule)))
    return failure();

  {
    RewritePatternSet patterns(context);
    codegen::populateBodyToLlvmPatterns(converter, patterns);
    populateGpuToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*context);
    configureGpuToNVVMConversionLegality(target);
    // configureGpuToNVVMConversionLegality expects these to become libdevice
    // calls; the NVPTX backend selects them natively (abs, ceil, floor,
    // sqrt.rn), and we link no libdevice.
    target.addLegalOp<LLVM::FAbsOp, LLVM::FCeilOp, LLVM::FFloorOp,
                      LLVM::SqrtOp>();
    if (failed(applyPartialConversion(gpuModule, target, std::move(patterns))))
      return failure();
  }
  return codegen::reconcileCasts(gpuModule);
}

/// The first line of LLVM's message (the rest is a SelectionDAG dump)
/// without the node addresses ("Cannot select: 0x5580...: bf16 = fadd
/// 0x5580..., ..."), which differ on every run.
static std::string withoutAddresses(StringRef message) {
  message = message.split('\n').first;
  std::string out;
  while (!message.empty()) {
    size_t at = message.find("0x");
    out += message.take_front(at).str();
    if (at == StringRef::npos)
      break;
    message = message.drop_front(at + 2).ltrim("0123456789abcdef");
    message.consume_front(": ");
    if (StringRef(out).endswith(" ") && message.startswith(","))
      out.pop_back();
  }
  return out;
}

/// `.reqntid x, y, z`: the block size is part of the ABI (docs/kernel-abi.md),
/// and ptxas may use it to allocate registers.
static void addRequiredBlockSize(llvm::Module &module,
                                 ExecutableOp executable) {
  llvm::LLVMContext &context = module.getContext();
  llvm::NamedMDNode *annotations =
      module.getOrInsertNamedMetadata("nvvm.annotations");
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  static const char *const names[3] = {"reqntidx", "reqntidy", "reqntidz"};
  for (ExportOp exportOp : executable.getExportOps()) {
    llvm::Function *function = module.getFunction(exportOp.getSymName());
    if (!function)
      continue;
    ArrayRef<int64_t> size = exportOp.getWorkgroupSize();
    for (int i = 0; i < 3; ++i)
      annotations->addOperand(llvm::MDNode::get(
          context, {llvm::ValueAsMetadata::get(function),
                    llvm::MDString::get(context, names[i]),
                    llvm::ConstantAsMetadata::get(
                        llvm::ConstantInt::get(i32, size[i]))}));
  }
}

/// The kernel body of |variant| lowered to NVVM and translated to LLVM IR
/// in |llvmContext|; failure after a diagnostic.
static FailureOr<std::unique_ptr<llvm::Module>>
translateToLlvm(ExecutableOp executable, VariantOp variant,
                const std::string &what, llvm::LLVMContext &llvmContext) {
  MLIRContext *context = executable.getContext();
  FailureOr<OwningOpRef<ModuleOp>> module = codegen::buildKernelModule(
      executable, variant, codegen::KernelFlavor::Cuda);
  if (failed(module))
    return failure();
  auto gpuModule = *(**module).getOps<gpu::GPUModuleOp>().begin();
  if (failed(lowerToNvvm(gpuModule, what)))
    return variant.emitOpError("failed in the ") << what;
  registerLLVMDialectTranslation(*context);
  registerNVVMDialectTranslation(*context);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(gpuModule, llvmContext, executable.getSymName());
  if (!llvmModule)
    return variant.emitOpError("could not translate to LLVM IR in the ")
           << what;
  return llvmModule;
}

/// The NVPTX target machine for |cpu|; failure after a diagnostic when
/// LLVM was built without the backend.
static FailureOr<std::unique_ptr<llvm::TargetMachine>>
createNvptxMachine(VariantOp variant, StringRef what, StringRef cpu) {
  initializeNvptx();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target)
    return variant.emitOpError("needs LLVM's NVPTX backend for the ")
           << what << ": " << error;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, cpu, kPtxFeatures, llvm::TargetOptions(), std::nullopt,
      std::nullopt, llvm::CodeGenOpt::Aggressive));
}

/// Optimizes |llvmModule| and emits it as |ptx|. LLVM's optimizer and the
/// NVPTX backend stop some inputs with a fatal error ("Cannot select: ... =
/// fadd" on a type the backend lacks, an undefined libcall): that fails
/// this variant, not the process, and leaks what the abandoned run held.
static LogicalResult emitPtx(VariantOp variant, StringRef what,
                             std::unique_ptr<llvm::LLVMContext> &llvmContext,
                             std::unique_ptr<llvm::Module> &llvmModule,
                             std::unique_ptr<llvm::TargetMachine> &machine,
                             llvm::SmallString<0> &ptx) {
  std::string llvmError, fatal;
  bool emitted = false;
  if (failed(runRecoveringFatalErrors(
          [&] {
            auto optimize = makeOptimizingTransformer(3, 0, machine.get());
            if (llvm::Error e = optimize(llvmModule.get())) {
              llvmError = llvm::toString(std::move(e));
              return;
            }
            llvm::raw_svector_ostream stream(ptx);
            llvm::legacy::PassManager passes;
            if (machine->addPassesToEmitFile(passes, stream, nullptr,
                                             llvm::CGFT_AssemblyFile))
              return;
            passes.run(*llvmModule);
            emitted = true;
          },
          fatal))) {
    // The module and pass manager were abandoned mid-run: never free them.
    (void)llvmModule.release();
    (void)machine.release();
    (void)llvmContext.release();
    return variant.emitOpError("stopped LLVM with a fatal error in the ")
           << what << " (variant @" << variant.getSymName()
           << "): " << withoutAddresses(fatal);
  }
  if (!llvmError.empty())
    return variant.emitOpError("LLVM optimization failed in the ")
           << what << ": " << llvmError;
  if (!emitted)
    return variant.emitOpError("the NVPTX backend cannot emit PTX for the ")
           << what;
  return success();
}

/// The generated PTX must fit the same ABI check a handwritten one does.
static LogicalResult checkGeneratedPtx(ExecutableOp executable,
                                       VariantOp variant, StringRef what,
                                       StringRef ptx) {
  ::kb::StatusOr<::kb::PtxModule> parsed = ::kb::readPtx(ptx.str());
  if (!parsed.ok())
    return variant.emitOpError("produced PTX the ABI reader rejects in the ")
           << what << ": " << parsed.status().message();
  for (ExportOp exportOp : executable.getExportOps()) {
    std::vector<::kb::AbiMismatch> mismatches = ::kb::checkPtxAbi(
        *parsed, getKernelAbi(exportOp, exportOp.getSymName()));
    if (!mismatches.empty())
      return exportOp.emitOpError("generated PTX does not match the export's "
                                  "ABI in the ")
             << what << ":\n"
             << ::kb::formatMismatches(mismatches);
  }
  return success();
}

/// Adds the cubin of |ptx| when asked for and ptxas is found (PTX alone
/// works too: the driver JIT-compiles it).
static LogicalResult addCubin(VariantOp variant, StringRef what,
                              const CodegenOptions &options, StringRef ptx,
                              SmallVectorImpl<GeneratedBinary> &result) {
  if (!options.emitCubin)
    return success();
  std::optional<std::string> ptxas = findPtxas(options.ptxasPath);
  if (!ptxas)
    return success();
  std::string cubin, ptxasError;
  if (failed(runPtxas(*ptxas, ptx, variant.getArch(), cubin, ptxasError)))
    return variant.emitOpError("ptxas rejected the PTX of the ")
           << what << " (-arch=" << variant.getArch() << "): " << ptxasError;
  result.push_back({"cubin", variant.getArch().str(), std::move(cubin)});
  return success();
}

LogicalResult codegen::generateCuda(ExecutableOp executable, VariantOp variant,
                                    const CodegenOptions &options,
                                    SmallVectorImpl<GeneratedBinary> &result) {
  std::string what = describeCodegen(executable, variant);
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      translateToLlvm(executable, variant, what, *llvmContext);
  if (failed(llvmModule))
    return failure();
  std::string cpu = pickLlvmCpu(getTarget(variant)->smNumber());
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createNvptxMachine(variant, what, cpu);
  if (failed(machine))
    return failure();
  (*llvmModule)->setTargetTriple(kTriple);
  (*llvmModule)->setDataLayout((*machine)->createDataLayout());
  addRequiredBlockSize(**llvmModule, executable);
  codegen::accessBf16AsI16(**llvmModule);

  llvm::SmallString<0> ptx;
  if (failed(emitPtx(variant, what, llvmContext, *llvmModule, *machine, ptx)) ||
      failed(checkGeneratedPtx(executable, variant, what, ptx)))
    return failure();
  result.push_back({"ptx", cpu, ptx.str().str()});
  return addCubin(variant, what, options, ptx, result);
}

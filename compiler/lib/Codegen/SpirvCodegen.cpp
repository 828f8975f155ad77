//===- SpirvCodegen.cpp - Kernel body -> SPIR-V dialect -> SPIR-V words ---===//
//
// The pieces of convert-gpu-to-spirv assembled by hand so that constants
// can become one push-constant block (MLIR 16 would make scalar kernel
// arguments storage buffers), then spirv-lower-abi-attrs and
// spirv-update-vce, then serialization (docs/building.md).
//
//===----------------------------------------------------------------------===//
#include "KernelBody.h"
#include "kb/Codegen/Codegen.h"
#include "kb/Codegen/ZeroTripLoops.h"
#include "kb/Dialect/KB/IR/KBAbi.h"

#include "common/abi_check.h"
#include "common/spirv_reader.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Conversion/ControlFlowToSPIRV/ControlFlowToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb::codegen {
LogicalResult generateSpirv(ExecutableOp executable, VariantOp variant,
                            SmallVectorImpl<GeneratedBinary> &result);
} // namespace mlir::kb::codegen

static constexpr llvm::StringLiteral kPushConstantsName = "__kb_push_constants";

/// The environment's newest SPIR-V version and its capabilities
/// (common/target.h); update-vce lowers the module to the smallest version
/// and the capabilities its ops need.
static spirv::TargetEnvAttr getTargetEnv(MLIRContext *context,
                                         const ::kb::Target &target) {
  ::kb::SpirvEnvironment env = target.spirvEnvironment();
  // spirv::Version counts minor versions of SPIR-V 1 from V_1_0 = 0.
  auto version = static_cast<spirv::Version>((env.version >> 8) & 0xff);
  SmallVector<spirv::Capability> capabilities;
  for (const ::kb::SpirvCapability &c : env.capabilities)
    capabilities.push_back(*spirv::symbolizeCapability(c.id));
  SmallVector<spirv::Extension> extensions;
  for (const std::string &name : env.extensions)
    extensions.push_back(*spirv::symbolizeExtension(name));
  auto triple =
      spirv::VerCapExtAttr::get(version, capabilities, extensions, context);
  return spirv::TargetEnvAttr::get(triple,
                                   spirv::getDefaultResourceLimits(context),
                                   spirv::ClientAPI::Vulkan);
}

/// MLIR 16's arith-to-spirv refuses unsigned ops on `index` ("bitwidth
/// emulation is not implemented yet on unsigned op", its bit width check does
/// not handle index). The same op on i32 (what index converts to) does:
/// cast the operands, compute, cast back.
static void rewriteUnsignedIndexOps(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    bool unsignedOp =
        isa<arith::DivUIOp, arith::RemUIOp, arith::ShRUIOp, arith::CeilDivUIOp,
            arith::MinUIOp, arith::MaxUIOp>(op);
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      unsignedOp = cmp.getPredicate() == arith::CmpIPredicate::ult ||
                   cmp.getPredicate() == arith::CmpIPredicate::ule ||
                   cmp.getPredicate() == arith::CmpIPredicate::ugt ||
                   cmp.getPredicate() == arith::CmpIPredicate::uge;
    if (unsignedOp && op->getNumOperands() == 2 &&
        op->getOperand(0).getType().isIndex())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Type i64 = b.getI32Type();
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(b.create<arith::IndexCastOp>(op->getLoc(), i64, v));
    Operation *wide = b.clone(*op);
    wide->setOperands(operands);
    if (!isa<arith::CmpIOp>(op)) {
      wide->getResult(0).setType(i64);
      Value back = b.create<arith::IndexCastOp>(op->getLoc(), b.getIndexType(),
                                                wide->getResult(0));
      op->getResult(0).replaceAllUsesWith(back);
    } else {
      op->getResult(0).replaceAllUsesWith(wide->getResult(0));
    }
    op->erase();
  }
}

/// Two integer ops whose SPIR-V is wrong on a path the differential test
/// (kb/Testing/Differential.h) found, rewritten before conversion:
///  - MLIR 16 lowers arith.remsi to |a| umod |b| negated when a != |a|,
///    which is false for INT_MIN (remsi(-128, 95) gave +33, not -33):
///    a - (a / b) * b instead (SDiv truncates toward zero, as remsi does).
///  - lavapipe (Mesa 22.3, LLVM 15) miscompares an OpSConvert to i64 with
///    OpSLessThan (0 < 6 was false): the sign extension is written as
///    shifts of the zero extension, which every driver gets right.
static void rewriteMiscompiledIntegerOps(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    auto ext = dyn_cast<arith::ExtSIOp>(op);
    if (isa<arith::RemSIOp>(op) || (ext && ext.getType().isInteger(64) &&
                                    ext.getIn().getType().isa<IntegerType>()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value replacement;
    if (auto rem = dyn_cast<arith::RemSIOp>(op)) {
      Value quotient =
          b.create<arith::DivSIOp>(loc, rem.getLhs(), rem.getRhs());
      Value product = b.create<arith::MulIOp>(loc, quotient, rem.getRhs());
      replacement = b.create<arith::SubIOp>(loc, rem.getLhs(), product);
    } else {
      auto ext = cast<arith::ExtSIOp>(op);
      unsigned shift = 64 - ext.getIn().getType().getIntOrFloatBitWidth();
      Value wide = b.create<arith::ExtUIOp>(loc, ext.getType(), ext.getIn());
      Value amount = b.create<arith::ConstantIntOp>(loc, shift, 64);
      Value high = b.create<arith::ShLIOp>(loc, wide, amount);
      replacement = b.create<arith::ShRSIOp>(loc, high, amount);
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
}

/// gpu.module -> spirv.module (replaces the gpu.module in |module|).
static LogicalResult convertToSpirv(ModuleOp module,
                                    gpu::GPUModuleOp gpuModule) {
  MLIRContext *context = module.getContext();
  // #gpu.address_space -> the numbers mapMemorySpaceToVulkanStorageClass
  // knows: Workgroup 3, StorageBuffer 0, Function 6.
  if (failed(codegen::lowerAddressSpaces(gpuModule, 3, 0, 6)))
    return failure();
  rewriteUnsignedIndexOps(gpuModule);
  rewriteMiscompiledIntegerOps(gpuModule);
  guardZeroTripLoops(gpuModule);
  {
    spirv::MemorySpaceToStorageClassConverter converter(
        spirv::mapMemorySpaceToVulkanStorageClass);
    RewritePatternSet patterns(context);
    spirv::populateMemorySpaceToStorageClassPatterns(converter, patterns);
    std::unique_ptr<ConversionTarget> target =
        spirv::getMemorySpaceToStorageClassTarget(*context);
    if (failed(applyFullConversion(gpuModule, *target, std::move(patterns))))
      return failure();
  }
  spirv::TargetEnvAttr targetEnv = spirv::lookupTargetEnvOrDefault(gpuModule);
  std::unique_ptr<SPIRVConversionTarget> target =
      SPIRVConversionTarget::get(targetEnv);
  target->addDynamicallyLegalOp<UnrealizedConversionCastOp>(
      [](UnrealizedConversionCastOp op) {
        return op->hasAttr(codegen::kPushConstantAttr);
      });
  // index is 32-bit (the default): MLIR 16 derives the GPU builtins'
  // type from it, and Vulkan requires 32-bit WorkgroupId/LocalInvocationId.
  SPIRVTypeConverter typeConverter(targetEnv);
  ScfToSPIRVContext scfContext;
  RewritePatternSet patterns(context);
  populateGPUToSPIRVPatterns(typeConverter, patterns);
  arith::populateArithToSPIRVPatterns(typeConverter, patterns);
  populateMemRefToSPIRVPatterns(typeConverter, patterns);
  populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
  populateMathToSPIRVPatterns(typeConverter, patterns);
  cf::populateControlFlowToSPIRVPatterns(typeConverter, patterns);
  populateFuncToSPIRVPatterns(typeConverter, patterns);
  return applyFullConversion(gpuModule.getOperation(), *target,
                             std::move(patterns));
}

/// The export whose constants the push-constant block holds: one block per
/// module (the ABI reader allows one), so every export with constants must
/// declare the same ones; failure after a diagnostic when two differ.
static FailureOr<ExportOp> findConstantsExport(ExecutableOp executable,
                                               VariantOp variant) {
  ExportOp layoutExport;
  for (ExportOp exportOp : executable.getExportOps()) {
    if (exportOp.getLayout().getConstants().empty())
      continue;
    if (layoutExport && layoutExport.getLayout().getConstants() !=
                            exportOp.getLayout().getConstants())
      return exportOp.emitOpError("declares constants different from export @")
             << layoutExport.getSymName() << "; the "
             << codegen::describeCodegen(executable, variant)
             << " puts constants in one push-constant block per module, so "
                "every export must declare the same constants";
    layoutExport = exportOp;
  }
  return layoutExport;
}

/// The push-constant block variable of |layoutExport|'s constants, at
/// kb::pushConstantLayout offsets, first in |spirvModule|.
static spirv::GlobalVariableOp
createPushConstantBlock(spirv::ModuleOp spirvModule, ExportOp layoutExport) {
  MLIRContext *context = spirvModule.getContext();
  ::kb::KernelAbi abi = getKernelAbi(layoutExport, layoutExport.getSymName());
  std::vector<::kb::ParamSlot> slots = ::kb::pushConstantLayout(abi);
  SmallVector<Type> members;
  SmallVector<spirv::StructType::OffsetInfo> offsets;
  for (auto [i, constant] :
       llvm::enumerate(layoutExport.getLayout().getConstants())) {
    members.push_back(codegen::getConstantType(context, constant.getType()));
    offsets.push_back(slots[i].offset);
  }
  auto structType = spirv::StructType::get(members, offsets);
  auto pointerType =
      spirv::PointerType::get(structType, spirv::StorageClass::PushConstant);
  OpBuilder builder = OpBuilder::atBlockBegin(spirvModule.getBody());
  return builder.create<spirv::GlobalVariableOp>(
      spirvModule.getLoc(), TypeAttr::get(pointerType),
      builder.getStringAttr(kPushConstantsName));
}

/// Replaces the constant placeholders with loads from one push-constant
/// block laid out at kb::pushConstantLayout offsets.
static LogicalResult lowerPushConstants(ExecutableOp executable,
                                        VariantOp variant,
                                        spirv::ModuleOp spirvModule) {
  SmallVector<UnrealizedConversionCastOp> placeholders;
  spirvModule.walk([&](UnrealizedConversionCastOp op) {
    if (op->hasAttr(codegen::kPushConstantAttr))
      placeholders.push_back(op);
  });
  if (placeholders.empty())
    return success();
  FailureOr<ExportOp> layoutExport = findConstantsExport(executable, variant);
  if (failed(layoutExport))
    return failure();
  spirv::GlobalVariableOp variable =
      createPushConstantBlock(spirvModule, *layoutExport);

  OpBuilder builder(executable.getContext());
  auto i32 = builder.getI32Type();
  for (UnrealizedConversionCastOp op : placeholders) {
    int64_t index =
        op->getAttrOfType<IntegerAttr>(codegen::kPushConstantAttr).getInt();
    builder.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value base = builder.create<spirv::AddressOfOp>(loc, variable);
    Value member = builder.create<spirv::ConstantOp>(
        loc, i32, builder.getI32IntegerAttr(static_cast<int32_t>(index)));
    Value pointer =
        builder.create<spirv::AccessChainOp>(loc, base, ValueRange{member});
    Value value = builder.create<spirv::LoadOp>(loc, pointer);
    op.getResult(0).replaceAllUsesWith(value);
    op.erase();
  }
  return success();
}

/// MLIR 16's serializer writes the word of an i8/i16 constant sign-extended,
/// which spirv-val rejects for a negative one (the high bits of a narrow
/// integer's word must be 0): such a constant becomes the i32 constant of
/// its bits narrowed by OpUConvert.
static void widenNegativeNarrowConstants(spirv::ModuleOp spirvModule) {
  SmallVector<spirv::ConstantOp> constants;
  spirvModule.walk([&](spirv::ConstantOp op) {
    auto type = op.getType().dyn_cast<IntegerType>();
    auto value = op.getValue().dyn_cast<IntegerAttr>();
    if (type && value && type.getWidth() > 1 && type.getWidth() < 32 &&
        value.getValue().isNegative())
      constants.push_back(op);
  });
  for (spirv::ConstantOp op : constants) {
    OpBuilder b(op);
    uint64_t bits = op.getValue().cast<IntegerAttr>().getValue().getZExtValue();
    Value wide = b.create<spirv::ConstantOp>(
        op.getLoc(), b.getI32Type(),
        b.getI32IntegerAttr(static_cast<int32_t>(bits)));
    Value narrow = b.create<spirv::UConvertOp>(op.getLoc(), op.getType(), wide);
    op.getResult().replaceAllUsesWith(narrow);
    op.erase();
  }
}

/// SPIR-V for Vulkan 1.x has no bf16 type: MLIR's conversion fails with
/// "failed to legalize 'gpu.func'". Say so at the first op that uses it.
static LogicalResult refuseBf16(ExecutableOp executable,
                                const std::string &what) {
  ModuleOp body = executable.getBodyModule();
  if (!body)
    return success();
  auto isBf16 = [](Type t) { return getElementTypeOrSelf(t).isBF16(); };
  WalkResult walk = body.walk([&](Operation *op) {
    if (llvm::any_of(op->getOperandTypes(), isBf16) ||
        llvm::any_of(op->getResultTypes(), isBf16)) {
      op->emitOpError("uses bf16, which the ")
          << what
          << " cannot express (SPIR-V for Vulkan has no bf16 type); keep bf16 "
             "to CUDA targets, or convert to f16 or f32 for Vulkan";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult codegen::generateSpirv(ExecutableOp executable, VariantOp variant,
                                     SmallVectorImpl<GeneratedBinary> &result) {
  std::string what = describeCodegen(executable, variant);
  MLIRContext *context = executable.getContext();
  if (failed(refuseBf16(executable, what)))
    return failure();
  FailureOr<OwningOpRef<ModuleOp>> built =
      buildKernelModule(executable, variant, KernelFlavor::Vulkan);
  if (failed(built))
    return failure();
  ModuleOp module = **built;
  auto gpuModule = *module.getOps<gpu::GPUModuleOp>().begin();
  gpuModule->setAttr(spirv::getTargetEnvAttrName(),
                     getTargetEnv(context, *getTarget(variant)));
  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
    auto exportOp =
        cast<ExportOp>(SymbolTable::lookupSymbolIn(executable, func.getName()));
    SmallVector<int32_t, 3> size;
    for (int64_t s : exportOp.getWorkgroupSize())
      size.push_back(static_cast<int32_t>(s));
    func->setAttr(spirv::getEntryPointABIAttrName(),
                  spirv::getEntryPointABIAttr(context, size));
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.setArgAttr(
          i, spirv::getInterfaceVarABIAttrName(),
          spirv::getInterfaceVarABIAttr(0, i, std::nullopt, context));
  }

  if (failed(convertToSpirv(module, gpuModule)))
    return variant.emitOpError("failed in the ") << what;
  auto spirvModules = module.getOps<spirv::ModuleOp>();
  if (spirvModules.empty())
    return variant.emitOpError("produced no spirv.module in the ") << what;
  spirv::ModuleOp spirvModule = *spirvModules.begin();
  widenNegativeNarrowConstants(spirvModule);
  if (failed(lowerPushConstants(executable, variant, spirvModule)))
    return failure();

  PassManager pm(context, ModuleOp::getOperationName());
  OpPassManager &nested = pm.nest<spirv::ModuleOp>();
  nested.addPass(spirv::createSPIRVLowerABIAttributesPass());
  nested.addPass(spirv::createSPIRVUpdateVCEPass());
  if (failed(pm.run(module)))
    return variant.emitOpError("failed to finalize the SPIR-V module in the ")
           << what;

  // Read-only bindings are NonWritable (the ABI check requires it).
  for (ExportOp exportOp : executable.getExportOps())
    for (auto [i, binding] :
         llvm::enumerate(exportOp.getLayout().getBindings()))
      if (binding.getAccess() == BindingAccess::ReadOnly)
        spirvModule.walk([&, i = i](spirv::GlobalVariableOp var) {
          if (var.getBinding() == i && var.getDescriptorSet() == 0u)
            var->setAttr("non_writable", UnitAttr::get(context));
        });

  SmallVector<uint32_t, 0> words;
  if (failed(spirv::serialize(spirvModule, words)))
    return variant.emitOpError("SPIR-V serialization failed in the ") << what;

  ::kb::StatusOr<::kb::SpirvModule> parsed =
      ::kb::readSpirv(words.data(), words.size());
  if (!parsed.ok())
    return variant.emitOpError("produced SPIR-V the ABI reader rejects in the ")
           << what << ": " << parsed.status().message();
  for (ExportOp exportOp : executable.getExportOps()) {
    std::vector<::kb::AbiMismatch> mismatches = ::kb::checkSpirvAbi(
        *parsed, getKernelAbi(exportOp, exportOp.getSymName()));
    if (!mismatches.empty())
      return exportOp.emitOpError("generated SPIR-V does not match the "
                                  "export's ABI in the ")
             << what << ":\n"
             << ::kb::formatMismatches(mismatches);
  }
  std::string bytes(reinterpret_cast<const char *>(words.data()),
                    words.size() * sizeof(uint32_t));
  result.push_back({"spv", variant.getArch().str(), std::move(bytes)});
  return success();
}

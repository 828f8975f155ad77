//===- KernelBody.cpp - Kernel body -> gpu.func with the kernel ABI ------===//
#include "KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::kb;

std::string codegen::describeCodegen(ExecutableOp executable,
                                     VariantOp variant) {
  return variant.getTargetString() + " codegen of kb.executable @" +
         executable.getSymName().str();
}

/// Workgroup memory: a static `memref.alloc` in #gpu.address_space<workgroup>
/// directly in the kernel body (not in a loop or branch).
static bool isWorkgroupAlloc(memref::AllocOp alloc) {
  auto space = alloc.getType()
                   .getMemorySpace()
                   .dyn_cast_or_null<gpu::AddressSpaceAttr>();
  return space && space.getValue() == gpu::AddressSpace::Workgroup &&
         alloc.getType().hasStaticShape() &&
         isa<func::FuncOp>(alloc->getParentOp());
}

/// The ops both lowerings handle. Everything else is refused up front with a
/// message at the op, instead of a "failed to legalize" from deep inside a
/// conversion.
static bool isSupportedBodyOp(Operation *op) {
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return true;
  if (auto alloc = dyn_cast<memref::AllocOp>(op))
    return isWorkgroupAlloc(alloc);
  return isa<scf::ForOp, scf::IfOp, scf::YieldOp, scf::WhileOp,
             scf::ConditionOp, memref::LoadOp, memref::StoreOp, gpu::ThreadIdOp,
             gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp, gpu::BarrierOp,
             func::ReturnOp, BindingOp, ConstantOp, WorkgroupIdOp,
             WorkgroupCountOp, WorkgroupSizeOp>(op);
}

static constexpr const char *kSupportedOpsText =
    "arith and math ops, scf.for/if/while, memref.load/store, "
    "memref.alloc of static workgroup memory (#gpu.address_space<workgroup>) "
    "at the top of the body, "
    "gpu.thread_id/block_id/block_dim/grid_dim/barrier, kb.binding, "
    "kb.constant, kb.workgroup_id/count/size";

static gpu::Dimension toGpu(Dimension d) {
  switch (d) {
  case Dimension::X:
    return gpu::Dimension::x;
  case Dimension::Y:
    return gpu::Dimension::y;
  case Dimension::Z:
    return gpu::Dimension::z;
  }
  llvm_unreachable("unknown dimension");
}

/// The signless MLIR type a binding's elements load as.
static Type getBindingElementType(MLIRContext *context,
                                  BindingElementType type) {
  switch (type) {
  case BindingElementType::I8:
  case BindingElementType::U8:
    return IntegerType::get(context, 8);
  case BindingElementType::I16:
  case BindingElementType::U16:
    return IntegerType::get(context, 16);
  case BindingElementType::I32:
  case BindingElementType::U32:
    return IntegerType::get(context, 32);
  case BindingElementType::I64:
  case BindingElementType::U64:
    return IntegerType::get(context, 64);
  case BindingElementType::F16:
    return FloatType::getF16(context);
  case BindingElementType::BF16:
    return FloatType::getBF16(context);
  case BindingElementType::F32:
    return FloatType::getF32(context);
  case BindingElementType::F64:
    return FloatType::getF64(context);
  }
  llvm_unreachable("unknown element type");
}

Type codegen::getConstantType(MLIRContext *context, ConstantType type) {
  switch (type) {
  case ConstantType::I32:
  case ConstantType::U32:
    return IntegerType::get(context, 32);
  case ConstantType::I64:
  case ConstantType::U64:
    return IntegerType::get(context, 64);
  case ConstantType::F32:
    return FloatType::getF32(context);
  case ConstantType::F64:
    return FloatType::getF64(context);
  }
  llvm_unreachable("unknown constant type");
}

/// Identity-layout strides of |shape|, or failure when a stride depends on a
/// dynamic size (only the leading dimension of a binding may be dynamic: the
/// ABI passes no sizes).
static FailureOr<SmallVector<int64_t>>
getStaticStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t running = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = running;
    if (i > 0 && ShapedType::isDynamic(shape[i]))
      return failure();
    if (i > 0)
      running *= shape[i];
  }
  return strides;
}

/// Refuses unsupported body ops and returns the memref type of each binding
/// (an unused binding still occupies its ABI slot: a dynamic 1-D memref of
/// its element type).
static FailureOr<SmallVector<MemRefType>>
collectBindingTypes(func::FuncOp body, ExportOp exportOp,
                    const std::string &what) {
  MLIRContext *context = body.getContext();
  LayoutAttr layout = exportOp.getLayout();
  SmallVector<MemRefType> bindingTypes(layout.getBindings().size());
  WalkResult walk = body.walk([&](Operation *op) -> WalkResult {
    if (op == body.getOperation())
      return WalkResult::advance();
    if (!isSupportedBodyOp(op)) {
      op->emitOpError("is not supported by the ")
          << what << " (export @" << exportOp.getSymName()
          << "); kernel bodies may use " << kSupportedOpsText;
      return WalkResult::interrupt();
    }
    auto binding = dyn_cast<BindingOp>(op);
    if (!binding)
      return WalkResult::advance();
    auto type = binding.getType().cast<MemRefType>();
    MemRefType &slot = bindingTypes[binding.getIndex()];
    if (slot && slot != type) {
      binding.emitOpError("gives binding ")
          << binding.getIndex() << " type " << type
          << " but another kb.binding gives it " << slot << "; the " << what
          << " needs one type per binding";
      return WalkResult::interrupt();
    }
    if (!type.getLayout().isIdentity() || type.getMemorySpace()) {
      binding.emitOpError("has type ")
          << type << "; the " << what
          << " needs an identity-layout memref in the default memory space";
      return WalkResult::interrupt();
    }
    if (failed(getStaticStrides(type.getShape()))) {
      binding.emitOpError("has type ")
          << type << "; only the leading dimension of a binding may be "
          << "dynamic in the " << what
          << " (the ABI passes no sizes: pass them as constants)";
      return WalkResult::interrupt();
    }
    slot = type;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [i, binding] : llvm::enumerate(layout.getBindings()))
    if (!bindingTypes[i])
      bindingTypes[i] = MemRefType::get(
          {ShapedType::kDynamic},
          getBindingElementType(context, binding.getElementType()));
  return bindingTypes;
}

/// The kernel's parameters: bindings (CUDA's bare pointers need a static
/// shape: the body sees its own type through a reinterpret_cast), then on
/// CUDA the constants (Vulkan passes them as push constants).
static SmallVector<Type> kernelArgumentTypes(ArrayRef<MemRefType> bindingTypes,
                                             ArrayRef<Type> constantTypes,
                                             codegen::KernelFlavor flavor) {
  SmallVector<Type> argTypes;
  for (MemRefType type : bindingTypes) {
    if (flavor == codegen::KernelFlavor::Host) {
      argTypes.push_back(
          MemRefType::get({ShapedType::kDynamic}, type.getElementType()));
    } else if (flavor == codegen::KernelFlavor::Cuda &&
               !type.hasStaticShape()) {
      SmallVector<int64_t> shape(type.getShape());
      shape[0] = 1;
      argTypes.push_back(MemRefType::get(shape, type.getElementType()));
    } else {
      argTypes.push_back(type);
    }
  }
  if (flavor != codegen::KernelFlavor::Vulkan)
    argTypes.append(constantTypes.begin(), constantTypes.end());
  return argTypes;
}

/// The value each kb.binding stands for: the parameter, re-typed as the
/// body's dynamic memref where they differ. The dynamic size is unknown (not
/// part of the ABI) and unused by load/store; 1 keeps the descriptor well
/// formed.
static SmallVector<Value> bindingValues(OpBuilder &builder, Location loc,
                                        Block &entry,
                                        ArrayRef<MemRefType> bindingTypes) {
  SmallVector<Value> values;
  for (auto [i, type] : llvm::enumerate(bindingTypes)) {
    Value arg = entry.getArgument(i);
    if (arg.getType() == type) {
      values.push_back(arg);
      continue;
    }
    SmallVector<OpFoldResult> sizes;
    for (int64_t dim : type.getShape())
      sizes.push_back(
          ShapedType::isDynamic(dim)
              ? OpFoldResult(
                    builder.create<arith::ConstantIndexOp>(loc, 1).getResult())
              : OpFoldResult(builder.getIndexAttr(dim)));
    SmallVector<OpFoldResult> strides;
    for (int64_t stride : *getStaticStrides(type.getShape()))
      strides.push_back(builder.getIndexAttr(stride));
    values.push_back(builder.create<memref::ReinterpretCastOp>(
        loc, type, arg, builder.getIndexAttr(0), sizes, strides));
  }
  return values;
}

/// The value each kb.constant stands for: on CUDA the parameter after the
/// bindings; on Vulkan a placeholder the SPIR-V lowering turns into a load
/// of push-constant member i.
static SmallVector<Value> constantValues(OpBuilder &builder, Location loc,
                                         Block &entry, size_t numBindings,
                                         ArrayRef<Type> constantTypes,
                                         codegen::KernelFlavor flavor) {
  SmallVector<Value> values;
  for (auto [i, type] : llvm::enumerate(constantTypes)) {
    if (flavor != codegen::KernelFlavor::Vulkan) {
      values.push_back(entry.getArgument(numBindings + i));
      continue;
    }
    auto placeholder = builder.create<UnrealizedConversionCastOp>(
        loc, TypeRange{type}, ValueRange{});
    placeholder->setAttr(codegen::kPushConstantAttr,
                         builder.getI64IntegerAttr(i));
    values.push_back(placeholder.getResult(0));
  }
  return values;
}

/// Replaces the kb interface ops cloned into |gpuFunc| by the kernel's
/// parameters and GPU ids.
static void replaceInterfaceOps(gpu::GPUFuncOp gpuFunc,
                                ArrayRef<Value> bindings,
                                ArrayRef<Value> constants,
                                ArrayRef<int64_t> workgroupSize) {
  SmallVector<Operation *> interfaceOps;
  gpuFunc.walk([&](Operation *op) {
    if (isa<BindingOp, ConstantOp, WorkgroupIdOp, WorkgroupCountOp,
            WorkgroupSizeOp>(op))
      interfaceOps.push_back(op);
  });
  for (Operation *op : interfaceOps) {
    OpBuilder b(op);
    Value replacement;
    if (auto binding = dyn_cast<BindingOp>(op))
      replacement = bindings[binding.getIndex()];
    else if (auto constant = dyn_cast<ConstantOp>(op))
      replacement = constants[constant.getIndex()];
    else if (auto id = dyn_cast<WorkgroupIdOp>(op))
      replacement = b.create<gpu::BlockIdOp>(op->getLoc(), b.getIndexType(),
                                             toGpu(id.getDimension()));
    else if (auto count = dyn_cast<WorkgroupCountOp>(op))
      replacement = b.create<gpu::GridDimOp>(op->getLoc(), b.getIndexType(),
                                             toGpu(count.getDimension()));
    else if (auto size = dyn_cast<WorkgroupSizeOp>(op))
      replacement = b.create<arith::ConstantIndexOp>(
          op->getLoc(), workgroupSize[static_cast<int>(size.getDimension())]);
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
}

/// Builds the gpu.func of |exportOp| in |gpuModule|.
static LogicalResult buildKernel(ExecutableOp executable,
                                 const std::string &what, ExportOp exportOp,
                                 func::FuncOp body, gpu::GPUModuleOp gpuModule,
                                 codegen::KernelFlavor flavor) {
  MLIRContext *context = executable.getContext();
  if (!body.getBody().hasOneBlock())
    return body.emitOpError("has ")
           << body.getBody().getBlocks().size() << " blocks; the " << what
           << " needs a single-block kernel body (use scf ops for control "
              "flow)";
  FailureOr<SmallVector<MemRefType>> bindingTypes =
      collectBindingTypes(body, exportOp, what);
  if (failed(bindingTypes))
    return failure();
  SmallVector<Type> constantTypes;
  for (ConstantAttr constant : exportOp.getLayout().getConstants())
    constantTypes.push_back(
        codegen::getConstantType(context, constant.getType()));

  // CUDA: workgroup memory becomes workgroup attributions of the gpu.func
  // (shared-memory globals after lowering). Vulkan keeps the allocs, which
  // the SPIR-V lowering turns into Workgroup variables.
  SmallVector<memref::AllocOp> workgroupAllocs;
  SmallVector<Type> workgroupTypes;
  if (flavor == codegen::KernelFlavor::Cuda)
    for (auto alloc : body.getBody().front().getOps<memref::AllocOp>()) {
      workgroupAllocs.push_back(alloc);
      workgroupTypes.push_back(alloc.getType());
    }

  OpBuilder builder = OpBuilder::atBlockEnd(gpuModule.getBody());
  auto gpuFunc = builder.create<gpu::GPUFuncOp>(
      body.getLoc(), exportOp.getSymName(),
      builder.getFunctionType(
          kernelArgumentTypes(*bindingTypes, constantTypes, flavor), {}),
      workgroupTypes);
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                   builder.getUnitAttr());
  Block &entry = gpuFunc.getBody().front();
  builder.setInsertionPointToStart(&entry);
  Location loc = body.getLoc();
  SmallVector<Value> bindings =
      bindingValues(builder, loc, entry, *bindingTypes);
  SmallVector<Value> constants = constantValues(
      builder, loc, entry, bindingTypes->size(), constantTypes, flavor);

  // Clone the body, then replace the interface ops.
  IRMapping mapping;
  for (auto [alloc, attribution] :
       llvm::zip(workgroupAllocs, gpuFunc.getWorkgroupAttributions()))
    mapping.map(alloc.getResult(), attribution);
  builder.setInsertionPointToEnd(&entry);
  for (Operation &op : body.getBody().front()) {
    if (isa<func::ReturnOp>(op)) {
      builder.create<gpu::ReturnOp>(op.getLoc());
      continue;
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op);
        alloc && mapping.contains(alloc.getResult()))
      continue;
    builder.clone(op, mapping);
  }
  replaceInterfaceOps(gpuFunc, bindings, constants,
                      exportOp.getWorkgroupSize());
  return success();
}

FailureOr<OwningOpRef<ModuleOp>>
codegen::buildKernelModule(ExecutableOp executable, VariantOp variant,
                           KernelFlavor flavor) {
  if (!executable.getBodyModule())
    return variant.emitOpError("has no kernel body to generate the ")
           << describeCodegen(executable, variant)
           << " from; give it objects(...) or add a builtin.module body";
  return buildKernelModule(executable, describeCodegen(executable, variant),
                           flavor);
}

FailureOr<OwningOpRef<ModuleOp>>
codegen::buildKernelModule(ExecutableOp executable, const std::string &what,
                           KernelFlavor flavor) {
  ModuleOp bodyModule = executable.getBodyModule();
  if (!bodyModule)
    return executable.emitOpError("has no kernel body module for the ") << what;
  OpBuilder builder(executable.getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(executable.getLoc());
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                     builder.getUnitAttr());
  builder.setInsertionPointToEnd(module->getBody());
  auto gpuModule = builder.create<gpu::GPUModuleOp>(executable.getLoc(),
                                                    executable.getSymName());
  for (ExportOp exportOp : executable.getExportOps()) {
    auto body = bodyModule.lookupSymbol<func::FuncOp>(exportOp.getSymName());
    if (!body)
      return exportOp.emitOpError("has no func.func kernel body for the ")
             << what;
    if (failed(
            buildKernel(executable, what, exportOp, body, gpuModule, flavor)))
      return failure();
  }
  return module;
}

LogicalResult codegen::lowerAddressSpaces(Operation *root, unsigned workgroup,
                                          unsigned global,
                                          unsigned privateSpace) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  TypeConverter typeConverter;
  typeConverter.addConversion([](Type t) { return t; });
  gpu::populateMemorySpaceAttributeTypeConversions(
      typeConverter, [=](gpu::AddressSpace space) -> unsigned {
        switch (space) {
        case gpu::AddressSpace::Global:
          return global;
        case gpu::AddressSpace::Workgroup:
          return workgroup;
        case gpu::AddressSpace::Private:
          return privateSpace;
        }
        llvm_unreachable("unknown address space");
      });
  gpu::populateMemorySpaceLoweringPatterns(typeConverter, patterns);
  ConversionTarget target(*context);
  gpu::populateLowerMemorySpaceOpLegality(target);
  return applyFullConversion(root, target, std::move(patterns));
}

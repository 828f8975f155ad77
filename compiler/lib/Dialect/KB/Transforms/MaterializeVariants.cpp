//===- MaterializeVariants.cpp - One variant per requested target ---------===//
#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "mlir/IR/Builders.h"

namespace mlir::kb {
#define GEN_PASS_DEF_MATERIALIZEVARIANTSPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

/// Adds the `targets` option (kb-opt's text) to |targets|; errors list the
/// valid spellings.
static LogicalResult parseTargets(ModuleOp module, ArrayRef<std::string> texts,
                                  SmallVectorImpl<::kb::Target> &targets) {
  for (const std::string &text : texts) {
    ::kb::StatusOr<::kb::Target> target = ::kb::Target::parse(text);
    if (!target.ok())
      return module.emitError()
             << "kb-materialize-variants: " << target.status().message();
    targets.push_back(*target);
  }
  return success();
}

/// Whether |variant| (verified, so its target is valid) is for |target|.
static bool isFor(VariantOp variant, const ::kb::Target &target) {
  return *getTarget(variant) == target;
}

/// Drops variants for targets not requested and adds the missing ones.
static LogicalResult materialize(ExecutableOp executable,
                                 ArrayRef<::kb::Target> targets) {
  for (VariantOp variant :
       llvm::make_early_inc_range(executable.getVariantOps())) {
    if (llvm::any_of(targets,
                     [&](const ::kb::Target &t) { return isFor(variant, t); }))
      continue;
    if (variant.isExternal())
      variant.emitWarning() << "external variant @" << variant.getSymName()
                            << " (" << variant.getTargetString()
                            << ") is dropped: its target was not requested";
    variant.erase();
  }
  OpBuilder builder(executable.getContext());
  for (const ::kb::Target &target : targets) {
    bool present = llvm::any_of(executable.getVariantOps(), [&](VariantOp v) {
      return !v.getReference() && isFor(v, target);
    });
    if (present)
      continue;
    std::string name = target.variantName();
    if (SymbolTable::lookupSymbolIn(executable, name))
      return executable.emitError()
             << "cannot add variant @" << name << ": kb.executable @"
             << executable.getSymName() << " has another symbol of that name";
    // New variants go after the existing exports and variants, before the
    // kernel body module.
    if (ModuleOp body = executable.getBodyModule())
      builder.setInsertionPoint(body);
    else
      builder.setInsertionPointToEnd(&executable.getBlock());
    builder.create<VariantOp>(
        executable.getLoc(), builder.getStringAttr(name),
        BackendAttr::get(executable.getContext(), toBackend(target.kind())),
        builder.getStringAttr(target.arch()), /*objects=*/nullptr,
        /*reference=*/nullptr, /*entry_points=*/nullptr);
  }
  return success();
}

namespace {
class MaterializeVariantsPass
    : public mlir::kb::impl::MaterializeVariantsPassBase<
          MaterializeVariantsPass> {
public:
  using MaterializeVariantsPassBase::MaterializeVariantsPassBase;
  explicit MaterializeVariantsPass(ArrayRef<::kb::Target> targets)
      : typedTargets(targets.begin(), targets.end()) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<::kb::Target> requested(typedTargets);
    if (failed(parseTargets(module, targets, requested)))
      return signalPassFailure();
    SmallVector<::kb::Target> unique;
    for (const ::kb::Target &target : requested)
      if (!llvm::is_contained(unique, target))
        unique.push_back(target);
    if (unique.empty())
      return;
    for (ExecutableOp executable : module.getOps<ExecutableOp>())
      if (failed(materialize(executable, unique)))
        return signalPassFailure();
  }

private:
  /// Targets given as types (the driver's), before the option's.
  SmallVector<::kb::Target> typedTargets;
};
} // namespace

std::unique_ptr<Pass>
mlir::kb::createMaterializeVariantsPass(ArrayRef<::kb::Target> targets) {
  return std::make_unique<MaterializeVariantsPass>(targets);
}

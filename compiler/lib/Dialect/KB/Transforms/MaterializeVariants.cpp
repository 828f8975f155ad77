//===- MaterializeVariants.cpp - One variant per requested target ---------===//
#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::kb {
#define GEN_PASS_DEF_MATERIALIZEVARIANTSPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

/// Parses the `targets` option; errors list the valid spellings.
static LogicalResult parseTargets(ModuleOp module,
                                  ArrayRef<std::string> targets,
                                  SmallVectorImpl<TargetSpec> &specs) {
  for (const std::string &text : targets) {
    std::optional<TargetSpec> spec = parseTargetSpec(text);
    if (!spec)
      return module.emitError()
             << "kb-materialize-variants: unknown target '" << text
             << "'; valid targets: " << getValidTargetsText();
    if (llvm::none_of(specs, [&](const TargetSpec &s) {
          return s.backend == spec->backend && s.arch == spec->arch;
        }))
      specs.push_back(*spec);
  }
  return success();
}

static bool isRequested(VariantOp variant, ArrayRef<TargetSpec> specs) {
  return llvm::any_of(specs, [&](const TargetSpec &s) {
    return s.backend == variant.getBackend() && s.arch == variant.getArch();
  });
}

/// Drops variants for targets not requested and adds the missing ones.
static LogicalResult materialize(ExecutableOp executable,
                                 ArrayRef<TargetSpec> specs) {
  for (VariantOp variant :
       llvm::make_early_inc_range(executable.getVariantOps())) {
    if (isRequested(variant, specs))
      continue;
    if (variant.isExternal())
      variant.emitWarning() << "external variant @" << variant.getSymName()
                            << " (" << variant.getTargetString()
                            << ") is dropped: its target was not requested";
    variant.erase();
  }
  OpBuilder builder(executable.getContext());
  for (const TargetSpec &spec : specs) {
    bool present = llvm::any_of(executable.getVariantOps(), [&](VariantOp v) {
      return !v.getReference() && v.getBackend() == spec.backend &&
             v.getArch() == spec.arch;
    });
    if (present)
      continue;
    std::string name = spec.getVariantName();
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
        BackendAttr::get(executable.getContext(), spec.backend),
        builder.getStringAttr(spec.arch), /*objects=*/nullptr,
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

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<TargetSpec> specs;
    if (failed(parseTargets(module, targets, specs)))
      return signalPassFailure();
    if (specs.empty())
      return;
    for (ExecutableOp executable : module.getOps<ExecutableOp>())
      if (failed(materialize(executable, specs)))
        return signalPassFailure();
  }
};
} // namespace

//===- DumpExecutableSources.cpp - One .mlir file per executable ----------===//
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Substitutions.h"

#include "common/file_util.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kb {
#define GEN_PASS_DEF_DUMPEXECUTABLESOURCESPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

/// Creates |dir| (and parents) when missing.
static LogicalResult createDumpDirectory(ModuleOp module, StringRef dir,
                                         StringRef pass) {
  if (dir.empty())
    return module.emitError() << pass << ": option path= is required";
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return module.emitError() << pass << ": cannot create directory '" << dir
                              << "': " << ec.message();
  return success();
}

/// Writes |executable| alone, wrapped in a module so that attribute aliases
/// are printed with their definitions, to |path| (atomically).
static LogicalResult dumpExecutable(ExecutableOp executable, StringRef path) {
  OpBuilder builder(executable.getContext());
  OwningOpRef<ModuleOp> wrapper = ModuleOp::create(executable.getLoc());
  builder.setInsertionPointToEnd(wrapper->getBody());
  builder.clone(*executable);
  // Printed in memory and written by the checked writer: a stream to the
  // file would end the process on a full disk (report_fatal_error).
  std::string text;
  llvm::raw_string_ostream os(text);
  wrapper->print(os);
  os.flush();
  if (::kb::Status written = ::kb::writeFileAtomic(path.str(), text);
      !written.ok())
    return executable.emitError() << written.message();
  return success();
}

namespace {
class DumpExecutableSourcesPass
    : public mlir::kb::impl::DumpExecutableSourcesPassBase<
          DumpExecutableSourcesPass> {
public:
  using DumpExecutableSourcesPassBase::DumpExecutableSourcesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(createDumpDirectory(module, path, getArgument())))
      return signalPassFailure();
    for (ExecutableOp executable : module.getOps<ExecutableOp>()) {
      llvm::SmallString<256> file(path.getValue());
      llvm::sys::path::append(file,
                              getSourceDumpFileName(executable.getSymName()));
      if (failed(dumpExecutable(executable, file)))
        return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace

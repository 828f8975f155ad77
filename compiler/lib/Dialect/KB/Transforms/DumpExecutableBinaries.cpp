//===- DumpExecutableBinaries.cpp - One file per external object ----------===//
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Substitutions.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kb {
#define GEN_PASS_DEF_DUMPEXECUTABLEBINARIESPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

namespace {
class DumpExecutableBinariesPass
    : public mlir::kb::impl::DumpExecutableBinariesPassBase<
          DumpExecutableBinariesPass> {
public:
  using DumpExecutableBinariesPassBase::DumpExecutableBinariesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (path.empty()) {
      module.emitError() << getArgument() << ": option path= is required";
      return signalPassFailure();
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(path)) {
      module.emitError() << getArgument() << ": cannot create directory '"
                         << path << "': " << ec.message();
      return signalPassFailure();
    }
    for (ExecutableOp executable : module.getOps<ExecutableOp>()) {
      for (VariantOp variant : executable.getVariantOps()) {
        // References are generated: their binaries come from codegen.
        if (!variant.isExternal() || variant.getReference())
          continue;
        auto object = variant.getObjectsAttr()[0].cast<ObjectAttr>();
        llvm::SmallString<256> file(path.getValue());
        llvm::sys::path::append(file,
                                getBinaryDumpFileName(executable.getSymName(),
                                                      variant.getSymName(),
                                                      object.getFormat()));
        llvm::Error error =
            llvm::writeToOutput(file, [&](llvm::raw_ostream &os) {
              os << object.getData();
              return llvm::Error::success();
            });
        if (error) {
          variant.emitError() << "cannot write '" << file
                              << "': " << llvm::toString(std::move(error));
          return signalPassFailure();
        }
      }
    }
    markAllAnalysesPreserved();
  }
};
} // namespace

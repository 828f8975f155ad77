//===- DumpExecutableBinaries.cpp - One file per variant's binary ---------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Substitutions.h"

#include "common/file_util.h"

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
/// The binary |variant| runs: its external object, or the editable form of
/// its generated code (PTX rather than the cubin ptxas made from it, so the
/// dump can be edited and substituted back); null before codegen.
ObjectAttr getDumpedObject(VariantOp variant) {
  if (variant.isExternal())
    return variant.getObjectsAttr()[0].cast<ObjectAttr>();
  auto generated = variant->getAttrOfType<ArrayAttr>(kGeneratedAttrName);
  if (!generated)
    return {};
  for (Attribute entry : generated) {
    auto dict = entry.dyn_cast<DictionaryAttr>();
    ObjectAttr object = dict ? dict.getAs<ObjectAttr>("object") : ObjectAttr();
    if (object && object.getFormat() != "cubin")
      return object;
  }
  return {};
}

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
        // A reference is the generated code a substituted object replaced;
        // the object is what the variant runs, and what is dumped.
        if (variant.getReference())
          continue;
        ObjectAttr object = getDumpedObject(variant);
        if (!object)
          continue;
        llvm::SmallString<256> file(path.getValue());
        llvm::sys::path::append(file,
                                getBinaryDumpFileName(executable.getSymName(),
                                                      variant.getSymName(),
                                                      object.getFormat()));
        // The checked writer: a full disk is an error naming the file,
        // where a stream to it would end the process.
        if (::kb::Status written = ::kb::writeFileAtomic(
                file.str().str(), std::string_view(object.getData()));
            !written.ok()) {
          variant.emitError() << written.message();
          return signalPassFailure();
        }
      }
    }
    markAllAnalysesPreserved();
  }
};
} // namespace

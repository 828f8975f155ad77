//===- GenerateBenchmarks.cpp - kb-generate-benchmarks --------------------===//
//
// Runs after object substitution (docs/pipeline.md), so the candidate of each
// benchmark is the handwritten kernel and its reference the generated one —
// IREE dumps benchmarks before substitution, so a substituted .ptx never
// reaches them.
//
//===----------------------------------------------------------------------===//
#include "common/abi_check.h"
#include "common/benchmark_name.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Serialization/HostProgram.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kb {
#define GEN_PASS_DEF_GENERATEBENCHMARKSPASS
#include "kb/Dialect/KB/Transforms/Passes.h.inc"
} // namespace mlir::kb

using namespace mlir;
using namespace mlir::kb;

namespace {

struct BufferSpec {
  BindingElementType elementType;
  int64_t count = 0;
  bool read = false;
  bool written = false;
  /// The kb.init of its kb.alloc (how inputs are drawn), or null.
  DictionaryAttr declaredInit;
};

struct BenchmarkSpec {
  DispatchInfo info;
  SmallVector<BufferSpec> buffers;
  SmallVector<int64_t> bindingBuffers;
  SmallVector<Attribute> sites;
};

/// "file:line:col" for file locations, MLIR's printing otherwise.
static std::string printLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = loc.dyn_cast<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
  return os.str();
}

/// What makes two dispatch sites the same benchmark: executable, export,
/// workload, constants, buffer sizes and types, and which binding shares a
/// buffer with which.
static std::string getKey(BenchmarkSpec &spec) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << spec.info.executable.getSymName()
     << "::" << spec.info.exportOp.getSymName() << "[";
  llvm::interleaveComma(spec.info.workload, os);
  os << "](";
  for (Attribute constant : spec.info.constants)
    os << constant << ";";
  os << ")";
  for (const BufferSpec &buffer : spec.buffers) {
    os << getElementTypeName(buffer.elementType) << "x" << buffer.count << ","
       << buffer.read << buffer.written << ",";
    if (buffer.declaredInit)
      os << buffer.declaredInit;
    os << ";";
  }
  llvm::interleaveComma(spec.bindingBuffers, os);
  return os.str();
}

/// Buffers of the dispatch (a buffer bound twice is one buffer, so the
/// benchmark keeps the program's aliasing).
static void collectBuffers(DispatchOp dispatch, BenchmarkSpec &spec) {
  SmallVector<Value> distinct;
  ArrayRef<BindingAttr> layout = spec.info.exportOp.getLayout().getBindings();
  for (auto [i, value] : llvm::enumerate(dispatch.getBindings())) {
    auto it = llvm::find(distinct, value);
    int64_t index = it - distinct.begin();
    if (it == distinct.end()) {
      distinct.push_back(value);
      spec.buffers.push_back({layout[i].getElementType(),
                              spec.info.bindingCounts[i], false, false,
                              getDeclaredInit(value)});
    }
    BindingAccess access = layout[i].getAccess();
    spec.buffers[index].read |= access != BindingAccess::WriteOnly;
    spec.buffers[index].written |= access != BindingAccess::ReadOnly;
    spec.bindingBuffers.push_back(index);
  }
}

/// The kb.unbenchmarked entry of a dispatch that cannot be benchmarked.
static DictionaryAttr describeUnbenchmarked(Builder &b, DispatchOp dispatch,
                                            StringRef reason) {
  return b.getDictionaryAttr(
      {b.getNamedAttr("executable",
                      b.getStringAttr(dispatch.getExecutableName())),
       b.getNamedAttr("export", b.getStringAttr(dispatch.getExportName())),
       b.getNamedAttr("site",
                      b.getStringAttr(printLocation(dispatch.getLoc()))),
       b.getNamedAttr("reason", b.getStringAttr(reason))});
}

/// The benchmarks of |module|'s host functions, one per distinct dispatch
/// (getKey) with every site it stands for, in program order; a dispatch
/// that cannot be benchmarked gets a remark and an entry in
/// |unbenchmarked|.
static std::vector<BenchmarkSpec>
collectSpecs(ModuleOp module, SmallVectorImpl<Attribute> &unbenchmarked) {
  Builder b(module.getContext());
  std::vector<BenchmarkSpec> specs;
  llvm::StringMap<size_t> byKey;
  SymbolTable symbols(module);
  for (Operation *func : getHostFunctions(module)) {
    func->walk([&](DispatchOp dispatch) {
      std::string reason;
      std::optional<DispatchInfo> info =
          analyzeDispatch(dispatch, reason, &symbols);
      if (!info) {
        dispatch.emitRemark("not benchmarked: ") << reason;
        unbenchmarked.push_back(describeUnbenchmarked(b, dispatch, reason));
        return;
      }
      BenchmarkSpec spec;
      spec.info = *info;
      collectBuffers(dispatch, spec);
      Attribute site = b.getStringAttr(printLocation(dispatch.getLoc()));
      auto [it, inserted] = byKey.try_emplace(getKey(spec), specs.size());
      if (!inserted) {
        specs[it->second].sites.push_back(site);
        return;
      }
      spec.sites.push_back(site);
      specs.push_back(std::move(spec));
    });
  }
  return specs;
}

/// `<kernel>_<w0>x<w1>x<w2>`, with `_2`, `_3`, ... for the later benchmarks
/// of a shape already named (|shapeCount|). A kernel named in kernel.toml is
/// benchmarked under that name; a program's mangled C++ export reads as its
/// plain name: `scale_bf16_scale_kernel1_...`, not
/// `scale_bf16__Z13scale_kernel1P13__nv_...`.
static std::string nameBenchmark(DispatchInfo &info,
                                 llvm::StringMap<unsigned> &shapeCount) {
  std::string name;
  llvm::raw_string_ostream os(name);
  if (auto kernelName =
          info.executable->getAttrOfType<StringAttr>(kKernelNameAttrName)) {
    os << kernelName.getValue();
  } else {
    StringRef exportName = info.exportOp.getSymName();
    os << ::kb::benchmarkStem(info.executable.getSymName().str(),
                              ::kb::readableEntryName(std::string_view(
                                  exportName.data(), exportName.size())));
  }
  os << "_" << info.workload[0] << "x" << info.workload[1] << "x"
     << info.workload[2];
  unsigned n = ++shapeCount[os.str()];
  if (n > 1)
    os << "_" << n;
  return os.str();
}

/// The benchmark's buffers: type, size, how inputs are drawn (seeded by the
/// benchmark's name and the buffer's index) and whether it is an output.
static SmallVector<Attribute> describeBuffers(MLIRContext *context,
                                              const BenchmarkSpec &spec,
                                              StringRef benchmarkName,
                                              uint64_t baseSeed) {
  Builder b(context);
  SmallVector<Attribute> buffers;
  for (auto [i, buffer] : llvm::enumerate(spec.buffers)) {
    uint64_t seed =
        hashName((benchmarkName + "/" + std::to_string(i)).str(), baseSeed);
    buffers.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("element_type", b.getStringAttr(getElementTypeName(
                                            buffer.elementType))),
         b.getNamedAttr("element_count", b.getI64IntegerAttr(buffer.count)),
         b.getNamedAttr("init",
                        buildInitSpec(context, buffer.elementType, buffer.read,
                                      seed, buffer.declaredInit)),
         b.getNamedAttr("output", b.getBoolAttr(buffer.written))}));
  }
  return buffers;
}

/// The kb.benchmarks entry of |spec|, named |name|.
static DictionaryAttr describeBenchmark(MLIRContext *context,
                                        BenchmarkSpec &spec, StringRef name,
                                        uint64_t baseSeed) {
  Builder b(context);
  DispatchInfo &info = spec.info;
  SmallVector<Attribute> candidates, references;
  for (VariantOp variant : info.executable.getVariantOps()) {
    // A standalone kernel's handwritten twin is external too, but it is
    // the reference.
    if (variant.isExternal() && !variant.getReference())
      candidates.push_back(b.getStringAttr(variant.getSymName()));
    else
      references.push_back(b.getStringAttr(variant.getSymName()));
  }
  return b.getDictionaryAttr({
      b.getNamedAttr("name", b.getStringAttr(name)),
      b.getNamedAttr("executable",
                     b.getStringAttr(info.executable.getSymName())),
      b.getNamedAttr("export", b.getStringAttr(info.exportOp.getSymName())),
      b.getNamedAttr("workload", b.getDenseI64ArrayAttr(info.workload)),
      b.getNamedAttr("workgroup_count",
                     b.getDenseI64ArrayAttr(info.workgroupCount)),
      b.getNamedAttr("buffers", b.getArrayAttr(describeBuffers(
                                    context, spec, name, baseSeed))),
      b.getNamedAttr("bindings", b.getDenseI64ArrayAttr(spec.bindingBuffers)),
      b.getNamedAttr("constants",
                     b.getArrayAttr(SmallVector<Attribute>(
                         info.constants.begin(), info.constants.end()))),
      b.getNamedAttr("candidates", b.getArrayAttr(candidates)),
      b.getNamedAttr("references", b.getArrayAttr(references)),
      b.getNamedAttr("sites", b.getArrayAttr(spec.sites)),
  });
}

struct GenerateBenchmarksPass
    : public mlir::kb::impl::GenerateBenchmarksPassBase<
          GenerateBenchmarksPass> {
  using mlir::kb::impl::GenerateBenchmarksPassBase<
      GenerateBenchmarksPass>::GenerateBenchmarksPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    SmallVector<Attribute> unbenchmarked;
    std::vector<BenchmarkSpec> specs = collectSpecs(module, unbenchmarked);
    llvm::StringMap<unsigned> shapeCount;
    SmallVector<Attribute> benchmarks;
    for (BenchmarkSpec &spec : specs)
      benchmarks.push_back(describeBenchmark(
          &getContext(), spec, nameBenchmark(spec.info, shapeCount), seed));
    module->setAttr(kBenchmarksAttrName, b.getArrayAttr(benchmarks));
    if (unbenchmarked.empty())
      module->removeAttr(kUnbenchmarkedAttrName);
    else
      module->setAttr(kUnbenchmarkedAttrName, b.getArrayAttr(unbenchmarked));
  }
};

} // namespace

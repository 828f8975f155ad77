//===- Differential.cpp - one reference, three executions -----------------===//
#include "kb/Testing/Differential.h"
#include "kb/Testing/KernelGenerator.h"

#include "DeviceRun.h"
#include "kb/Codegen/Codegen.h"
#include "kb/Codegen/CpuExecution.h"
#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "runtime/hal/device.h"
#include "runtime/hal/driver_registry.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/module/compare.h"
#include "runtime/module/element_io.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>

using namespace mlir;

namespace kb::differential {

namespace {
/// One execution's buffers, after the dispatch.
struct Execution {
  std::string name;
  std::vector<std::vector<uint8_t>> buffers;
};

/// Collects the diagnostics emitted while it lives.
struct DiagnosticText {
  explicit DiagnosticText(MLIRContext &context)
      : handler(&context, [this](Diagnostic &d) {
          text += (text.empty() ? "" : "\n") + d.str();
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};

std::vector<std::vector<uint8_t>> initialBuffers(const Case &c) {
  std::vector<std::vector<uint8_t>> buffers;
  for (const CaseBuffer &b : c.buffers)
    buffers.push_back(b.contents);
  return buffers;
}
} // namespace

struct Runner::Impl {
  MLIRContext context;
  std::optional<hal::SelectedDevice> vulkan, cuda;
  std::string vulkanMissing, cudaMissing;

  StatusOr<Execution> runCpu(mlir::kb::ExecutableOp executable, const Case &c,
                             unsigned indexBitwidth);
  StatusOr<Execution> runVariant(mlir::kb::ExecutableOp executable,
                                 mlir::kb::VariantOp variant, const Case &c);
  /// The targets the case runs on: Vulkan 1.2 unless it has bf16 (SPIR-V
  /// for Vulkan has none), the CUDA device's own architecture.
  std::vector<std::string> deviceTargets(mlir::kb::ExecutableOp executable,
                                         std::vector<std::string> &skip);
};

Runner::Runner() : impl_(std::make_unique<Impl>()) {
  DialectRegistry registry;
  mlir::kb::registerPipelineInputDialects(registry);
  mlir::kb::registerCodegenDialects(registry);
  impl_->context.appendDialectRegistry(registry);
  impl_->context.loadAllAvailableDialects();
}

Runner::~Runner() = default;

std::unique_ptr<Runner> Runner::create() {
  std::unique_ptr<Runner> runner(new Runner());
  auto open = [](const char *spec, std::optional<hal::SelectedDevice> &device,
                 std::string &missing) {
    StatusOr<hal::SelectedDevice> selected =
        hal::selectDevice(hal::builtinDrivers(), spec);
    if (selected.ok())
      device = std::move(*selected);
    else
      missing = selected.status().message();
  };
  open("vulkan", runner->impl_->vulkan, runner->impl_->vulkanMissing);
  open("cuda", runner->impl_->cuda, runner->impl_->cudaMissing);
  return runner;
}

std::string Runner::describeDevices() const {
  auto describe = [](const std::optional<hal::SelectedDevice> &device,
                     const std::string &missing) {
    return device ? device->device->properties().name
                  : "no device (" + missing + ")";
  };
  return "vulkan: " + describe(impl_->vulkan, impl_->vulkanMissing) +
         "; cuda: " + describe(impl_->cuda, impl_->cudaMissing);
}

StatusOr<Execution> Runner::Impl::runCpu(mlir::kb::ExecutableOp executable,
                                         const Case &c,
                                         unsigned indexBitwidth) {
  DiagnosticText diagnostics(context);
  Execution execution{"cpu index " + std::to_string(indexBitwidth),
                      initialBuffers(c)};
  mlir::kb::CpuDispatch dispatch;
  dispatch.exportName = c.exportName;
  dispatch.buffers = &execution.buffers;
  dispatch.constants = c.constants;
  dispatch.workgroupCount = c.workgroupCount;
  dispatch.indexBitwidth = indexBitwidth;
  if (failed(mlir::kb::runOnCpu(executable, dispatch)))
    return internalError(c.name + ": " + execution.name + ": " +
                         diagnostics.text);
  return execution;
}

StatusOr<Execution> Runner::Impl::runVariant(mlir::kb::ExecutableOp executable,
                                             mlir::kb::VariantOp variant,
                                             const Case &c) {
  DiagnosticText diagnostics(context);
  std::string target = variant.getTargetString();
  mlir::kb::CodegenOptions options;
  options.emitCubin = false; // PTX: the driver compiles it for the device
  llvm::SmallVector<mlir::kb::GeneratedBinary> binaries;
  if (failed(mlir::kb::generateVariant(executable, variant, options, binaries)))
    return internalError(c.name + ": " + target + ": " + diagnostics.text);
  hal::ExecutableSpec spec;
  spec.name = executable.getSymName().str();
  spec.format = binaries[0].format == "spv" ? hal::ExecutableFormat::Spirv
                                            : hal::ExecutableFormat::Ptx;
  spec.target = binaries[0].target;
  spec.data = binaries[0].data;
  KernelAbi abi;
  for (mlir::kb::ExportOp exportOp : executable.getExportOps())
    if (exportOp.getSymName() == c.exportName)
      abi = mlir::kb::getKernelAbi(exportOp, exportOp.getSymName());
  spec.exports = {abi};
  hal::Device &device =
      *(variant.getBackend() == mlir::kb::Backend::Cuda ? cuda : vulkan)
           ->device;
  Execution execution{target + " on " + device.properties().name,
                      initialBuffers(c)};
  Status ran = runOnDevice(device, spec, abi, c.constants, c.workgroupCount,
                           execution.buffers);
  if (!ran.ok())
    return internalError(c.name + ": " + execution.name + ": " + ran.message());
  return execution;
}

/// Whether any op of |executable| takes or makes bf16 (alone or in a
/// memref).
static bool usesBf16(mlir::kb::ExecutableOp executable) {
  auto isBf16 = [](Type t) { return getElementTypeOrSelf(t).isBF16(); };
  WalkResult walk = executable.walk([&](Operation *op) {
    return llvm::any_of(op->getOperandTypes(), isBf16) ||
                   llvm::any_of(op->getResultTypes(), isBf16)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

std::vector<std::string>
Runner::Impl::deviceTargets(mlir::kb::ExecutableOp executable,
                            std::vector<std::string> &skip) {
  const Impl &impl = *this;
  std::vector<std::string> targets;
  bool bf16 = usesBf16(executable);
  if (!impl.vulkan)
    skip.push_back("vulkan: " + impl.vulkanMissing);
  else if (bf16)
    skip.push_back("vulkan: the case uses bf16, which SPIR-V for Vulkan "
                   "cannot express");
  else
    targets.push_back("vulkan:1.2");
  if (!impl.cuda) {
    skip.push_back("cuda: " + impl.cudaMissing);
  } else {
    const hal::DeviceProperties &p = impl.cuda->device->properties();
    targets.push_back("cuda:sm_" + std::to_string(p.ccMajor * 10 + p.ccMinor));
  }
  return targets;
}

/// Element by element against the baseline: integers exactly, floats
/// within the case's tolerance.
static void compareWithBaseline(const Case &c, const Execution &baseline,
                                const Execution &other,
                                std::vector<std::string> &disagreements) {
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    if (!c.buffers[i].output)
      continue;
    std::optional<ElementType> type = parseElementType(c.buffers[i].type);
    if (!type) {
      disagreements.push_back(c.name + ": binding " + std::to_string(i) +
                              " has an unknown element type " +
                              c.buffers[i].type);
      continue;
    }
    module::Tolerance tolerance;
    if (module::isFloat(*type))
      tolerance = {c.floatTolerance, c.floatTolerance, 0};
    module::Comparison comparison = module::compareElements(
        *type, baseline.buffers[i], other.buffers[i], tolerance, 4);
    if (comparison.ok())
      continue;
    std::ostringstream line;
    line << c.name << ": binding " << i << " (" << c.buffers[i].type << " x "
         << comparison.elementCount << "): " << other.name << " differs from "
         << baseline.name << " in " << comparison.mismatchCount
         << " element(s):";
    for (const module::Mismatch &m : comparison.firstMismatches)
      line << " [" << m.index << "] " << m.reference << " vs " << m.candidate
           << ";";
    disagreements.push_back(line.str());
  }
}

StatusOr<Outcome> Runner::run(const Case &c) {
  MLIRContext &context = impl_->context;
  OwningOpRef<ModuleOp> module;
  {
    DiagnosticText diagnostics(context);
    module = parseSourceString<ModuleOp>(c.mlir, &context);
    if (!module)
      return invalidArgument(c.name + ": does not parse: " + diagnostics.text);
  }
  // The executable alone, without the variants it came with (external
  // objects), so that each target gets the generated one.
  mlir::kb::ExecutableOp executable;
  for (auto candidate : module->getOps<mlir::kb::ExecutableOp>())
    if (!executable && (c.executableName.empty() ||
                        candidate.getSymName() == c.executableName))
      executable = candidate;
  if (!executable)
    return invalidArgument(c.name + ": holds no kb.executable " +
                           c.executableName);
  OwningOpRef<ModuleOp> alone = ModuleOp::create(executable.getLoc());
  alone->getBody()->push_back(executable->clone());
  module = std::move(alone);
  executable = *module->getOps<mlir::kb::ExecutableOp>().begin();
  for (auto variant : llvm::make_early_inc_range(executable.getVariantOps()))
    variant->erase();

  Outcome outcome;
  std::vector<std::string> targets =
      impl_->deviceTargets(executable, outcome.skipped);
  {
    DiagnosticText diagnostics(context);
    PassManager passes(&context);
    mlir::kb::MaterializeVariantsPassOptions options;
    options.targets = targets;
    passes.addPass(mlir::kb::createMaterializeVariantsPass(options));
    if (!targets.empty() && failed(passes.run(*module)))
      return internalError(c.name + ": " + diagnostics.text);
  }

  KB_ASSIGN_OR_RETURN(Execution baseline, impl_->runCpu(executable, c, 64));
  std::vector<Execution> others;
  KB_ASSIGN_OR_RETURN(Execution narrow, impl_->runCpu(executable, c, 32));
  others.push_back(std::move(narrow));
  for (mlir::kb::VariantOp variant : executable.getVariantOps()) {
    KB_ASSIGN_OR_RETURN(Execution onDevice,
                        impl_->runVariant(executable, variant, c));
    others.push_back(std::move(onDevice));
  }
  outcome.executions.push_back(baseline.name);
  for (const Execution &other : others) {
    outcome.executions.push_back(other.name);
    compareWithBaseline(c, baseline, other, outcome.disagreements);
  }
  return outcome;
}

/// splitmix64: the same numbers from a seed on every platform.
static uint64_t nextRandom(uint64_t &seed) {
  uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fillBuffers(Case &c, uint64_t seed) {
  auto next = [&seed] { return nextRandom(seed); };
  for (CaseBuffer &b : c.buffers) {
    if (b.output) {
      std::fill(b.contents.begin(), b.contents.end(), 0xA5);
      continue;
    }
    std::optional<ElementType> type = parseElementType(b.type);
    if (type && module::isFloat(*type)) {
      size_t size = byteSize(*type);
      for (size_t at = 0; at + size <= b.contents.size(); at += size)
        module::writeElement(*type, double(next() >> 11) * 0x1p-53 * 4 - 2,
                             b.contents.data() + at);
      continue;
    }
    for (uint8_t &byte : b.contents)
      byte = static_cast<uint8_t>(next());
  }
}

Case generatedCase(uint64_t seed) {
  GeneratedKernel kernel = generateKernel(seed);
  Case c;
  c.name = "seed=" + std::to_string(seed);
  c.mlir = kernel.mlir;
  c.exportName = kernel.name;
  for (const GeneratedKernel::Binding &b : kernel.bindings) {
    std::optional<ElementType> type = parseElementType(b.type);
    c.buffers.push_back(
        {b.type, std::vector<uint8_t>(b.elements * byteSize(*type)), b.output});
  }
  for (const GeneratedKernel::Constant &constant : kernel.constants)
    c.constants.push_back(constant.bits);
  c.workgroupCount = kernel.workgroupCount;
  c.floatTolerance = kernel.floatTolerance;
  fillBuffers(c, seed);
  return c;
}

/// A benchmark buffer's contents as its `init` says: a uniform draw in
/// [low, high), a constant, or zeros (outputs are poisoned).
static CaseBuffer benchmarkBuffer(DictionaryAttr buffer) {
  CaseBuffer b;
  b.type = buffer.getAs<StringAttr>("element_type").getValue().str();
  b.output = buffer.getAs<BoolAttr>("output").getValue();
  std::optional<ElementType> type = parseElementType(b.type);
  int64_t count = buffer.getAs<IntegerAttr>("element_count").getInt();
  size_t size = type ? byteSize(*type) : 1;
  b.contents.assign(count * size, b.output ? 0xA5 : 0);
  auto init = buffer.getAs<DictionaryAttr>("init");
  if (b.output || !type || !init)
    return b;
  auto number = [&](const char *key, double fallback) {
    auto attr = init.getAs<FloatAttr>(key);
    return attr ? attr.getValueAsDouble() : fallback;
  };
  StringRef distribution = init.getAs<StringAttr>("distribution").getValue();
  double low = number("low", -1), high = number("high", 1);
  if (distribution == "constant")
    low = high = number("value", 0);
  auto seedAttr = init.getAs<IntegerAttr>("seed");
  uint64_t seed = seedAttr ? seedAttr.getValue().getZExtValue() : 1;
  for (int64_t i = 0; distribution != "zero" && i < count; ++i) {
    double u = double(nextRandom(seed) >> 11) * 0x1p-53;
    double value = low + u * (high - low);
    if (!module::isFloat(*type))
      value = std::floor(value);
    module::writeElement(*type, value, b.contents.data() + i * size);
  }
  return b;
}

/// A typed constant's bits: an integer's value, a float's IEEE bits.
static uint64_t constantBits(Attribute attr) {
  if (auto i = attr.dyn_cast<IntegerAttr>())
    return i.getValue().getZExtValue();
  auto f = attr.cast<FloatAttr>();
  if (f.getType().isF32()) {
    float value = static_cast<float>(f.getValueAsDouble());
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
  }
  double value = f.getValueAsDouble();
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

static std::optional<Case> benchmarkCase(const std::string &name,
                                         const std::string &mlir,
                                         DictionaryAttr benchmark) {
  Case c;
  c.name = name + " " + benchmark.getAs<StringAttr>("name").getValue().str();
  c.mlir = mlir;
  c.executableName = benchmark.getAs<StringAttr>("executable").getValue().str();
  c.exportName = benchmark.getAs<StringAttr>("export").getValue().str();
  auto buffers = benchmark.getAs<ArrayAttr>("buffers");
  auto bindings = benchmark.getAs<DenseI64ArrayAttr>("bindings");
  std::set<int64_t> seen;
  for (int64_t index : bindings.asArrayRef()) {
    if (!seen.insert(index).second)
      return std::nullopt; // aliased: one buffer bound twice
    c.buffers.push_back(benchmarkBuffer(buffers[index].cast<DictionaryAttr>()));
  }
  for (Attribute constant : benchmark.getAs<ArrayAttr>("constants"))
    c.constants.push_back(constantBits(constant));
  ArrayRef<int64_t> count =
      benchmark.getAs<DenseI64ArrayAttr>("workgroup_count").asArrayRef();
  for (int d = 0; d < 3; ++d)
    c.workgroupCount[d] = static_cast<uint32_t>(count[d]);
  // The codegens' float results differ by contraction and approximations.
  c.floatTolerance = 1e-3;
  return c;
}

/// One case per benchmark of |mlir|, a program, or with |model| a model
/// the front end first lowers and splits into dispatches.
static StatusOr<std::vector<Case>>
casesFrom(const std::string &name, const std::string &mlir, bool model) {
  DialectRegistry registry;
  mlir::kb::registerPipelineInputDialects(registry);
  MLIRContext context(registry);
  DiagnosticText diagnostics(context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(mlir, &context);
  if (!module)
    return invalidArgument(name + ": does not parse: " + diagnostics.text);
  // A case carries its program as text: for a model, the dispatches the
  // front end made.
  std::string program = mlir;
  if (model) {
    PassManager frontEnd(&context);
    frontEnd.addPass(mlir::kb::createLowerModelPass());
    frontEnd.addPass(mlir::kb::createFormDispatchesPass());
    if (failed(frontEnd.run(*module)))
      return invalidArgument(name + ": " + diagnostics.text);
    program.clear();
    llvm::raw_string_ostream os(program);
    module->print(os);
  }
  PassManager passes(&context);
  passes.addPass(mlir::kb::createGenerateBenchmarksPass());
  if (failed(passes.run(*module)))
    return invalidArgument(name + ": " + diagnostics.text);
  std::vector<Case> cases;
  auto benchmarks = (*module)->getAttrOfType<ArrayAttr>("kb.benchmarks");
  if (!benchmarks)
    return cases;
  for (Attribute benchmark : benchmarks)
    if (std::optional<Case> c =
            benchmarkCase(name, program, benchmark.cast<DictionaryAttr>()))
      cases.push_back(std::move(*c));
  return cases;
}

StatusOr<std::vector<Case>> casesFromProgram(const std::string &name,
                                             const std::string &mlir) {
  return casesFrom(name, mlir, /*model=*/false);
}

StatusOr<std::vector<Case>> casesFromModel(const std::string &name,
                                           const std::string &mlir) {
  return casesFrom(name, mlir, /*model=*/true);
}

} // namespace kb::differential

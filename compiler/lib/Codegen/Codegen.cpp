//===- Codegen.cpp - Dispatch a generated variant to its backend ----------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace mlir::kb;

namespace mlir::kb::codegen {
LogicalResult generateCuda(ExecutableOp executable, VariantOp variant,
                           const CodegenOptions &options,
                           SmallVectorImpl<GeneratedBinary> &result);
LogicalResult generateSpirv(ExecutableOp executable, VariantOp variant,
                            SmallVectorImpl<GeneratedBinary> &result);
} // namespace mlir::kb::codegen

void mlir::kb::registerCodegenDialects(DialectRegistry &registry) {
  registry.insert<cf::ControlFlowDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, spirv::SPIRVDialect>();
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

LogicalResult
mlir::kb::generateVariant(ExecutableOp executable, VariantOp variant,
                          const CodegenOptions &options,
                          SmallVectorImpl<GeneratedBinary> &result) {
  if (variant.isExternal())
    return variant.emitOpError("is external; only generated variants have "
                               "codegen");
  // Conversions create ops of these dialects; a context that only parsed
  // the program has not loaded them.
  MLIRContext *context = executable.getContext();
  context
      ->loadDialect<cf::ControlFlowDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                    NVVM::NVVMDialect, spirv::SPIRVDialect>();
  if (variant.getBackend() == Backend::Cuda)
    return codegen::generateCuda(executable, variant, options, result);
  return codegen::generateSpirv(executable, variant, result);
}

/// Records |binaries| on |variant| as the kb.generated attribute.
static void recordBinaries(ExecutableOp executable, VariantOp variant,
                           ArrayRef<GeneratedBinary> binaries) {
  Builder b(variant.getContext());
  SmallVector<Attribute> entries;
  for (const GeneratedBinary &binary : binaries) {
    std::string path = (executable.getSymName() + "_" + variant.getSymName() +
                        "." + binary.format)
                           .str();
    entries.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("target", b.getStringAttr(binary.target)),
         b.getNamedAttr("object",
                        ObjectAttr::get(b.getContext(), path, binary.data))}));
  }
  variant->setAttr(kGeneratedAttrName, b.getArrayAttr(entries));
}

namespace {
/// A generated variant waiting for its cubin.
struct Generated {
  ExecutableOp executable;
  VariantOp variant;
  SmallVector<GeneratedBinary> binaries;
  double milliseconds = 0;
  // ptxas job (CUDA only)
  std::string ptx, arch, cubin, error;
  bool ptxasFailed = false;
  double ptxasMilliseconds = 0;
};
} // namespace

/// Milliseconds since |start|.
static double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Runs in-process codegen of every generated variant of |module| that has
/// none yet, in order (one MLIRContext). Keeps going after a failure; the
/// variants that failed have a diagnostic and are not in |generated|.
static LogicalResult generateInProcess(Operation *module,
                                       const CodegenOptions &options,
                                       std::vector<Generated> &generated) {
  CodegenOptions inProcess = options;
  inProcess.emitCubin = false;
  bool failedAny = false;
  for (auto executable : cast<ModuleOp>(module).getOps<ExecutableOp>()) {
    for (VariantOp variant : executable.getVariantOps()) {
      if (variant.isExternal() || variant->hasAttr(kGeneratedAttrName))
        continue;
      auto start = std::chrono::steady_clock::now();
      Generated g;
      g.executable = executable;
      g.variant = variant;
      if (failed(generateVariant(executable, variant, inProcess, g.binaries))) {
        failedAny = true;
        continue;
      }
      g.milliseconds = millisecondsSince(start);
      if (variant.getBackend() == Backend::Cuda && !g.binaries.empty())
        g.ptx = g.binaries.front().data;
      generated.push_back(std::move(g));
    }
  }
  return failure(failedAny);
}

/// Runs |ptxas| on the PTX of every CUDA variant in |generated|, in
/// parallel, one job per core: ptxas costs tens of milliseconds per module,
/// more than the in-process codegen. Only the job's own fields are written,
/// so the workers share nothing but the counter.
static void runPtxasJobs(StringRef ptxas, std::vector<Generated> &generated) {
  std::vector<Generated *> jobs;
  for (Generated &g : generated)
    if (!g.ptx.empty()) {
      g.arch = g.variant.getArch().str();
      jobs.push_back(&g);
    }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      Generated &g = *jobs[i];
      auto start = std::chrono::steady_clock::now();
      g.ptxasFailed = failed(runPtxas(ptxas, g.ptx, g.arch, g.cubin, g.error));
      g.ptxasMilliseconds = millisecondsSince(start);
    }
  };
  unsigned threads =
      std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                      static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
}

/// Stores what |g| produced on its variant (with the cubin, when ptxas made
/// one) and adds its record; failure after a diagnostic when ptxas rejected
/// the PTX.
static LogicalResult finishVariant(Generated &g,
                                   SmallVectorImpl<CodegenRecord> *records) {
  if (g.ptxasFailed)
    return g.variant.emitOpError("ptxas rejected the PTX of the ")
           << g.variant.getTargetString() << " codegen of kb.executable @"
           << g.executable.getSymName() << " (-arch=" << g.arch
           << "): " << g.error;
  if (!g.cubin.empty())
    g.binaries.push_back({"cubin", g.arch, std::move(g.cubin)});
  recordBinaries(g.executable, g.variant, g.binaries);
  if (!records)
    return success();
  // A verified variant's target is valid.
  ::kb::StatusOr<::kb::Target> target = getTarget(g.variant);
  records->push_back({g.executable.getSymName().str(),
                      g.variant.getSymName().str(),
                      target.ok() ? *target : ::kb::Target(), g.milliseconds,
                      g.ptxasMilliseconds});
  return success();
}

LogicalResult
mlir::kb::generateAllVariants(Operation *module, const CodegenOptions &options,
                              SmallVectorImpl<CodegenRecord> *records) {
  std::vector<Generated> generated;
  bool failedAny = failed(generateInProcess(module, options, generated));
  if (std::optional<std::string> ptxas =
          options.emitCubin ? findPtxas(options.ptxasPath) : std::nullopt)
    runPtxasJobs(*ptxas, generated);
  for (Generated &g : generated)
    failedAny |= failed(finishVariant(g, records));
  return failure(failedAny);
}

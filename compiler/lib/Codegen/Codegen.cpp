//===- Codegen.cpp - Dispatch a generated variant to its backend ----------===//
#include "kb/Codegen/Codegen.h"
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

void kb::registerCodegenDialects(DialectRegistry &registry) {
  registry.insert<cf::ControlFlowDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, spirv::SPIRVDialect>();
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

LogicalResult kb::generateVariant(ExecutableOp executable, VariantOp variant,
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

LogicalResult kb::generateAllVariants(Operation *module,
                                      const CodegenOptions &options,
                                      SmallVectorImpl<CodegenRecord> *records) {
  // In-process codegen is sequential (one MLIRContext); the ptxas
  // subprocesses that follow run in parallel, one per core: ptxas costs
  // tens of milliseconds per module, more than the in-process codegen.
  CodegenOptions inProcess = options;
  inProcess.emitCubin = false;
  bool failedAny = false;
  std::vector<Generated> generated;
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
      g.milliseconds = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (variant.getBackend() == Backend::Cuda && !g.binaries.empty())
        g.ptx = g.binaries.front().data;
      generated.push_back(std::move(g));
    }
  }

  std::optional<std::string> ptxas =
      options.emitCubin ? findPtxas(options.ptxasPath) : std::nullopt;
  if (ptxas) {
    std::vector<Generated *> jobs;
    for (Generated &g : generated)
      if (!g.ptx.empty())
        jobs.push_back(&g);
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
        Generated &g = *jobs[i];
        auto start = std::chrono::steady_clock::now();
        g.ptxasFailed =
            failed(runPtxas(*ptxas, g.ptx, g.arch, g.cubin, g.error));
        g.ptxasMilliseconds = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start)
                                  .count();
      }
    };
    for (Generated *g : jobs)
      g->arch = g->variant.getArch().str();
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

  for (Generated &g : generated) {
    if (g.ptxasFailed) {
      g.variant.emitOpError("ptxas rejected the PTX of the ")
          << g.variant.getTargetString() << " codegen of kb.executable @"
          << g.executable.getSymName() << " (-arch=" << g.arch
          << "): " << g.error;
      failedAny = true;
      continue;
    }
    if (!g.cubin.empty())
      g.binaries.push_back({"cubin", g.arch, std::move(g.cubin)});
    recordBinaries(g.executable, g.variant, g.binaries);
    if (records)
      records->push_back(
          {g.executable.getSymName().str(), g.variant.getSymName().str(),
           g.variant.getTargetString(), g.milliseconds, g.ptxasMilliseconds});
  }
  return failure(failedAny);
}

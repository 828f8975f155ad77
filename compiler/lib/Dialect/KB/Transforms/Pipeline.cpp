//===- Pipeline.cpp - The compiler pipeline, declared in one place --------===//
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "kb/Dialect/KB/IR/KBDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::kb {

static bool wantsSubstitution(const SubstituteExecutablesPassOptions &o) {
  return !o.substitutions.empty() || !o.directories.empty();
}

void registerPipelineInputDialects(DialectRegistry &registry) {
  registry.insert<KBDialect, arith::ArithDialect, func::FuncDialect,
                  gpu::GPUDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect,
                  tosa::TosaDialect>();
}

void buildCompilerPipeline(OpPassManager &pm, const PipelineOptions &options) {
  auto through = [&](PipelineStep step) {
    return options.startAt <= step && step <= options.stopAfter;
  };
  if (through(PipelineStep::LowerModel))
    pm.addPass(createLowerModelPass());
  if (through(PipelineStep::FormDispatches))
    pm.addPass(createFormDispatchesPass());
  if (through(PipelineStep::SubstituteSources) &&
      wantsSubstitution(options.sources)) {
    SubstituteExecutablesPassOptions o = options.sources;
    o.kind = "source";
    pm.addPass(createSubstituteExecutablesPass(o));
  }
  if (through(PipelineStep::MaterializeVariants) && !options.targets.empty())
    pm.addPass(createMaterializeVariantsPass(options.targets));
  if (through(PipelineStep::Codegen) && options.codegen)
    pm.addPass(
        createCodegenPass(options.codegenOptions, options.codegenRecords));
  if (through(PipelineStep::SubstituteObjects) &&
      wantsSubstitution(options.objects)) {
    SubstituteExecutablesPassOptions o = options.objects;
    o.kind = "object";
    pm.addPass(createSubstituteExecutablesPass(o));
  }
  if (through(PipelineStep::GenerateBenchmarks) && options.benchmarks)
    pm.addPass(createGenerateBenchmarksPass());
}

namespace {
/// kb-opt's spelling of PipelineOptions.
struct PipelineCliOptions : public PassPipelineOptions<PipelineCliOptions> {
  ListOption<std::string> sources{
      *this, "sources",
      llvm::cl::desc("Source substitutions NAME=FILE (.mlir/.mlirbc)")};
  ListOption<std::string> sourceDirectories{
      *this, "sources-from",
      llvm::cl::desc("Directories of <executable>.mlir sources")};
  ListOption<std::string> targets{
      *this, "targets",
      llvm::cl::desc("Targets (cuda:sm_XX, vulkan:X.Y); empty keeps the "
                     "program's variants")};
  Option<bool> codegen{*this, "codegen", llvm::cl::desc("Run kb-codegen"),
                       llvm::cl::init(true)};
  Option<bool> emitCubin{*this, "emit-cubin",
                         llvm::cl::desc("Also compile cubins with ptxas"),
                         llvm::cl::init(false)};
  ListOption<std::string> objects{
      *this, "objects",
      llvm::cl::desc("Object substitutions NAME=FILE (.ptx/.cubin/.spv)")};
  ListOption<std::string> objectDirectories{
      *this, "objects-from",
      llvm::cl::desc("Directories of <executable>.<ext> objects")};
  ListOption<std::string> searchPaths{
      *this, "search-paths",
      llvm::cl::desc("Directories a relative substitution file is looked "
                     "up in")};
  Option<bool> benchmarks{*this, "benchmarks",
                          llvm::cl::desc("Run kb-generate-benchmarks"),
                          llvm::cl::init(true)};
  Option<PipelineStep> stopAfter{
      *this, "stop-after", llvm::cl::desc("The last step to run"),
      llvm::cl::init(PipelineStep::GenerateBenchmarks),
      llvm::cl::values(
          clEnumValN(PipelineStep::LowerModel, "kb-lower-model",
                     "a model lowered to linalg.generic (the front end)"),
          clEnumValN(PipelineStep::FormDispatches, "kb-form-dispatches",
                     "dispatch formation (the front end)"),
          clEnumValN(PipelineStep::SubstituteSources, "kb-substitute-sources",
                     "source substitution"),
          clEnumValN(PipelineStep::MaterializeVariants,
                     "kb-materialize-variants", "one variant per target"),
          clEnumValN(PipelineStep::Codegen, "kb-codegen",
                     "PTX (+ cubin) and SPIR-V"),
          clEnumValN(PipelineStep::SubstituteObjects, "kb-substitute-objects",
                     "object substitution"),
          clEnumValN(PipelineStep::GenerateBenchmarks, "kb-generate-benchmarks",
                     "benchmark generation"))};
};
} // namespace

/// Adds kb-opt's pipeline to |pm|; a target that does not parse is an
/// error listing the valid ones.
static LogicalResult
buildCliPipeline(OpPassManager &pm, const PipelineCliOptions &cli,
                 function_ref<LogicalResult(const Twine &)> errorHandler) {
  // Passes copy their list options when created: these vectors need only
  // outlive buildCompilerPipeline. (MLIR 16's ListOption has no working
  // ArrayRef conversion.)
  auto list = [](const auto &option) {
    return std::vector<std::string>(option.begin(), option.end());
  };
  std::vector<std::string> sources = list(cli.sources),
                           sourceDirs = list(cli.sourceDirectories),
                           objects = list(cli.objects),
                           objectDirs = list(cli.objectDirectories),
                           searchPaths = list(cli.searchPaths);
  std::vector<::kb::Target> targets;
  for (const std::string &text : cli.targets) {
    ::kb::StatusOr<::kb::Target> target = ::kb::Target::parse(text);
    if (!target.ok())
      return errorHandler("kb-pipeline: " + target.status().message());
    targets.push_back(*target);
  }
  PipelineOptions options;
  options.sources.substitutions = sources;
  options.sources.directories = sourceDirs;
  options.sources.searchPaths = searchPaths;
  options.objects.substitutions = objects;
  options.objects.directories = objectDirs;
  options.objects.searchPaths = searchPaths;
  options.targets = targets;
  options.codegen = cli.codegen;
  options.codegenOptions.emitCubin = cli.emitCubin;
  options.benchmarks = cli.benchmarks;
  options.stopAfter = cli.stopAfter;
  buildCompilerPipeline(pm, options);
  return success();
}

void registerCompilerPipeline() {
  // registerPassPipeline rather than PassPipelineRegistration: its builder
  // can report a target that does not parse.
  registerPassPipeline(
      "kb-pipeline",
      "The compiler pipeline of kb-compile and kernel-bench build (or a "
      "prefix of it, with stop-after)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        PipelineCliOptions cli;
        if (failed(cli.parseFromString(text)))
          return failure();
        return buildCliPipeline(pm, cli, errorHandler);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionHandler) {
        optionHandler(PipelineCliOptions());
      });
}

} // namespace mlir::kb

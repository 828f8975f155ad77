//===- Pipeline.h - The compiler pipeline, declared in one place ----------===//
//
// What `kb-compile` and `kernel-bench build` run on a program, and what
// `kb-opt --kb-pipeline` runs (any prefix of it, with stop-after):
//
//   kb-lower-model                            a model (TOSA / linalg on
//                                             tensors) becomes linalg.generic
//   kb-form-dispatches                        ... and then dispatches
//   kb-substitute-executables (kind=source)   replace whole executables
//   kb-materialize-variants                   one variant per target
//   kb-codegen                                PTX (+ cubin) and SPIR-V
//   kb-substitute-executables (kind=object)   external objects; the
//                                             generated code stays as the
//                                             reference
//   kb-generate-benchmarks                    one benchmark per dispatch
//
// Codegen runs between materialization and object substitution, so a
// substituted variant's generated code becomes its reference. The dumps and
// the .kbm writer are the driver's outputs, after the pipeline
// (docs/pipeline.md).
//
//===----------------------------------------------------------------------===//
#ifndef KB_DIALECT_KB_TRANSFORMS_PIPELINE_H_
#define KB_DIALECT_KB_TRANSFORMS_PIPELINE_H_

#include "common/target.h"
#include "kb/Codegen/Codegen.h"
#include "kb/Dialect/KB/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::kb {

/// The pipeline's steps, in order; kb-opt's `stop-after` names one of them
/// (kb-lower-model, kb-form-dispatches, kb-substitute-sources,
/// kb-materialize-variants, kb-codegen, kb-substitute-objects,
/// kb-generate-benchmarks).
enum class PipelineStep {
  LowerModel,
  FormDispatches,
  SubstituteSources,
  MaterializeVariants,
  Codegen,
  SubstituteObjects,
  GenerateBenchmarks,
};

struct PipelineOptions {
  /// Source and object substitution; `kind` is set by the pipeline. A step
  /// with nothing to substitute is left out. The options hold ArrayRefs:
  /// the lists must outlive the pass manager's run.
  SubstituteExecutablesPassOptions sources, objects;
  /// Empty: keep the variants the program has.
  llvm::ArrayRef<::kb::Target> targets;
  bool codegen = true;
  CodegenPassOptions codegenOptions;
  bool benchmarks = true;
  /// The first step to run (the driver runs the front end alone first, so
  /// that the sources dump shows the formed dispatches).
  PipelineStep startAt = PipelineStep::LowerModel;
  /// The last step to run.
  PipelineStep stopAfter = PipelineStep::GenerateBenchmarks;
  /// Receives one record per generated variant (timings); optional.
  llvm::SmallVectorImpl<CodegenRecord> *codegenRecords = nullptr;
};

/// Adds the pipeline's passes to |pm|.
void buildCompilerPipeline(OpPassManager &pm, const PipelineOptions &options);

/// kb-codegen, with |records| receiving one record per generated variant.
std::unique_ptr<Pass>
createCodegenPass(const CodegenPassOptions &options,
                  llvm::SmallVectorImpl<CodegenRecord> *records);

/// kb-materialize-variants for |targets|, already parsed (its `targets`
/// option is the text kb-opt's command line gives).
std::unique_ptr<Pass>
createMaterializeVariantsPass(llvm::ArrayRef<::kb::Target> targets);

/// Registers the dialects a program given to the pipeline may use: the kb
/// dialect and kernel-body dialects, and a model's tosa, linalg, tensor.
void registerPipelineInputDialects(DialectRegistry &registry);

/// Registers `--kb-pipeline` for kb-opt.
void registerCompilerPipeline();

} // namespace mlir::kb

#endif // KB_DIALECT_KB_TRANSFORMS_PIPELINE_H_

//===- kb/Codegen/Codegen.h - Kernel bodies to PTX, cubin and SPIR-V -----===//
//
// Codegen of a generated (non-external) kb.variant from its executable's
// target-independent kernel body, in-process, with the kernel ABI of
// docs/kernel-abi.md:
//
//  * CUDA: body -> gpu.func -> NVVM (bare pointers: one pointer parameter per
//    binding, then one typed parameter per constant) -> LLVM IR -> NVPTX
//    TargetMachine -> PTX with `.reqntid` = the workgroup size; then, when
//    ptxas is found, a cubin for the variant's architecture.
//  * Vulkan: body -> gpu.func -> SPIR-V dialect (bindings: set 0 binding i
//    storage buffers, NonWritable when readonly; constants: one push-constant
//    block at kb::pushConstantLayout offsets; LocalSize = workgroup size;
//    entry point = export name) -> lower ABI attributes, update VCE ->
//    serialized SPIR-V words.
//
// A body op the lowering does not support is an error at that op naming the
// target. Every generated binary is checked with common/abi_check.h before it
// is returned, so codegen and substitution share one definition of "fits".
//
//===----------------------------------------------------------------------===//
#ifndef KB_CODEGEN_CODEGEN_H_
#define KB_CODEGEN_CODEGEN_H_

#include "kb/Driver/Records.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class Operation;
namespace kb {
class ExecutableOp;
class VariantOp;

/// The variant attribute that holds what codegen produced: an array of
/// `{target = "sm_90", object = #kb.object<{path, data}>}` dictionaries
/// (PTX then cubin for cuda, SPIR-V for vulkan). Kept when object
/// substitution renames the variant to `<name>_reference`.
inline constexpr llvm::StringLiteral kGeneratedAttrName = "kb.generated";

/// One binary produced for a variant.
struct GeneratedBinary {
  /// "ptx", "cubin" or "spv" (the extension the object would have).
  std::string format;
  /// The architecture the binary is for: the PTX `.target` ("sm_90"), the
  /// cubin's `-arch` or the Vulkan environment ("vulkan1.2").
  std::string target;
  std::string data;
};

struct CodegenOptions {
  /// Run ptxas on generated PTX to add a cubin (when ptxas is found).
  bool emitCubin = true;
  /// ptxas to use; empty searches CUDA_PATH/bin, /usr/local/cuda/bin, PATH.
  std::string ptxasPath;
};

/// Registers the dialects and LLVM IR translations codegen needs (gpu, nvvm,
/// llvm, spirv, cf). Call on the registry of every context codegen runs in.
void registerCodegenDialects(DialectRegistry &registry);

/// Generates |variant| of |executable| (which must have a kernel body).
/// Errors are emitted as diagnostics (at the body op that failed, naming
/// the target) and return failure.
LogicalResult generateVariant(ExecutableOp executable, VariantOp variant,
                              const CodegenOptions &options,
                              llvm::SmallVectorImpl<GeneratedBinary> &result);

/// What codegen did for one variant, for reports and bench/: the driver's
/// record (kb/Driver/Records.h), filled here and returned as is.
using CodegenRecord = ::kb::driver::CodegenRecord;

/// Generates every generated (non-external) variant of every executable in
/// |module| that has no kGeneratedAttrName yet and records the binaries
/// there. Keeps going after a failure so one run reports every executable
/// the lowering cannot handle. Codegen is sequential; the ptxas runs for the
/// cubins (options.emitCubin) run in parallel, one per core. |records|
/// (optional) receives one entry per variant generated.
LogicalResult
generateAllVariants(Operation *module, const CodegenOptions &options,
                    llvm::SmallVectorImpl<CodegenRecord> *records);

/// The ptxas executable, or nullopt when none is found.
std::optional<std::string> findPtxas(llvm::StringRef explicitPath = {});

/// Runs `ptxas -arch=<arch>` on |ptx|; on failure sets |error| to ptxas's
/// message. |cubin| receives the ELF bytes.
LogicalResult runPtxas(llvm::StringRef ptxas, llvm::StringRef ptx,
                       llvm::StringRef arch, std::string &cubin,
                       std::string &error);

} // namespace kb
} // namespace mlir

#endif // KB_CODEGEN_CODEGEN_H_

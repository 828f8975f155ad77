//===- kb/Serialization/HostProgram.h - What a host function does --------===//
//
// Evaluates the host side of a program (kb.alloc sizes, kb.dispatch
// workloads and constants) from the constants at each dispatch site. Shared
// by kb-generate-benchmarks and the .kbm writer so that a benchmark and the
// program agree on every size and value.
//
//===----------------------------------------------------------------------===//
#ifndef KB_SERIALIZATION_HOSTPROGRAM_H_
#define KB_SERIALIZATION_HOSTPROGRAM_H_

#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::kb {

/// Module attributes set by kb-generate-benchmarks (see Passes.td) and read
/// by the .kbm writer and the driver.
inline constexpr llvm::StringLiteral kBenchmarksAttrName = "kb.benchmarks";
inline constexpr llvm::StringLiteral kUnbenchmarkedAttrName =
    "kb.unbenchmarked";
/// Executable attribute: the name the user gave the kernel (kernel.toml's
/// `name`, set on a standalone kernel's executable). Its benchmarks are named
/// after it, not after the export, which may be a mangled C++ entry.
inline constexpr llvm::StringLiteral kKernelNameAttrName = "kb.kernel_name";

/// The integer value of |value| when it is computed from constants
/// (arith.constant, casts, add/sub/mul/div/rem/min/max); nullopt otherwise,
/// with |reason| saying why ("it is argument 0 of @main").
std::optional<int64_t> evaluateInteger(Value value,
                                       std::string *reason = nullptr);

/// |value| as a typed constant (IntegerAttr of the value's width, or
/// FloatAttr), or null with |reason|.
TypedAttr evaluateScalar(Value value, std::string *reason = nullptr);

/// Element count of the buffer |value| (a kb.alloc result), or nullopt with
/// |reason|.
std::optional<int64_t> getBufferElementCount(Value value, std::string *reason);

/// A dispatch with every value evaluated.
struct DispatchInfo {
  ExecutableOp executable;
  ExportOp exportOp;
  unsigned exportIndex = 0;
  llvm::SmallVector<int64_t, 3> workload;       // padded to 3 with 1s
  llvm::SmallVector<int64_t, 3> workgroupCount; // 3 entries
  llvm::SmallVector<TypedAttr> constants;       // one per layout constant
  llvm::SmallVector<int64_t> bindingCounts;     // element count per binding
};

/// Evaluates |dispatch|; on failure |reason| says what is not a constant.
/// |symbols| (the module's table, optional) avoids a linear lookup per call.
std::optional<DispatchInfo> analyzeDispatch(DispatchOp dispatch,
                                            std::string &reason,
                                            SymbolTable *symbols = nullptr);

/// The host functions of |module|: `func.func` ops outside executables.
llvm::SmallVector<Operation *> getHostFunctions(ModuleOp module);

/// 64-bit FNV-1a, for stable seeds derived from names.
uint64_t hashName(llvm::StringRef text, uint64_t seed = 0);

/// The spelling of a binding's element type ("f32", "u32").
llvm::StringRef getElementTypeName(BindingElementType type);

/// The element type a buffer of MLIR element type |type| holds when no
/// binding says otherwise (signless integers are signed).
std::optional<BindingElementType> getElementTypeOf(Type type);

/// Discardable attribute of a kb.alloc: how the buffer's inputs are drawn
/// when the default does not fit the kernel (a standalone kernel's [bench]
/// init: index buffers in range, constant fills):
/// `{distribution = "uniform", low, high}` ([low, high); integers rounded
/// toward zero stay in it), `{distribution = "normal", mean, stddev}` or
/// `{distribution = "range", start, step}` (element i = start + i * step; a
/// constant fill has step 0), every number an f64.
inline constexpr llvm::StringLiteral kInitAttrName = "kb.init";

/// The kb.init of the kb.alloc that defines |buffer|, or null.
DictionaryAttr getDeclaredInit(Value buffer);

/// The input specification of a buffer (docs/architecture.md): |declared|
/// (a kb.init) with |seed| added when a dispatch reads it and there is one,
/// else a seeded uniform draw when a dispatch reads it (floats in [-1, 1),
/// signed integers in [-64, 64), unsigned in [0, 128)), zeros when it is
/// only written. `{distribution = "uniform"|"normal"|"range"|"zero", seed,
/// low, high | mean, stddev | start, step}`.
DictionaryAttr buildInitSpec(MLIRContext *context, BindingElementType type,
                             bool isInput, uint64_t seed,
                             DictionaryAttr declared = {});

} // namespace mlir::kb

#endif // KB_SERIALIZATION_HOSTPROGRAM_H_

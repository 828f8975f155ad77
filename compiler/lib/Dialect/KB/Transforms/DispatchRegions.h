//===- DispatchRegions.h - The dispatches of a model function -------------===//
//
// The front end's formation step (kb-form-dispatches): which linalg.generic
// ops of a model function (after TOSA conversion and generalization) become
// one dispatch together, what each dispatch reads, and its kernel body.
// Only FormDispatches.cpp uses it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_LIB_DIALECT_KB_TRANSFORMS_DISPATCHREGIONS_H_
#define KB_LIB_DIALECT_KB_TRANSFORMS_DISPATCHREGIONS_H_

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::kb {

/// Where a dispatch's invocations go: the workload and the workgroup size.
struct DispatchGrid {
  SmallVector<int64_t, 3> workload;
  SmallVector<int64_t, 3> workgroupSize;
};

/// One dispatch: a root generic and the elementwise consumers fused into it.
struct DispatchRegion {
  /// ops.front() is the root; each later op reads the previous one's result
  /// element for element (through reshapes).
  SmallVector<linalg::GenericOp> ops;
  /// The tensors the dispatch reads from memory, resolved through reshapes:
  /// function arguments and earlier dispatches' results, in first-use order.
  SmallVector<Value> inputs;
  /// The documented mapping of the root's result elements to invocations.
  DispatchGrid grid;

  Value getResult() const { return ops.back()->getResult(0); }
};

/// The model functions of |module|: those with tensor arguments or
/// results, or with tosa, linalg or tensor ops.
SmallVector<func::FuncOp> getModelFunctions(ModuleOp module);

/// Rewrites every linalg op of |function| as linalg.generic (named ops with
/// MLIR's generalization; map, reduce, transpose and broadcast, which MLIR
/// 16 does not generalize, from their own region).
void generalizeLinalgOps(func::FuncOp function);

/// Fuses each elementwise generic with a single use into its consumer
/// (MLIR's elementwise fusion, applied once per operand in program order).
void fuseElementwiseProducers(func::FuncOp function);

/// The tensor whose storage |value| is: through expand_shape and
/// collapse_shape, which move no data in row-major storage.
Value getStorage(Value value);

/// Whether dispatches recompute |value| where they read it instead of
/// loading it: a tensor.pad or tensor.extract_slice (read through to the
/// source), a splat constant, or a generic without reductions (a fill, a
/// broadcast) used only as the initial value of other generics.
bool isRecomputed(Value value);

/// The dispatches of |function| in program order; failure after a
/// diagnostic at the op that cannot be formed.
FailureOr<SmallVector<DispatchRegion>>
formDispatchRegions(func::FuncOp function);

/// Builds the body of |region| into the empty function |body| (bindings:
/// the inputs, then the result). Failure after a diagnostic.
LogicalResult buildDispatchBody(func::FuncOp body,
                                const DispatchRegion &region);

} // namespace mlir::kb

#endif // KB_LIB_DIALECT_KB_TRANSFORMS_DISPATCHREGIONS_H_

//===- Passes.h - kb dialect passes ---------------------------------------===//
#ifndef KB_DIALECT_KB_TRANSFORMS_PASSES_H_
#define KB_DIALECT_KB_TRANSFORMS_PASSES_H_

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir {
class ModuleOp;
namespace arith {
class ArithDialect;
}
namespace func {
class FuncDialect;
}
namespace gpu {
class GPUDialect;
}
namespace linalg {
class LinalgDialect;
}
namespace math {
class MathDialect;
}
namespace memref {
class MemRefDialect;
}
namespace scf {
class SCFDialect;
}
namespace tensor {
class TensorDialect;
}
namespace tosa {
class TosaDialect;
}
} // namespace mlir

namespace mlir::kb {

#define GEN_PASS_DECL
#include "kb/Dialect/KB/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kb/Dialect/KB/Transforms/Passes.h.inc"

} // namespace mlir::kb

#endif // KB_DIALECT_KB_TRANSFORMS_PASSES_H_

//===- KBOps.h - kb dialect operations ------------------------------------===//
#ifndef KB_DIALECT_KB_IR_KBOPS_H_
#define KB_DIALECT_KB_IR_KBOPS_H_

#include "kb/Dialect/KB/IR/KBDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::kb {
class ExportOp;
class VariantOp;
} // namespace mlir::kb

#define GET_OP_CLASSES
#include "kb/Dialect/KB/IR/KBOps.h.inc"

#endif // KB_DIALECT_KB_IR_KBOPS_H_

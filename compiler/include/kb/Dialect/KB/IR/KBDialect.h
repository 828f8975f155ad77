//===- KBDialect.h - The kb dialect, its enums, attributes and types ------===//
#ifndef KB_DIALECT_KB_IR_KBDIALECT_H_
#define KB_DIALECT_KB_IR_KBDIALECT_H_

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Types.h"

#include "kb/Dialect/KB/IR/KBDialect.h.inc"
#include "kb/Dialect/KB/IR/KBEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kb/Dialect/KB/IR/KBAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kb/Dialect/KB/IR/KBTypes.h.inc"

#endif // KB_DIALECT_KB_IR_KBDIALECT_H_

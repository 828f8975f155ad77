//===- KBDialect.cpp - kb dialect, attributes and types -------------------===//
#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/IR/KBOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::kb;

#include "kb/Dialect/KB/IR/KBDialect.cpp.inc"
#include "kb/Dialect/KB/IR/KBEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kb/Dialect/KB/IR/KBAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "kb/Dialect/KB/IR/KBTypes.cpp.inc"

void KBDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kb/Dialect/KB/IR/KBAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "kb/Dialect/KB/IR/KBTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kb/Dialect/KB/IR/KBOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Layout text shared by #kb.binding, #kb.constant, #kb.layout and kb.export:
//   bindings(x: f32 readonly, i32 readwrite) constants(n: u32)
//===----------------------------------------------------------------------===//

/// Parses `[name :] keyword` where the keyword is an enum spelling turned
/// into a value by |symbolize|; |what| names the expected kind for errors.
template <typename EnumT, typename SymbolizeFn>
static ParseResult parseNamedEnum(AsmParser &parser, StringAttr &name,
                                  EnumT &value, SymbolizeFn symbolize,
                                  StringRef what, StringRef validSpellings) {
  std::string first;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&first))
    return failure();
  std::string keyword = first;
  name = StringAttr::get(parser.getContext());
  if (succeeded(parser.parseOptionalColon())) {
    name = StringAttr::get(parser.getContext(), first);
    loc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&keyword))
      return failure();
  }
  auto parsed = symbolize(keyword);
  if (!parsed)
    return parser.emitError(loc)
           << "expected " << what << " (one of " << validSpellings
           << "), found '" << keyword << "'";
  value = *parsed;
  return success();
}

static ParseResult parseBindingBody(AsmParser &parser, BindingAttr &attr) {
  StringAttr name;
  BindingElementType type = BindingElementType::F32;
  if (parseNamedEnum(
          parser, name, type,
          [](StringRef s) { return symbolizeBindingElementType(s); },
          "a binding element type",
          "i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64"))
    return failure();
  std::string accessText;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&accessText))
    return failure();
  auto access = symbolizeBindingAccess(accessText);
  if (!access)
    return parser.emitError(loc)
           << "expected a binding access (one of readonly, writeonly, "
              "readwrite), found '"
           << accessText << "'";
  attr = BindingAttr::get(parser.getContext(), name, type, *access);
  return success();
}

static void printBindingBody(AsmPrinter &printer, BindingAttr attr) {
  if (attr.getName() && !attr.getName().getValue().empty()) {
    printer.printKeywordOrString(attr.getName().getValue());
    printer << ": ";
  }
  printer << stringifyBindingElementType(attr.getElementType()) << " "
          << stringifyBindingAccess(attr.getAccess());
}

static ParseResult parseConstantBody(AsmParser &parser, ConstantAttr &attr) {
  StringAttr name;
  ConstantType type = ConstantType::I32;
  if (parseNamedEnum(
          parser, name, type,
          [](StringRef s) { return symbolizeConstantType(s); },
          "a constant type", "i32, u32, f32, i64, u64, f64"))
    return failure();
  attr = ConstantAttr::get(parser.getContext(), name, type);
  return success();
}

static void printConstantBody(AsmPrinter &printer, ConstantAttr attr) {
  if (attr.getName() && !attr.getName().getValue().empty()) {
    printer.printKeywordOrString(attr.getName().getValue());
    printer << ": ";
  }
  printer << stringifyConstantType(attr.getType());
}

namespace mlir::kb {
/// `bindings(...)? constants(...)?`; used by kb.export's custom directive.
ParseResult parseLayoutBody(AsmParser &parser, LayoutAttr &layout) {
  SmallVector<BindingAttr> bindings;
  SmallVector<ConstantAttr> constants;
  if (succeeded(parser.parseOptionalKeyword("bindings"))) {
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&] {
          return parseBindingBody(parser, bindings.emplace_back());
        }))
      return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("constants"))) {
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&] {
          return parseConstantBody(parser, constants.emplace_back());
        }))
      return failure();
  }
  layout = LayoutAttr::get(parser.getContext(), bindings, constants);
  return success();
}

void printLayoutBody(AsmPrinter &printer, LayoutAttr layout) {
  bool space = false;
  if (!layout.getBindings().empty()) {
    printer << "bindings(";
    llvm::interleaveComma(layout.getBindings(), printer,
                          [&](BindingAttr b) { printBindingBody(printer, b); });
    printer << ")";
    space = true;
  }
  if (!layout.getConstants().empty()) {
    if (space)
      printer << " ";
    printer << "constants(";
    llvm::interleaveComma(layout.getConstants(), printer, [&](ConstantAttr c) {
      printConstantBody(printer, c);
    });
    printer << ")";
  }
}
} // namespace mlir::kb

Attribute BindingAttr::parse(AsmParser &parser, Type) {
  BindingAttr attr;
  if (parser.parseLess() || parseBindingBody(parser, attr) ||
      parser.parseGreater())
    return {};
  return attr;
}

void BindingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBindingBody(printer, *this);
  printer << ">";
}

Attribute ConstantAttr::parse(AsmParser &parser, Type) {
  ConstantAttr attr;
  if (parser.parseLess() || parseConstantBody(parser, attr) ||
      parser.parseGreater())
    return {};
  return attr;
}

void ConstantAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printConstantBody(printer, *this);
  printer << ">";
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  LayoutAttr attr;
  if (parser.parseLess() || parseLayoutBody(parser, attr) ||
      parser.parseGreater())
    return {};
  return attr;
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printLayoutBody(printer, *this);
  printer << ">";
}

Attribute ObjectAttr::parse(AsmParser &parser, Type) {
  std::string path, data;
  if (parser.parseLess() || parser.parseLBrace() ||
      parser.parseKeyword("path") || parser.parseEqual() ||
      parser.parseString(&path) || parser.parseComma() ||
      parser.parseKeyword("data") || parser.parseEqual() ||
      parser.parseString(&data) || parser.parseRBrace() ||
      parser.parseGreater())
    return {};
  return ObjectAttr::get(parser.getContext(), path, data);
}

void ObjectAttr::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << "<{path = \"";
  llvm::printEscapedString(getPath(), os);
  os << "\", data = \"";
  llvm::printEscapedString(getData(), os);
  os << "\"}>";
}

StringRef ObjectAttr::getFormat() const {
  StringRef ext = llvm::sys::path::extension(getPath());
  if (ext.equals_insensitive(".ptx"))
    return "ptx";
  if (ext.equals_insensitive(".cubin"))
    return "cubin";
  if (ext.equals_insensitive(".spv"))
    return "spv";
  return "";
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape()) {
    if (ShapedType::isDynamic(dim))
      printer << "?";
    else
      printer << dim;
    printer << "x";
  }
  printer << getElementType() << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "a buffer needs at least one dimension";
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) && dim < 0)
      return emitError() << "buffer dimension " << dim << " is negative";
  if (!elementType.isIntOrFloat())
    return emitError() << "buffer element type must be an integer or float, "
                          "found "
                       << elementType;
  return success();
}

unsigned BufferType::getNumDynamicDims() const {
  return llvm::count_if(getShape(), ShapedType::isDynamic);
}

std::optional<int64_t> BufferType::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : getShape()) {
    if (ShapedType::isDynamic(dim))
      return std::nullopt;
    count *= dim;
  }
  return count;
}

//===- common/npy.cpp - NumPy .npy arrays ---------------------------------===//
#include "common/npy.h"

#include "common/terminal_text.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

namespace kb::npy {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
const char *const kHowToSave =
    "; write it with numpy.save(path, numpy.ascontiguousarray(a))";

/// NumPy's name of the type |descr|'s kind and size make, for messages.
const char *numpyName(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return "int8";
  case ElementType::U8:
    return "uint8";
  case ElementType::I16:
    return "int16";
  case ElementType::U16:
  case ElementType::BF16:
    return "uint16";
  case ElementType::I32:
    return "int32";
  case ElementType::U32:
    return "uint32";
  case ElementType::I64:
    return "int64";
  case ElementType::U64:
    return "uint64";
  case ElementType::F16:
    return "float16";
  case ElementType::F32:
    return "float32";
  case ElementType::F64:
    return "float64";
  }
  return "?";
}

/// The header dict's values: a string, a bool or a tuple of integers.
struct Value {
  enum class Kind { String, Bool, Tuple } kind = Kind::String;
  std::string text;
  bool flag = false;
  std::vector<uint64_t> numbers;
};

/// A cursor over the header's Python dict literal.
class HeaderParser {
public:
  HeaderParser(std::string_view text, std::string where)
      : text_(text), where_(std::move(where)) {}

  StatusOr<std::map<std::string, Value>> dict() {
    std::map<std::string, Value> entries;
    KB_RETURN_IF_ERROR(expect('{'));
    while (!consume('}')) {
      KB_ASSIGN_OR_RETURN(std::string key, string());
      KB_RETURN_IF_ERROR(expect(':'));
      KB_ASSIGN_OR_RETURN(Value value, this->value(key));
      if (!entries.emplace(key, std::move(value)).second)
        return error("the key `" + key + "` twice");
      if (!consume(',')) {
        KB_RETURN_IF_ERROR(expect('}'));
        break;
      }
    }
    skipSpace();
    if (at_ != text_.size())
      return error("text after the header dict");
    return entries;
  }

private:
  void skipSpace() {
    while (at_ < text_.size() && std::isspace(uint8_t(text_[at_])))
      ++at_;
  }
  bool consume(char c) {
    skipSpace();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  Status expect(char c) {
    return consume(c) ? okStatus() : error(std::string("`") + c + "`");
  }
  Status error(const std::string &expected) const {
    return invalidArgument(
        where_ + ": the .npy header is not the dict NumPy writes: expected " +
        expected + " at offset " + std::to_string(at_) + " of `" +
        terminalLine(std::string(text_)) + "`" + kHowToSave);
  }
  StatusOr<std::string> string() {
    skipSpace();
    char quote = at_ < text_.size() ? text_[at_] : 0;
    if (quote != '\'' && quote != '"')
      return error("a quoted string");
    size_t end = text_.find(quote, at_ + 1);
    if (end == std::string_view::npos)
      return error("the end of a quoted string");
    std::string s(text_.substr(at_ + 1, end - at_ - 1));
    at_ = end + 1;
    return s;
  }
  StatusOr<uint64_t> integer() {
    skipSpace();
    uint64_t v = 0;
    size_t start = at_;
    for (; at_ < text_.size() && std::isdigit(uint8_t(text_[at_])); ++at_) {
      uint64_t digit = uint64_t(text_[at_] - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        return error("a dimension below 2^64");
      v = v * 10 + digit;
    }
    if (at_ == start)
      return error("a non-negative integer dimension");
    if (at_ < text_.size() && (text_[at_] == 'L' || text_[at_] == 'l'))
      ++at_; // Python 2's long suffix, in files NumPy wrote under Python 2.
    return v;
  }
  StatusOr<Value> value(const std::string &key) {
    skipSpace();
    Value v;
    if (text_.substr(at_, 4) == "True" || text_.substr(at_, 5) == "False") {
      v.kind = Value::Kind::Bool;
      v.flag = text_[at_] == 'T';
      at_ += v.flag ? 4 : 5;
      return v;
    }
    if (consume('(')) {
      v.kind = Value::Kind::Tuple;
      while (!consume(')')) {
        KB_ASSIGN_OR_RETURN(uint64_t n, integer());
        v.numbers.push_back(n);
        if (!consume(',')) {
          KB_RETURN_IF_ERROR(expect(')'));
          break;
        }
      }
      return v;
    }
    if (at_ < text_.size() && text_[at_] == '[')
      return error("a dtype string for `" + key +
                   "`, not a list (a structured dtype, which no binding "
                   "holds)");
    KB_ASSIGN_OR_RETURN(v.text, string());
    return v;
  }

  std::string_view text_;
  std::string where_;
  size_t at_ = 0;
};

/// |descr| as a binding's element type: `<f4`, `|u1`, `<i8`, ...
StatusOr<ElementType> elementTypeOf(const std::string &descr,
                                    const std::string &where) {
  static const std::map<std::string, ElementType> kinds = {
      {"i1", ElementType::I8},  {"u1", ElementType::U8},
      {"i2", ElementType::I16}, {"u2", ElementType::U16},
      {"i4", ElementType::I32}, {"u4", ElementType::U32},
      {"i8", ElementType::I64}, {"u8", ElementType::U64},
      {"f2", ElementType::F16}, {"f4", ElementType::F32},
      {"f8", ElementType::F64}};
  char order = descr.empty() ? 0 : descr[0];
  bool hasOrder = order == '<' || order == '>' || order == '|' || order == '=';
  auto kind = kinds.find(hasOrder ? descr.substr(1) : descr);
  if (kind == kinds.end())
    return invalidArgument(
        where + ": dtype `" + terminalLine(descr) +
        "` is not one a binding holds: expected little-endian int8..int64, "
        "uint8..uint64, float16, float32 or float64 (`<f4`, `|u1`, ...); "
        "convert it with a.astype(...) before numpy.save");
  if (order == '>' && byteSize(kind->second) > 1)
    return invalidArgument(
        where + ": dtype `" + descr +
        "` is big-endian; kernel-bench reads little-endian arrays: save "
        "a.astype('<" +
        descr.substr(1) + "')");
  return kind->second;
}

/// The header's length field and text, after the magic and version.
StatusOr<std::string_view> headerText(std::string_view bytes,
                                      const std::string &where,
                                      size_t &dataStart) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, 6) != kMagic)
    return invalidArgument(
        where +
        ": not a NumPy .npy file: expected the magic `\\x93NUMPY` at "
        "its start, found `" +
        terminalLine(std::string(bytes.substr(0, 6))) + "`" + kHowToSave);
  if (bytes.size() < 8)
    return invalidArgument(
        where + ": truncated .npy header: " + std::to_string(bytes.size()) +
        " bytes, no format version; the file was cut "
        "short: copy or save it again");
  uint8_t major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return invalidArgument(where + ": .npy format version " +
                           std::to_string(major) + "." + std::to_string(minor) +
                           ": expected 1.0, 2.0 or 3.0" + kHowToSave);
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes)
    return invalidArgument(where + ": truncated .npy header: the file ends "
                                   "inside its header length; copy or save "
                                   "it again");
  uint64_t length = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    length |= uint64_t(uint8_t(bytes[8 + i])) << (8 * i);
  dataStart = 8 + lengthBytes + length;
  if (bytes.size() < dataStart)
    return invalidArgument(where + ": truncated .npy header: it declares " +
                           std::to_string(length) + " header bytes, the file " +
                           "has " +
                           std::to_string(bytes.size() - 8 - lengthBytes) +
                           " after the length field; copy or save it again");
  return bytes.substr(8 + lengthBytes, length);
}

/// The header's three keys into |out|.
Status readHeader(std::string_view text, const std::string &where, Array &out) {
  HeaderParser parser(text, where);
  KB_ASSIGN_OR_RETURN(auto dict, parser.dict());
  for (const char *key : {"descr", "fortran_order", "shape"})
    if (!dict.count(key))
      return invalidArgument(where + ": the .npy header has no `" +
                             std::string(key) + "`" + kHowToSave);
  if (dict.size() != 3)
    return invalidArgument(where +
                           ": the .npy header has keys other than "
                           "descr, fortran_order and shape" +
                           std::string(kHowToSave));
  const Value &descr = dict["descr"], &fortran = dict["fortran_order"],
              &shape = dict["shape"];
  if (descr.kind != Value::Kind::String || fortran.kind != Value::Kind::Bool ||
      shape.kind != Value::Kind::Tuple)
    return invalidArgument(where +
                           ": the .npy header's descr, fortran_order "
                           "or shape has the wrong type" +
                           std::string(kHowToSave));
  if (fortran.flag)
    return invalidArgument(
        where + ": the array is stored in Fortran (column-major) order; "
                "kernel-bench reads C order: save "
                "numpy.ascontiguousarray(a) instead");
  out.descr = descr.text;
  KB_ASSIGN_OR_RETURN(out.elementType, elementTypeOf(descr.text, where));
  out.shape = shape.numbers;
  return okStatus();
}

std::string shapeText(const std::vector<uint64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

} // namespace

std::string descrOf(ElementType type) {
  const char *kind = type == ElementType::F16 || type == ElementType::F32 ||
                             type == ElementType::F64
                         ? "f"
                     : type == ElementType::I8 || type == ElementType::I16 ||
                             type == ElementType::I32 ||
                             type == ElementType::I64
                         ? "i"
                         : "u";
  uint32_t size = byteSize(type);
  return std::string(size == 1 ? "|" : "<") + kind + std::to_string(size);
}

StatusOr<Array> parse(std::string_view bytes, const std::string &where) {
  size_t dataStart = 0;
  KB_ASSIGN_OR_RETURN(std::string_view text,
                      headerText(bytes, where, dataStart));
  Array out;
  KB_RETURN_IF_ERROR(readHeader(text, where, out));
  uint64_t count = 1;
  const uint64_t size = byteSize(out.elementType);
  for (uint64_t d : out.shape) {
    if (d != 0 && count > std::numeric_limits<uint64_t>::max() / size / d)
      return invalidArgument(where + ": shape " + shapeText(out.shape) +
                             " is too large to be a file");
    count *= d;
  }
  out.elementCount = count;
  uint64_t expected = count * size, found = bytes.size() - dataStart;
  if (found != expected)
    return invalidArgument(
        where + ": the header declares shape " + shapeText(out.shape) +
        " of `" + out.descr + "`, " + std::to_string(expected) +
        " bytes of data, but the file holds " + std::to_string(found) +
        (found < expected ? " (truncated: copy or save it again)"
                          : " (not one .npy array: save one array per file "
                            "with numpy.save)"));
  out.data.assign(bytes.substr(dataStart));
  return out;
}

StatusOr<Array> parseFor(std::string_view bytes, const std::string &where,
                         ElementType type, uint64_t count,
                         const std::string &binding) {
  KB_ASSIGN_OR_RETURN(Array array, parse(bytes, where));
  // bf16 is stored as its bits; a uint16 file is what it is written as.
  bool typeFits =
      array.elementType == type ||
      (type == ElementType::BF16 && array.elementType == ElementType::U16);
  if (!typeFits)
    return invalidArgument(
        where + ": dtype `" + array.descr + "` (" +
        numpyName(array.elementType) + ") does not match " + binding + " (" +
        toString(type) + ", stored as `" + descrOf(type) + "`" +
        (type == ElementType::BF16 ? ", the raw bits" : "") +
        "); save a.astype(numpy." + numpyName(type) + ")" +
        (type == ElementType::BF16 ? " of the bfloat16 bits (a.view)" : ""));
  if (array.elementCount != count)
    return invalidArgument(where + ": " + std::to_string(array.elementCount) +
                           " elements (shape " + shapeText(array.shape) +
                           "), but " + binding + " has " +
                           std::to_string(count) +
                           " ([bench] elements); save an array of that "
                           "size or change the element count");
  return array;
}

std::string encode(ElementType type, const std::vector<uint64_t> &shape,
                   std::string_view data) {
  std::string header =
      "{'descr': '" + descrOf(type) +
      "', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
  // NumPy pads the header with spaces so the data starts 64-byte aligned,
  // and ends it with a newline.
  size_t total = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + std::string(data);
}

} // namespace kb::npy

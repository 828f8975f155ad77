//===- common/npy.h - NumPy .npy arrays (format 1.0, 2.0, 3.0) ------------===//
//
// The reader of the fixed inputs and expected outputs a kernel.toml names
// (`[bench] init = { x = { file = "x.npy" } }`, `reference = { outputs =
// { y = "y.npy" } }`). Debian packages no C++ .npy library, so this is a
// small strict one: the magic, format versions 1.0 (16-bit header length),
// 2.0 and 3.0 (32-bit), a header dict with exactly `descr`, `fortran_order`
// and `shape`, little-endian C-order arrays of the dtypes a binding holds,
// and data of exactly the size the header declares. Everything else is an
// error naming the file, what was expected, what was found and what to do:
// files come from elsewhere and are treated as hostile.
//
// The writer (format 1.0) is what tests and tools use to make such files
// without NumPy.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_NPY_H_
#define KB_COMMON_NPY_H_

#include "common/kernel_abi.h"
#include "common/status.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kb::npy {

/// One array as its file holds it.
struct Array {
  /// The header's dtype (`<f4`) and the element type it is.
  std::string descr;
  ElementType elementType = ElementType::F32;
  /// `shape` as written; an empty shape (a scalar) holds one element.
  std::vector<uint64_t> shape;
  uint64_t elementCount = 0;
  /// The elements, little-endian, C order: elementCount * byteSize bytes.
  std::string data;
};

/// The dtype a buffer of |type| is stored with: `<f4`, `|u1`, ...; bf16 is
/// `<u2`, its raw bits (NumPy has no bfloat16: `a.view(numpy.uint16)`).
std::string descrOf(ElementType type);

/// Parses |bytes|, the whole of a .npy file called |where| in messages.
/// InvalidArgument for anything that is not a little-endian C-order array
/// of a binding's element type, or whose data is not exactly the size the
/// header says.
StatusOr<Array> parse(std::string_view bytes, const std::string &where);

/// Parses |bytes| and checks it fits a binding: dtype descrOf(|type|) and
/// |count| elements. |binding| names it in messages (`binding \`x\``).
StatusOr<Array> parseFor(std::string_view bytes, const std::string &where,
                         ElementType type, uint64_t count,
                         const std::string &binding);

/// A format-1.0 .npy file of |data| (little-endian elements of |type|,
/// C order) with |shape|.
std::string encode(ElementType type, const std::vector<uint64_t> &shape,
                   std::string_view data);

} // namespace kb::npy

#endif // KB_COMMON_NPY_H_

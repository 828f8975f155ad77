//===- common/cuda_signature.h - A CUDA kernel's parameters from its name -===//
//
// PTX keeps a kernel's parameters only as sizes (`.param .u64`), but a C++
// kernel's mangled entry name (`_Z6reduceILj256ELb1EEvPKfPfj`) spells its
// whole signature: `kernel-bench import` reads each parameter's type and
// constness from it, through the C++ runtime's own Itanium demangler. An
// `extern "C"` kernel has no such name; its parameters stay what PTX says.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_CUDA_SIGNATURE_H_
#define KB_COMMON_CUDA_SIGNATURE_H_

#include "common/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// One parameter as the demangled signature spells it.
struct CudaParameter {
  std::string spelled;       // "float const*", "unsigned int"
  bool pointer = false;      // one level of indirection
  bool pointeeConst = false; // `const T *`
  /// The kernel ABI's name of the scalar (the pointee's for a pointer,
  /// the component's for a CUDA vector type such as float4): "f32", "u32",
  /// "f16", "bf16", ...; empty when it is none of the ABI's types (a
  /// struct, a pointer to pointer, bool).
  std::string type;
  /// Components of a CUDA vector type (float4: 4); 1 for scalars.
  unsigned vectorWidth = 1;
};

struct CudaSignature {
  std::string demangled; // "void reduce<256u, true>(float const*, ...)"
  std::string function;  // "reduce"
  /// The qualified name with its template arguments as the demangler
  /// spells them, without return type and parameters: "reduce<256u, true>",
  /// "ns::tile" (no template). What `entry = "reduce<256, true>"` names.
  std::string instance;
  std::vector<CudaParameter> parameters;
};

/// The signature of a mangled (`_Z...`) kernel name. InvalidArgument when
/// |mangled| is not an Itanium-mangled function name.
StatusOr<CudaSignature> demangleCudaKernel(std::string_view mangled);

/// Whether |written| (a kernel.toml `entry` such as "MatrixMulCUDA<32>")
/// names the template instance |instance| (CudaSignature::instance): equal
/// but for spaces and the integer suffixes the demangler adds to unsigned
/// and long arguments (`256u`, `32ul`).
bool sameTemplateInstance(std::string_view written, std::string_view instance);

/// Whether |name| is a mangled C++ name (not an `extern "C"` one).
bool isMangledName(std::string_view name);

/// The parameter names of the `__global__` function |function| as |text|
/// (its CUDA source) declares it: the last identifier of each parameter.
/// Empty when no declaration with |count| named parameters is found
/// (macros may hide it): PTX keeps no names, the source is all there is.
std::vector<std::string> cudaSourceParameterNames(std::string_view text,
                                                  const std::string &function,
                                                  size_t count);

} // namespace kb

#endif // KB_COMMON_CUDA_SIGNATURE_H_

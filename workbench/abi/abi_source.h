//===- workbench/abi/abi_source.h - A kernel ABI as CUDA and GLSL source --===//
//
// What `kernel-bench abi` prints and `kernel-bench new-kernel` writes: the
// declarations a handwritten kernel must have to fit one export's ABI
// (docs/kernel-abi.md), spelled the way a user writes them — the CUDA
// parameter list (bindings as pointers, const for readonly, then the
// constants) and the GLSL interface (one set-0 storage buffer per binding,
// the constants in one push-constant block at kb::pushConstantLayout's
// offsets). One renderer for both commands, so what `abi` shows is what
// `new-kernel` writes.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_ABI_ABI_SOURCE_H_
#define KB_WORKBENCH_ABI_ABI_SOURCE_H_

#include "common/kernel_abi.h"

#include <string>
#include <vector>

namespace kb::workbench {

/// The identifiers the sources use for an export's bindings and constants:
/// the ABI's name where it is a C/GLSL identifier that is free (not a
/// keyword, built-in or type name of CUDA C++ or GLSL, not the entry, not
/// used twice), else that name with a `_` appended when that is free
/// (`input` -> `input_`), else `binding<i>` / `constant<i>`.
struct SourceNames {
  std::vector<std::string> bindings;
  std::vector<std::string> constants;
};
SourceNames sourceNames(const KernelAbi &abi);

/// "`x`: f32 elements, readonly" for binding |i| (the ABI's own name, also
/// when the source uses another identifier).
std::string describeBindingSlot(const KernelAbi &abi, size_t i);
/// "`n`: u32" for constant |i|.
std::string describeConstantSlot(const KernelAbi &abi, size_t i);

/// Whether |entry| can be a CUDA `extern "C"` kernel's name.
bool isCudaEntryName(const std::string &entry);

/// The CUDA declaration, e.g.
///   extern "C" __global__ void __launch_bounds__(256)
///   saxpy(const float *x, float *y, float a, unsigned n);
/// With |withComments|, one parameter a line, each with a comment saying
/// which binding or constant it is and its parameter offset, ending in ` {`
/// instead of `;` (the start of a definition).
std::string cudaDeclaration(const KernelAbi &abi, bool withComments);

/// `#include` lines the CUDA parameter types need (cuda_fp16.h for f16,
/// cuda_bf16.h for bf16); empty when none.
std::string cudaIncludes(const KernelAbi &abi);

/// The GLSL interface: local size, the buffers and the push-constant block
/// (members at explicit kb::pushConstantLayout offsets). With
/// |withComments|, a comment per binding and constant. Without the
/// #version and #extension lines (glslExtensions).
std::string glslInterface(const KernelAbi &abi, bool withComments);

/// `#extension ... : require` lines the GLSL types need (8/16-bit storage,
/// explicit arithmetic types); empty when none.
std::string glslExtensions(const KernelAbi &abi);

/// How a constant is read in the GLSL body: "pc.n".
std::string glslConstantAccess(const KernelAbi &abi, size_t i);

} // namespace kb::workbench

#endif // KB_WORKBENCH_ABI_ABI_SOURCE_H_

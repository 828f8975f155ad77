//===- workbench/abi/kernel_import.h - A kernel.toml from a binary --------===//
//
// `kernel-bench import` starts a kernel.toml from what the compiled kernel
// itself declares, so a kernel written for another project needs no ABI
// typed by hand. Each source is compiled with the real tools (glslc +
// spirv-val, nvcc + ptxas, as `build` runs them, without the ABI check) and
// its interface read back:
//
//   SPIR-V  bindings with element types and access (NonWritable,
//           NonReadable), push-constant members with names and types,
//           specialization constants with defaults, the local size and its
//           SpecIds, the subgroup operations it needs;
//   PTX     the entry's parameters, typed from the Itanium-mangled name
//           (`PKf` is `const float *`: readonly f32) with names from the
//           source's declaration; an `extern "C"` kernel's only from their
//           sizes, the ambiguity left for the user.
//
// What no binary says (element counts, the workload, constant values, a
// CUDA launch size without __launch_bounds__) is written as a string that
// starts with "TODO:" and says what to write there; the project reader
// refuses the kernel until every one is replaced (toml_file.h).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_ABI_KERNEL_IMPORT_H_
#define KB_WORKBENCH_ABI_KERNEL_IMPORT_H_

#include "common/status.h"
#include "common/target.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::toolchains {
class Toolchains;
}

namespace kb::workbench {

struct ImportRequest {
  /// .cu and/or .comp/.glsl sources, at most one of each family.
  std::vector<std::filesystem::path> sources;
  /// CUDA: the kernel's function name (or mangled name); empty: the PTX's
  /// only entry.
  std::string entry;
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<std::filesystem::path> includeDirs;
  /// What each family is compiled for, at most one each; a family without
  /// one: cuda:sm_90, vulkan:1.2.
  std::vector<Target> targets;
  /// Where the kernel.toml goes: sources are written relative to it.
  std::filesystem::path directory;
};

/// A binding or a constant as read from the binary. |type| is the ABI's
/// name ("f32", "u32", ...), empty when the binary cannot tell; |todo| then
/// says what to write.
struct ImportedSlot {
  std::string name;
  std::string type;
  std::string access; // bindings only
  std::string comment;
  std::string todo;
  uint32_t count = 1; // constants: entries of an array (`count = N`)
};

struct ImportedSpecConstant {
  uint32_t specId = 0;
  std::string name;
  std::string type;
  std::string defaultValue; // as TOML text
  std::string comment;      // "local_size_x", when it sets the size
};

struct ImportedKernel {
  std::string name;
  std::vector<std::filesystem::path> sources; // absolute
  std::string entry;                          // CUDA's, empty without one
  std::vector<ImportedSlot> bindings;
  std::vector<ImportedSlot> constants;
  /// Known from the binary (.reqntid/.maxntid, LocalSize); empty: a TODO.
  std::optional<std::array<uint32_t, 3>> workgroupSize;
  std::string workgroupComment;
  /// The PTX declares `extern __shared__` memory: its size is the launch's.
  bool dynamicSharedMemory = false;
  std::vector<ImportedSpecConstant> specialization;
  /// Header lines: what each source was read as, subgroup operations.
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<std::filesystem::path> includeDirs;
  /// The targets the sources were read for (written as `targets`).
  std::vector<Target> targets;
};

/// Compiles and reads every source of |request|. InvalidArgument for a
/// source of no known family, a source that does not compile (the tools'
/// output included), an interface the kernel ABI cannot describe (saying
/// why), or two sources whose interfaces differ; Unavailable when a tool
/// is missing.
StatusOr<ImportedKernel> importKernel(const ImportRequest &request,
                                      const toolchains::Toolchains &tools);

/// The kernel.toml text for |kernel|, paths relative to |directory|.
std::string renderImportedToml(const ImportedKernel &kernel,
                               const std::filesystem::path &directory);

/// The text every placeholder starts with.
inline constexpr const char *kImportPlaceholder = "TODO:";

} // namespace kb::workbench

#endif // KB_WORKBENCH_ABI_KERNEL_IMPORT_H_

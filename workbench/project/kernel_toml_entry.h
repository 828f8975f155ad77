//===- workbench/project/kernel_toml_entry.h - A templated `entry` --------===//
//
// `[kernel] entry` may name an instance of a CUDA function template whose
// arguments are integers or names: `entry = "MatrixMulCUDA<BLOCK_SIZE>"`
// with `[tune] BLOCK_SIZE = [16, 32]`, the way kernels from public projects
// take their tile size. Each name is a tuned name (tune passes it as a
// define) or an integer in `defines`; its value differs per source and per
// configuration, so the entry is kept as written (Kernel::entry) and each
// CUDA spec gets its own instance (KernelSpec::templateInstance,
// `MatrixMulCUDA<32>`) whenever its values change, as its launch shape does
// (kernel_toml_launch.h). The toolchain layer instantiates it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_ENTRY_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_ENTRY_H_

#include "workbench/project/project.h"
#include "workbench/project/toml_file.h"

#include <string>

namespace kb::workbench {

/// Whether |entry| (`[kernel] entry` as written) names a template instance.
bool isTemplateEntry(const std::string &entry);

/// The name a template entry's kernel is exported and benchmarked under:
/// its template's unqualified name (`MatrixMulCUDA`); |entry| otherwise.
std::string entryExportName(const std::string &entry);

/// Checks a template `entry` of |kernel| at |node|, once [tune] and the
/// defines are read: a (qualified) name, then arguments each an integer or
/// a name that is tuned as a define or an integer in `defines`.
Status checkTemplateEntry(const TomlFile &file, const toml::node &node,
                          const Kernel &kernel);

/// For a CUDA |spec| of a kernel whose entry is a template: the instance
/// its values name, as its templateInstance, entry and ABI entry. An error
/// names a tuned argument without a value (no default).
Status instantiateEntry(const Kernel &kernel, toolchains::KernelSpec &spec);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_ENTRY_H_

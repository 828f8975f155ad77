//===- workbench/project/kernel_toml_declared.h - [roofline] and ----------===//
//
// The part of kernel.toml (kernel_toml.h) that declares figures rather than
// how to build: `[roofline]` (flops, bytes_moved) and `[tolerance]` (abs,
// rel, ulp, reduction_length, and per output `[tolerance.outputs.NAME]`)
// and `[bench] special_values`, read into a bench::KernelDeclared
// (runtime/bench/declared.h). Expressions
// (declared_expression.h) name the kernel's [bench] constants, its integer
// `defines` and the workload (`workload_x`, `workload_y`, `workload_z`).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_DECLARED_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_DECLARED_H_

#include "runtime/bench/declared.h"
#include "workbench/project/project.h"
#include "workbench/project/toml_file.h"

namespace kb::workbench {

/// Reads `[roofline]`, `[tolerance]` and `[bench] special_values` of |root|
/// into |kernel|.declared,
/// against |abi| and the kernel's [bench] (read before) and |defines|.
/// Errors are located (`file:line:col`) and name the key.
Status
readDeclared(const TomlFile &file, const toml::table &root,
             const KernelAbi &abi,
             const std::vector<std::pair<std::string, std::string>> &defines,
             Kernel &kernel);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_DECLARED_H_

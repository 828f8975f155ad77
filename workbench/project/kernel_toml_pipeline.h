//===- workbench/project/kernel_toml_pipeline.h - Subgroup size, ----------===//
//
// The part of kernel.toml (kernel_toml.h) that says what a kernel assumes of
// the pipeline it runs in: `[abi] subgroup_size` / `full_subgroups` (the
// subgroup size it was written for) and `[specialization]` (SPIR-V
// specialization constants by name, `local_size_x|y|z` or SpecId). Values
// are checked against the SPIR-V after the build (common/specialization.h);
// here, everything the file alone decides.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_PIPELINE_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_PIPELINE_H_

#include "workbench/project/project.h"
#include "workbench/project/toml_file.h"

namespace kb::workbench {

/// `[abi] subgroup_size` (a power of two, 1 to 128) and `full_subgroups`
/// into |abi|.
Status readSubgroupSize(const TomlFile &file, const toml::table &abiTable,
                        KernelAbi &abi);

/// `[specialization]` of |root| into every GLSL spec of |kernel| (read
/// after the sources), and the checks that need the whole file: no
/// [specialization] on a kernel without a GLSL source, no name that is also
/// a `[kernel.defines]` macro, a CUDA source only with subgroup_size 32, full
/// subgroups only with a workgroup size x that is a multiple of the size.
Status readPipelineSettings(const TomlFile &file, const toml::table &root,
                            const toml::table &kernelTable,
                            const toml::table &abiTable, Kernel &kernel);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_PIPELINE_H_

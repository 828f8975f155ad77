// A CUDA object on its own terms: a name of its own (`entry=NAME`, the
// kernel.toml `entry`) and its parameters in its own order
// (`parameter_order=S0.S1...`, the kernel.toml [abi] `parameters`: the ABI
// slot of each parameter, binding i being i and constant j bindings + j).
// scale_add(n, a, y, x) holds the slots 3, 2, 1, 0 of @saxpy's (x, y; a, n).
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=scale_add.ptx launch=entry=scale_add;parameter_order=3.2.1.0 search-paths=%S/Inputs print-notes=false})' | FileCheck %s
// In the export's order it does not fit: the first parameter is `n`.
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=scale_add.ptx launch=entry=scale_add search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=EXPORT-ORDER
// An order that leaves a slot out, or a wrong one, is refused.
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=scale_add.ptx launch=entry=scale_add;parameter_order=3.2.1 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=scale_add.ptx launch=entry=scale_add;parameter_order=2.3.1.0 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=SWAPPED
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=scale_add.ptx launch=parameter_order=3.x search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// SPIR-V binds by binding number and push-constant offset.
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.spv launch=parameter_order=1.0.2.3 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=SPIRV
// An entry of its own without the executable's export name: no such entry.
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=scale_add.ptx search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=NO-ENTRY

// CHECK: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects(
// CHECK-SAME: entry_points({saxpy = "scale_add"})
// CHECK-SAME: kb.parameter_order = array<i64: 3, 2, 1, 0>
// CHECK-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// EXPORT-ORDER: parameter 0 (binding 0 `x`): expected .u64 pointer (8 bytes), found .u32 (4 bytes)
// MISSING: object '{{.*}}scale_add.ptx': parameter order for kb.executable @saxpy: binding 0 (`x`) is missing
// SWAPPED: parameter 0 (constant 0 `a`): expected .f32 (4 bytes), found .u32 (4 bytes)
// MALFORMED: launch setting 'parameter_order=3.x' of substitution 'saxpy=scale_add.ptx': expected
// SPIRV: object '{{.*}}saxpy.spv' orders its parameters itself, which only a CUDA kernel does
// NO-ENTRY: `saxpy`
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @saxpy() { return }
  }
}

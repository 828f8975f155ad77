// A handwritten object's launch settings: `launch`, one
// entry per substitution, gives the dynamic shared memory the object needs;
// it is stored on the variants it replaces (kb.shared_memory), while the
// generated reference keeps the export's.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx,saxpy=saxpy.spv launch=shared_memory=4096,shared_memory=64 search-paths=%S/Inputs print-notes=false})' | FileCheck %s
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=shared_memory=-1 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=shared_memory=1,shared_memory=2 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=COUNT
// What a handwritten object assumes of its pipeline (kernel.toml
// subgroup_size, full_subgroups, [specialization]): `;`-separated items.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx,saxpy=saxpy.spv launch=subgroup_size=32;full_subgroups,subgroup_size=16;shared_memory=8 search-paths=%S/Inputs print-notes=false})' | FileCheck %s --check-prefix=SUBGROUP
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=subgroup_size=64 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.spv launch=spec=TILE=8 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=SPEC
// An object with its own launch shape (kernel.toml [abi] workgroup_size and
// workload_per_workgroup, e.g. a tuned tile): stored on its variants, which
// are checked against it; the reference keeps the export's.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=workgroup_size=128x1x1;workload_per_workgroup=512 search-paths=%S/Inputs print-notes=false})' | FileCheck %s --check-prefix=SHAPE
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.spv launch=workgroup_size=128x1x1;workload_per_workgroup=128 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=SHAPE-SPV
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=workgroup_size=64x64x1 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=SHAPE-BIG
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=workload_per_workgroup=0 search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=SHAPE-ZERO
// Objects tuned for device models (tuned.toml entries): each a variant of its
// own with kb.device beside the one for any device; with no object for any
// device, the generated variant is still kept as the reference.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx,saxpy=saxpy.ptx,saxpy=saxpy.ptx launch=shared_memory=1;device=H200,shared_memory=2,shared_memory=3;device=A100 search-paths=%S/Inputs print-notes=false})' | FileCheck %s --check-prefix=TUNED
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=device=H200;x=y search-paths=%S/Inputs print-notes=false})' | FileCheck %s --check-prefix=LONE
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=shared_memory=1;device= search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=NOMODEL
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx launch=device=H200 search-paths=%S/Inputs})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TUNEDNOTE

// CHECK: kb.export @saxpy
// CHECK-NOT: shared_memory =
// CHECK: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects(
// CHECK-SAME: {kb.shared_memory = 4096 : i64}
// CHECK-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// CHECK-NEXT: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") objects(
// CHECK-SAME: {kb.shared_memory = 64 : i64}
// CHECK-NEXT: kb.variant @vulkan_1_2_reference target(vulkan, "vulkan1.2") reference{{$}}

// NEGATIVE: launch setting 'shared_memory=-1' of substitution 'saxpy=saxpy.ptx': expected shared_memory=BYTES (0 to 4294967295), subgroup_size=N (a power of two, 1 to 128), full_subgroups, spec=KEY=VALUE, entry=NAME, parameter_order=S0.S1... (ABI slots), workgroup_size=XxYxZ (X, Y <= 1024, Z <= 64, X*Y*Z <= 1024) or workload_per_workgroup=X[xY[xZ]] (positive), separated by ';'
// COUNT: 2 launch settings for 1 substitutions; give one per substitution, or none

// SUBGROUP: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects(
// SUBGROUP-SAME: kb.full_subgroups
// SUBGROUP-SAME: kb.subgroup_size = 32 : i64
// SUBGROUP-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// SUBGROUP-NEXT: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") objects(
// SUBGROUP-SAME: kb.shared_memory = 8 : i64, kb.subgroup_size = 16 : i64}
// WARP: object '{{.*}}saxpy.ptx' requires subgroup size 64, but CUDA warps are 32 wide
// SHAPE: kb.export @saxpy {{.*}} workgroup_size = [256, 1, 1]{{$}}
// SHAPE: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects(
// SHAPE-SAME: kb.workgroup_size = array<i64: 128, 1, 1>
// SHAPE-SAME: kb.workload_per_workgroup = array<i64: 512>
// SHAPE-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// SHAPE-SPV: workgroup size: expected 128x1x1, found 256x1x1
// SHAPE-SPV: expected: saxpy(x: f32 readonly, y: f32 readwrite; a: f32, n: u32), workgroup 128x1x1
// SHAPE-BIG: launch setting 'workgroup_size=64x64x1' of substitution 'saxpy=saxpy.ptx': expected
// SHAPE-ZERO: launch setting 'workload_per_workgroup=0' of substitution
// TUNED: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects(
// TUNED-SAME: {kb.shared_memory = 2 : i64}
// TUNED-NEXT: kb.variant @cuda_sm_90_tuned1 target(cuda, "sm_90") objects(
// TUNED-SAME: {kb.device = "H200", kb.shared_memory = 1 : i64}
// TUNED-NEXT: kb.variant @cuda_sm_90_tuned2 target(cuda, "sm_90") objects(
// TUNED-SAME: {kb.device = "A100", kb.shared_memory = 3 : i64}
// TUNED-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// TUNED-NEXT: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2"){{$}}
// LONE: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// LONE-NEXT: kb.variant @cuda_sm_90_tuned1 target(cuda, "sm_90") objects(
// LONE-SAME: {kb.device = "H200;x=y"}
// NOMODEL: launch setting 'device=' of substitution 'saxpy=saxpy.ptx' names no device model
// TUNEDNOTE: NOTE: kb.executable @saxpy variant @{{.*}}_tuned1 substituted with object file '{{.*}}saxpy.ptx' (tuned for H200); generated variant kept as @
// SPEC: [specialization] `TILE`: no specialization constant has this name; the module declares: no specialization constants
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @saxpy() { return }
  }
}

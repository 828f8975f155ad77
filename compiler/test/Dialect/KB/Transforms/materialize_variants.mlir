// RUN: kb-opt %s --split-input-file --verify-diagnostics --kb-materialize-variants=targets=cuda:sm_90,vulkan:1.2 | FileCheck %s
// RUN: not kb-opt %s --split-input-file --kb-materialize-variants=targets=cuda:sm_20 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: error: kb-materialize-variants: invalid target `cuda:sm_20`: sm_20 is not an architecture CUDA 13 compiles for; valid targets: cuda:sm_75, cuda:sm_80, cuda:sm_86, cuda:sm_87, cuda:sm_88, cuda:sm_89, cuda:sm_90, cuda:sm_100, cuda:sm_103, cuda:sm_110, cuda:sm_120, cuda:sm_121 (also sm_XXa from sm_90, sm_XXf from sm_100), vulkan:1.0, vulkan:1.1, vulkan:1.2, vulkan:1.3

// A missing target is added; an existing one (here external, with its
// reference) is kept as is.
// CHECK-LABEL: kb.executable @kept
// CHECK-NEXT: kb.export
// CHECK-NEXT: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects(
// CHECK-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference
// CHECK-NEXT: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2"){{$}}
// CHECK-NEXT: builtin.module
kb.executable @kept {
  kb.export @kept workgroup_size = [1, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
      objects([#kb.object<{path = "kept.ptx", data = ""}>])
  kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference
  builtin.module {
    func.func @kept() { return }
  }
}

// -----

// Targets not requested are dropped; dropping an external one warns.
// CHECK-LABEL: kb.executable @dropped
// CHECK-NEXT: kb.export
// CHECK-NEXT: kb.variant @cuda_sm_90 target(cuda, "sm_90"){{$}}
// CHECK-NEXT: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2"){{$}}
// CHECK-NEXT: builtin.module
kb.executable @dropped {
  kb.export @dropped workgroup_size = [1, 1, 1]
  kb.variant @cuda_sm_80 target(cuda, "sm_80")
  // expected-warning@+1 {{external variant @vulkan_1_0 (vulkan:1.0) is dropped: its target was not requested}}
  kb.variant @vulkan_1_0 target(vulkan, "vulkan1.0")
      objects([#kb.object<{path = "old.spv", data = ""}>])
  builtin.module {
    func.func @dropped() { return }
  }
}

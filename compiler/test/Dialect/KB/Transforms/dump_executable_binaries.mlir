// One file per external (substituted) variant, `<exe>_<variant>.<ext>`, so
// that an objects-from scan of the dump directory is a no-op.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%S/Inputs/saxpy.ptx,saxpy=%S/Inputs/saxpy.spv print-notes=false})' -o %t.sub.mlir
// RUN: rm -rf %t && kb-opt %t.sub.mlir --kb-dump-executable-binaries=path=%t/bin -o %t.orig.mlir
// RUN: ls %t/bin | FileCheck %s --check-prefix=FILES
// FILES-NOT: reference
// FILES: saxpy_cuda_sm_90.ptx
// FILES-NEXT: saxpy_vulkan_1_2.spv
// FILES-NOT: reference
// RUN: cmp %t/bin/saxpy_cuda_sm_90.ptx %S/Inputs/saxpy.ptx
// RUN: cmp %t/bin/saxpy_vulkan_1_2.spv %S/Inputs/saxpy.spv

// Dump, then scan: each file maps back to its executable and variant.
// RUN: kb-opt %t.orig.mlir --pass-pipeline='builtin.module(kb-substitute-executables{directories=%t/bin kind=object})' -o %t.round.mlir 2>%t.notes
// RUN: FileCheck %s --check-prefix=NOTES < %t.notes
// NOTES: NOTE: kb.executable @saxpy variant @cuda_sm_90 substituted with object file '{{.*}}saxpy_cuda_sm_90.ptx'; generated variant kept as @cuda_sm_90_reference
// NOTES: NOTE: kb.executable @saxpy variant @vulkan_1_2 substituted with object file '{{.*}}saxpy_vulkan_1_2.spv'; generated variant kept as @vulkan_1_2_reference
// RUN: sed -e 's/^module attributes {kb.substitutions = .*} {$/module {/' %t.round.mlir > %t.round.stripped
// RUN: sed -e 's/^module attributes {kb.substitutions = .*} {$/module {/' %t.orig.mlir | diff - %t.round.stripped

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @saxpy() { return }
  }
}
kb.executable @generated_only {
  kb.export @generated_only workgroup_size = [1, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @generated_only() { return }
  }
}

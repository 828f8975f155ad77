// One file per executable, named so that a sources-from scan of the dump
// directory is a no-op.
// RUN: rm -rf %t && kb-opt %s --kb-dump-executable-sources=path=%t/dump -o %t.orig.mlir
// RUN: ls %t/dump | FileCheck %s --check-prefix=FILES
// FILES: reduce.mlir
// FILES-NEXT: saxpy.mlir
// RUN: FileCheck %s --check-prefix=DUMP < %t/dump/saxpy.mlir
// DUMP: module {
// DUMP-NEXT: kb.executable @saxpy {
// DUMP-NOT: kb.executable @reduce
// DUMP-NOT: func.func @main

// Dump, then scan: the executables are unchanged (only the record of the
// substitutions is added).
// RUN: kb-opt %t.orig.mlir --pass-pipeline='builtin.module(kb-substitute-executables{directories=%t/dump kind=source})' -o %t.round.mlir 2>%t.notes
// RUN: FileCheck %s --check-prefix=NOTES < %t.notes
// NOTES: NOTE: kb.executable @reduce substituted with MLIR source '{{.*}}reduce.mlir'
// NOTES: NOTE: kb.executable @saxpy substituted with MLIR source '{{.*}}saxpy.mlir'
// RUN: sed -e 's/^module attributes {kb.substitutions = .*} {$/module {/' %t.round.mlir | diff %t.orig.mlir -

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @saxpy() {
      %x = kb.binding 0 : memref<?xf32>
      %a = kb.constant 0 : f32
      %i = kb.workgroup_id x
      memref.store %a, %x[%i] : memref<?xf32>
      return
    }
  }
}
kb.executable @reduce {
  kb.export @reduce bindings(in: f32 readonly, out: f32 writeonly)
      workgroup_size = [64, 1, 1] workload_per_workgroup = [1024]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @reduce() {
      %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      return
    }
  }
}
func.func @main() {
  %c1 = arith.constant 1 : index
  %x = kb.alloc : !kb.buffer<4xf32>
  %a = arith.constant 1.0 : f32
  %n = arith.constant 4 : i32
  kb.dispatch @saxpy::@saxpy[%c1](%x, %x : !kb.buffer<4xf32>, !kb.buffer<4xf32>) constants(%a, %n : f32, i32)
  return
}

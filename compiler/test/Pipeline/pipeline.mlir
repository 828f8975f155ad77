// The compiler pipeline of kb-compile and kernel-bench build, and its
// prefixes (kb/Dialect/KB/Transforms/Pipeline.h).
//
// RUN: kb-opt %s --kb-pipeline="targets=vulkan:1.2 stop-after=kb-materialize-variants" | FileCheck %s --check-prefix=MATERIALIZED
// RUN: kb-opt %s --kb-pipeline="targets=vulkan:1.2 stop-after=kb-codegen" | FileCheck %s --check-prefix=GENERATED
// RUN: kb-opt %s --kb-pipeline="targets=vulkan:1.2,cuda:sm_90" | FileCheck %s --check-prefix=FULL
// RUN: kb-opt %s --kb-pipeline="targets=vulkan:1.2 codegen=false" | FileCheck %s --check-prefix=NOCODEGEN
// RUN: not kb-opt %s --kb-pipeline="stop-after=kb-link" 2>&1 | FileCheck %s --check-prefix=BADSTEP

// Materialized, not generated, no benchmarks yet.
// MATERIALIZED-NOT: kb.benchmarks
// MATERIALIZED: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2"){{$}}
// MATERIALIZED-NOT: kb.generated

// Generated, still no benchmarks.
// GENERATED-NOT: kb.benchmarks
// GENERATED: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") {kb.generated = [{object = #kb.object<{path = "scale_vulkan_1_2.spv"

// Everything: one variant per target, each generated, one benchmark.
// FULL: module attributes {kb.benchmarks = [{{.*}}name = "scale_1024x1x1"
// FULL: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") {kb.generated = [{object = #kb.object<{path = "scale_vulkan_1_2.spv"
// FULL: kb.variant @cuda_sm_90 target(cuda, "sm_90") {kb.generated = [{object = #kb.object<{path = "scale_cuda_sm_90.ptx"

// codegen=false leaves out kb-codegen only.
// NOCODEGEN: module attributes {kb.benchmarks = [
// NOCODEGEN-NOT: kb.generated

// BADSTEP: for the --stop-after option: Cannot find option named 'kb-link'!

kb.executable @scale {
  kb.export @scale bindings(x: f32 readonly, y: f32 writeonly)
      constants(a: f32, n: u32) workgroup_size = [128, 1, 1]
  builtin.module {
    func.func @scale() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %a = kb.constant 0 : f32
      %n_i32 = kb.constant 1 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg = kb.workgroup_id x
      %size = kb.workgroup_size x
      %tid = gpu.thread_id x
      %base = arith.muli %wg, %size : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.mulf %a, %v : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

func.func @main() {
  %c1024 = arith.constant 1024 : index
  %n = arith.constant 1024 : i32
  %a = arith.constant 2.0 : f32
  %x = kb.alloc : !kb.buffer<1024xf32>
  %y = kb.alloc : !kb.buffer<1024xf32>
  kb.dispatch @scale::@scale[%c1024](%x, %y : !kb.buffer<1024xf32>, !kb.buffer<1024xf32>) constants(%a, %n : f32, i32)
  return
}

// RUN: kb-opt %s --kb-codegen=emit-cubin=false | FileCheck %s

// One body, two targets. CUDA: the kernel ABI of docs/kernel-abi.md (one .u64
// pointer per binding, then the typed constants), the block size as
// .reqntid, no libdevice call for math.exp. Vulkan: a SPIR-V module (magic
// 0x07230203, little-endian) per variant. External variants are untouched.

// CHECK-LABEL: kb.executable @scale
// CHECK: kb.variant @cuda_sm_90 target(cuda, "sm_90") {kb.generated = [{object = #kb.object<{path = "scale_cuda_sm_90.ptx", data = "
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry scale(
// CHECK-SAME: .param .u64 scale_param_0,
// CHECK-SAME: .param .u64 scale_param_1,
// CHECK-SAME: .param .f32 scale_param_2,
// CHECK-SAME: .param .u32 scale_param_3
// CHECK-SAME: .reqntid 128, 1, 1
// CHECK-NOT: __nv_
// CHECK-SAME: target = "sm_90"}]}
// CHECK: kb.variant @cuda_sm_80 target(cuda, "sm_80") {kb.generated = [{object = #kb.object<{path = "scale_cuda_sm_80.ptx", data = "
// CHECK-SAME: .target sm_80
// CHECK: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") {kb.generated = [{object = #kb.object<{path = "scale_vulkan_1_2.spv", data = "\03\02#\07
// CHECK-SAME: target = "vulkan1.2"}]}
// CHECK: kb.variant @vulkan_1_0 target(vulkan, "vulkan1.0") objects([#kb.object<{path = "scale.spv", data = "keep"}>]){{$}}
kb.executable @scale {
  kb.export @scale bindings(x: f32 readonly, y: f32 writeonly)
      constants(a: f32, n: u32) workgroup_size = [128, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  kb.variant @cuda_sm_80 target(cuda, "sm_80")
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  kb.variant @vulkan_1_0 target(vulkan, "vulkan1.0")
      objects([#kb.object<{path = "scale.spv", data = "keep"}>])
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
        %e = math.exp %v : f32
        %r = arith.mulf %a, %e : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

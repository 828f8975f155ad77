// RUN: kb-opt %s | kb-opt | FileCheck %s
// RUN: kb-opt %s --mlir-print-op-generic | kb-opt | FileCheck %s

// Every op, attribute and type of the kb dialect survives a round trip.

// CHECK-LABEL: kb.executable @saxpy {
// CHECK-NEXT: kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite) constants(a: f32, n: u32) workgroup_size = [256, 1, 1]{{$}}
// CHECK-NEXT: kb.variant @cuda_sm_90 target(cuda, "sm_90") objects([#kb.object<{path = "saxpy.ptx", data = "//\0A.version 9.0\0A"}>]){{$}}
// CHECK-NEXT: kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference{{$}}
// CHECK-NEXT: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") objects([#kb.object<{path = "saxpy.spv", data = "\03\02#\07"}>]) entry_points({saxpy = "main"})
// CHECK: func.func @saxpy()
// CHECK-NEXT: kb.binding 0 : memref<?xf32>
// CHECK-NEXT: kb.binding 1 : memref<?xf32>
// CHECK-NEXT: kb.constant 0 : f32
// CHECK-NEXT: kb.constant 1 : i32
// CHECK-NEXT: kb.workgroup_id x
// CHECK-NEXT: kb.workgroup_count y
// CHECK-NEXT: kb.workgroup_size z
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
      objects([#kb.object<{path = "saxpy.ptx", data = "//\0A.version 9.0\0A"}>])
  kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
      objects([#kb.object<{path = "saxpy.spv", data = "\03\02\23\07"}>])
      entry_points({saxpy = "main"})
  builtin.module {
    func.func @saxpy() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %a = kb.constant 0 : f32
      %n = kb.constant 1 : i32
      %id = kb.workgroup_id x
      %count = kb.workgroup_count y
      %size = kb.workgroup_size z
      return
    }
  }
}

// Unnamed bindings, every element and constant type, the optional export
// fields.
// CHECK-LABEL: kb.executable @types {
// CHECK-NEXT: kb.export @types bindings(i8 readonly, u8 readonly, i16 readonly, u16 readonly, i32 readonly, u32 writeonly, i64 readwrite, u64 readwrite, f16 readonly, bf16 readonly, f32 readonly, f64 writeonly) constants(i32, u32, f32, i64, u64, f64) workgroup_size = [16, 16, 1] workload_per_workgroup = [32, 32] shared_memory = 4096
// CHECK-NEXT: kb.variant @vulkan_1_3 target(vulkan, "vulkan1.3")
kb.executable @types {
  kb.export @types bindings(i8 readonly, u8 readonly, i16 readonly,
      u16 readonly, i32 readonly, u32 writeonly, i64 readwrite, u64 readwrite,
      f16 readonly, bf16 readonly, f32 readonly, f64 writeonly)
      constants(i32, u32, f32, i64, u64, f64) workgroup_size = [16, 16, 1]
      workload_per_workgroup = [32, 32] shared_memory = 4096
  kb.variant @vulkan_1_3 target(vulkan, "vulkan1.3")
  builtin.module {
    func.func @types() {
      %u8 = kb.binding 1 : memref<?xi8>
      %u64 = kb.binding 7 : memref<?xui64>
      %c3 = kb.constant 3 : i64
      %c5 = kb.constant 5 : f64
      return
    }
  }
}

// An executable made only of external variants needs no body.
// CHECK-LABEL: kb.executable @external_only {
// CHECK-NOT: builtin.module
kb.executable @external_only {
  kb.export @external_only workgroup_size = [1, 1, 1]
  kb.variant @cuda_sm_80 target(cuda, "sm_80")
      objects([#kb.object<{path = "k.cubin", data = "\7FELF"}>])
}

// CHECK-LABEL: func.func @main
// CHECK: kb.alloc : !kb.buffer<1024xf32>
// CHECK: kb.alloc(%{{.*}}) : !kb.buffer<?xf32>
// CHECK: kb.alloc : !kb.buffer<16x16xi32>
// CHECK: kb.dispatch @saxpy::@saxpy[%{{.*}}](%{{.*}}, %{{.*}} : !kb.buffer<1024xf32>, !kb.buffer<?xf32>) constants(%{{.*}}, %{{.*}} : f32, i32)
// CHECK: kb.dispatch @external_only::@external_only[%{{.*}}, %{{.*}}, %{{.*}}]()
func.func @main(%n: index) {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %a = arith.constant 2.0 : f32
  %n32 = arith.constant 1024 : i32
  %x = kb.alloc : !kb.buffer<1024xf32>
  %y = kb.alloc(%n) : !kb.buffer<?xf32>
  %z = kb.alloc : !kb.buffer<16x16xi32>
  kb.dispatch @saxpy::@saxpy[%c1024](%x, %y : !kb.buffer<1024xf32>, !kb.buffer<?xf32>)
      constants(%a, %n32 : f32, i32)
  kb.dispatch @external_only::@external_only[%c1, %c1, %c1]()
  return
}

// Attributes on their own.
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: b = #kb.binding<x: f32 readonly>
// CHECK-SAME: c = #kb.constant<u64>
// CHECK-SAME: l = #kb.layout<bindings(f32 readonly, "odd name": i32 writeonly) constants(n: u32)>
func.func @attributes() attributes {
    b = #kb.binding<x: f32 readonly>, c = #kb.constant<u64>,
    l = #kb.layout<bindings(f32 readonly, "odd name": i32 writeonly) constants(n: u32)>} {
  return
}

// A standalone kernel's handwritten twin: an external reference beside the
// candidate, in an executable without a kernel body.
// CHECK-LABEL: kb.executable @twin {
// CHECK: kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2") objects(
// CHECK: kb.variant @vulkan_1_2_reference target(vulkan, "vulkan1.2") objects([#kb.object<{path = "naive.spv", data = "\03\02#\07"}>]) reference entry_points({k = "main"})
kb.executable @twin {
  kb.export @k workgroup_size = [64, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
      objects([#kb.object<{path = "k.spv", data = "\03\02\23\07"}>])
      entry_points({k = "main"})
  kb.variant @vulkan_1_2_reference target(vulkan, "vulkan1.2")
      objects([#kb.object<{path = "naive.spv", data = "\03\02\23\07"}>])
      reference entry_points({k = "main"})
}

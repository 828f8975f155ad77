// RUN: kb-opt %s --verify-diagnostics --kb-generate-benchmarks | FileCheck %s

// Benchmarks are keyed by (executable, export, workload, constants, buffer
// sizes and aliasing): the two dispatches with n = 1024 share one benchmark
// (two sites); the one with another constant and the one with another
// buffer size are distinct (`_2`, `_3`), unlike IREE, which keeps the last
// one seen. A workload computed from constants (ceildiv, muli) is
// evaluated; one from a function argument is listed with the reason.

// CHECK-LABEL: module attributes {kb.benchmarks = [
// CHECK-SAME: {bindings = array<i64: 0, 1>, buffers = [{element_count = 1024 : i64, element_type = "f32", init = {distribution = "uniform", high = 1.000000e+00 : f64, low = -1.000000e+00 : f64, seed = {{[0-9]+}} : ui64}, output = false}, {element_count = 1024 : i64, element_type = "f32", init = {distribution = "uniform", {{[^}]*}}}, output = true}], candidates = ["cuda_sm_90"], constants = [2.000000e+00 : f32, 1024 : i32], executable = "saxpy", export = "saxpy", name = "saxpy_1024x1x1", references = ["cuda_sm_90_reference"], sites = ["{{[^"]*}}generate_benchmarks.mlir:{{[0-9]+}}:{{[0-9]+}}", "{{[^"]*}}generate_benchmarks.mlir:{{[0-9]+}}:{{[0-9]+}}"], workgroup_count = array<i64: 4, 1, 1>, workload = array<i64: 1024, 1, 1>}
// CHECK-SAME: constants = [3.000000e+00 : f32, 1024 : i32]{{.*}}name = "saxpy_1024x1x1_2"
// CHECK-SAME: element_count = 2048 : i64{{.*}}name = "saxpy_1024x1x1_3"
// Aliasing is kept: the same buffer bound twice is one buffer.
// CHECK-SAME: {bindings = array<i64: 0, 0>, buffers = [{element_count = 4096 : i64, element_type = "u32", init = {distribution = "uniform", high = 1.280000e+02 : f64, low = 0.000000e+00 : f64, seed = {{[0-9]+}} : ui64}, output = true}]{{.*}}name = "copy_4096x1x1", references = ["vulkan_1_2"], sites = [{{[^]]*}}], workgroup_count = array<i64: 16, 1, 1>
// A write-only buffer is zero-initialized.
// CHECK-SAME: {bindings = array<i64: 0, 1>, buffers = [{{[^]]*}}, {element_count = 4096 : i64, element_type = "u32", init = {distribution = "zero"}, output = true}]{{.*}}name = "copy_4096x1x1_2"
// CHECK-SAME: ], kb.unbenchmarked = [{executable = "copy", export = "copy", reason = "workload dimension 0 is argument 0 of @dynamic, not a constant at the dispatch site", site = "{{.*}}generate_benchmarks.mlir:{{[0-9]+}}:{{[0-9]+}}"}]}

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
      objects([#kb.object<{path = "saxpy.ptx", data = ""}>])
  kb.variant @cuda_sm_90_reference target(cuda, "sm_90") reference
  builtin.module {
    func.func @saxpy() { return }
  }
}

kb.executable @copy {
  kb.export @copy bindings(in: u32 readonly, out: u32 writeonly)
      workgroup_size = [256, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @copy() { return }
  }
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %n = arith.constant 1024 : i32
  %a = arith.constant 2.0 : f32
  %b = arith.constant 3.0 : f32
  %x = kb.alloc : !kb.buffer<1024xf32>
  %y = kb.alloc : !kb.buffer<1024xf32>
  %big = kb.alloc(%c1024) : !kb.buffer<?x2xf32>
  kb.dispatch @saxpy::@saxpy[%c1024](%x, %y : !kb.buffer<1024xf32>, !kb.buffer<1024xf32>) constants(%a, %n : f32, i32)
  kb.dispatch @saxpy::@saxpy[%c1024](%x, %y : !kb.buffer<1024xf32>, !kb.buffer<1024xf32>) constants(%a, %n : f32, i32)
  kb.dispatch @saxpy::@saxpy[%c1024](%x, %y : !kb.buffer<1024xf32>, !kb.buffer<1024xf32>) constants(%b, %n : f32, i32)
  kb.dispatch @saxpy::@saxpy[%c1024](%x, %big : !kb.buffer<1024xf32>, !kb.buffer<?x2xf32>) constants(%a, %n : f32, i32)
  %w = arith.muli %c4, %c1024 : index
  %u = kb.alloc : !kb.buffer<4096xi32>
  %v = kb.alloc : !kb.buffer<4096xi32>
  kb.dispatch @copy::@copy[%w](%u, %u : !kb.buffer<4096xi32>, !kb.buffer<4096xi32>)
  kb.dispatch @copy::@copy[%w](%u, %v : !kb.buffer<4096xi32>, !kb.buffer<4096xi32>)
  return
}

func.func @dynamic(%n: index) {
  %u = kb.alloc : !kb.buffer<4096xi32>
  // expected-remark@+1 {{not benchmarked: workload dimension 0 is argument 0 of @dynamic, not a constant at the dispatch site}}
  kb.dispatch @copy::@copy[%n](%u, %u : !kb.buffer<4096xi32>, !kb.buffer<4096xi32>)
  return
}

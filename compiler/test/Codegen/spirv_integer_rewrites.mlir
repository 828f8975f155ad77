// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: kb-opt %s --kb-codegen=emit-cubin=false --kb-dump-executable-binaries=path=%t -o /dev/null
// RUN: spirv-val --target-env vulkan1.2 %t/rewrites_vulkan_1_2.spv
// RUN: spirv-dis %t/rewrites_vulkan_1_2.spv | FileCheck %s

// Integer ops whose direct SPIR-V is wrong somewhere are rewritten before
// conversion: MLIR 16 lowers arith.remsi wrongly for INT_MIN (so it becomes
// a - (a / b) * b), and lavapipe miscompares an OpSConvert to i64 (so a sign
// extension to i64 becomes shifts of the zero extension).

// CHECK-NOT: OpUMod
// CHECK-NOT: OpSConvert
// CHECK-DAG: OpSDiv
// CHECK-DAG: OpUConvert
// CHECK-DAG: OpShiftLeftLogical
// CHECK-DAG: OpShiftRightArithmetic
kb.executable @rewrites {
  kb.export @rewrites bindings(x: i32 readonly, r: i32 writeonly, w: i64 writeonly)
      workgroup_size = [64, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @rewrites() {
      %c95 = arith.constant 95 : i32
      %x = kb.binding 0 : memref<?xi32>
      %r = kb.binding 1 : memref<?xi32>
      %w = kb.binding 2 : memref<?xi64>
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xi32>
      %rem = arith.remsi %v, %c95 : i32
      memref.store %rem, %r[%i] : memref<?xi32>
      %wide = arith.extsi %v : i32 to i64
      memref.store %wide, %w[%i] : memref<?xi64>
      return
    }
  }
}

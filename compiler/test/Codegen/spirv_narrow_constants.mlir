// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: kb-opt %s --kb-codegen=emit-cubin=false --kb-dump-executable-binaries=path=%t -o /dev/null
// RUN: spirv-val --target-env vulkan1.2 %t/neg_vulkan_1_2.spv
// RUN: spirv-dis %t/neg_vulkan_1_2.spv | FileCheck %s

// MLIR 16's serializer writes a negative i8/i16 constant sign-extended into
// its 32-bit word, which spirv-val rejects; the codegen writes the i32
// constant of its bits narrowed by OpUConvert. Booleans stay OpConstantTrue.

// CHECK-DAG: %[[M3:.*]] = OpConstant %uint 253
// CHECK-DAG: %[[M300:.*]] = OpConstant %uint 65236
// CHECK-DAG: OpUConvert %uchar %[[M3]]
// CHECK-DAG: OpUConvert %ushort %[[M300]]
// CHECK-DAG: OpConstantTrue
kb.executable @neg {
  kb.export @neg bindings(x: i8 readonly, y: i8 writeonly, z: i16 writeonly)
      workgroup_size = [64, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @neg() {
      %m3 = arith.constant -3 : i8
      %m300 = arith.constant -300 : i16
      %true = arith.constant true
      %x = kb.binding 0 : memref<?xi8>
      %y = kb.binding 1 : memref<?xi8>
      %z = kb.binding 2 : memref<?xi16>
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xi8>
      %s = arith.addi %v, %m3 : i8
      %keep = arith.select %true, %s, %v : i8
      memref.store %keep, %y[%i] : memref<?xi8>
      %w = arith.extsi %v : i8 to i16
      %t = arith.addi %w, %m300 : i16
      memref.store %t, %z[%i] : memref<?xi16>
      return
    }
  }
}

// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: kb-opt %s --kb-codegen=emit-cubin=false --kb-dump-executable-binaries=path=%t -o /dev/null
// RUN: spirv-val --target-env vulkan1.2 %t/collatz_vulkan_1_2.spv
// RUN: spirv-dis %t/collatz_vulkan_1_2.spv | FileCheck %s

// Values that come out of a region which may not run: the results of an
// scf.while whose condition is false at once, and those of an scf.if with
// results. Unlike scf.for's (guard_zero_trip_loops), MLIR 16's SPIR-V
// conversion defines them on every path: the while loop's results are
// stored in its header, which runs before the condition is tested (so the
// initial values when the body never runs), and the scf.if's in both of its
// branches. The merge block reads what the header stored.

// CHECK:      %[[K:.*]] = OpPhi %uint %{{.*}} %{{.*}} %{{.*}} %{{.*}}
// CHECK-NEXT: %[[STEPS:.*]] = OpPhi %uint %{{.*}} %{{.*}} %uint_0 %{{.*}}
// CHECK-NEXT: %[[MORE:.*]] = OpUGreaterThan %bool %[[K]] %uint_1
// CHECK-NEXT: OpStore %[[KVAR:.*]] %[[K]]
// CHECK-NEXT: OpStore %[[STEPSVAR:.*]] %[[STEPS]]
// CHECK-NEXT: OpLoopMerge %[[EXIT:.*]] %{{.*}} None
// CHECK-NEXT: OpBranchConditional %[[MORE]] %{{.*}} %[[EXIT]]
// CHECK:      OpSelectionMerge %[[JOIN:.*]] None
// CHECK:      OpStore %[[NEXT:.*]] %{{.*}}
// CHECK-NEXT: OpBranch %[[JOIN]]
// CHECK:      OpStore %[[NEXT]] %{{.*}}
// CHECK-NEXT: OpBranch %[[JOIN]]
// CHECK:      %[[EXIT]] = OpLabel
// CHECK-NEXT: %[[RESULT:.*]] = OpLoad %uint %[[STEPSVAR]]
// CHECK:      OpStore %{{.*}} %[[RESULT]]
kb.executable @collatz {
  kb.export @collatz bindings(n: u32 readonly, s: u32 writeonly)
      constants(count: u32) workgroup_size = [64, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @collatz() {
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      %input = kb.binding 0 : memref<?xi32>
      %output = kb.binding 1 : memref<?xi32>
      %count_i32 = kb.constant 0 : i32
      %count = arith.index_castui %count_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %i = arith.addi %base, %tid : index
      %in_range = arith.cmpi ult, %i, %count : index
      scf.if %in_range {
        %k0 = memref.load %input[%i] : memref<?xi32>
        %r:2 = scf.while (%k = %k0, %steps = %zero) : (i32, i32) -> (i32, i32) {
          %more = arith.cmpi ugt, %k, %one : i32
          scf.condition(%more) %k, %steps : i32, i32
        } do {
        ^bb0(%k: i32, %steps: i32):
          %low = arith.andi %k, %one : i32
          %odd = arith.cmpi ne, %low, %zero : i32
          %next = scf.if %odd -> (i32) {
            %t = arith.muli %k, %three : i32
            %u = arith.addi %t, %one : i32
            scf.yield %u : i32
          } else {
            %h = arith.shrui %k, %one : i32
            scf.yield %h : i32
          }
          %more_steps = arith.addi %steps, %one : i32
          scf.yield %next, %more_steps : i32, i32
        }
        memref.store %r#1, %output[%i] : memref<?xi32>
      }
      return
    }
  }
}

// The reference of tile_sum as specialized (64 invocations x TILE 8):
// invocation 0 of each workgroup adds its 512 elements (those past n count
// as 0). Integer sums: exact in any order.
kb.executable @tile_sum {
  kb.export @tile_sum bindings(input: u32 readonly, output: u32 writeonly)
      constants(n: u32) workgroup_size = [64, 1, 1]
      workload_per_workgroup = [512]
  builtin.module {
    func.func @tile_sum() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c512 = arith.constant 512 : index
      %zero = arith.constant 0 : i32
      %input = kb.binding 0 : memref<?xi32>
      %output = kb.binding 1 : memref<?xi32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %base = arith.muli %wg_id, %c512 : index
        %s = scf.for %j = %c0 to %c512 step %c1 iter_args(%acc = %zero) -> (i32) {
          %i = arith.addi %base, %j : index
          %in_range = arith.cmpi ult, %i, %n : index
          %next = scf.if %in_range -> (i32) {
            %v = memref.load %input[%i] : memref<?xi32>
            %sum = arith.addi %acc, %v : i32
            scf.yield %sum : i32
          } else {
            scf.yield %acc : i32
          }
          scf.yield %next : i32
        }
        memref.store %s, %output[%wg_id] : memref<?xi32>
      }
      return
    }
  }
}

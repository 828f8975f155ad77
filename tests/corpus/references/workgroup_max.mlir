// The reference of workgroup_max: invocation 0 of each workgroup folds its
// 256 elements (those past n count as -inf).
kb.executable @workgroup_max {
  kb.export @workgroup_max bindings(input: f32 readonly, output: f32 writeonly)
      constants(n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @workgroup_max() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %neg_inf = arith.constant 0xFF800000 : f32
      %input = kb.binding 0 : memref<?xf32>
      %output = kb.binding 1 : memref<?xf32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %base = arith.muli %wg_id, %c256 : index
        %m = scf.for %j = %c0 to %c256 step %c1 iter_args(%acc = %neg_inf) -> (f32) {
          %i = arith.addi %base, %j : index
          %in_range = arith.cmpi ult, %i, %n : index
          %next = scf.if %in_range -> (f32) {
            %v = memref.load %input[%i] : memref<?xf32>
            %mx = arith.maxf %acc, %v : f32
            scf.yield %mx : f32
          } else {
            scf.yield %acc : f32
          }
          scf.yield %next : f32
        }
        memref.store %m, %output[%wg_id] : memref<?xf32>
      }
      return
    }
  }
}

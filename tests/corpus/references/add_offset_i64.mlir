// The reference of add_offset_i64: y = x + offset over 64-bit integers.
kb.executable @add_offset_i64 {
  kb.export @add_offset_i64 bindings(x: i64 readonly, y: i64 writeonly)
      constants(offset: i64, n: u64) workgroup_size = [128, 1, 1]
  builtin.module {
    func.func @add_offset_i64() {
      %x = kb.binding 0 : memref<?xi64>
      %y = kb.binding 1 : memref<?xi64>
      %offset = kb.constant 0 : i64
      %n_i64 = kb.constant 1 : i64
      %n = arith.index_castui %n_i64 : i64 to index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %i = arith.addi %base, %tid : index
      %in_range = arith.cmpi ult, %i, %n : index
      scf.if %in_range {
        %v = memref.load %x[%i] : memref<?xi64>
        %r = arith.addi %v, %offset : i64
        memref.store %r, %y[%i] : memref<?xi64>
      }
      return
    }
  }
}

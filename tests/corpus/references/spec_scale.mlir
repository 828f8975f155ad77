// The reference of spec_scale with its default specialization: y = 2 * x.
kb.executable @spec_scale {
  kb.export @spec_scale bindings(x: f32 readonly, y: f32 writeonly)
      constants(n: u32) workgroup_size = [64, 1, 1]
  builtin.module {
    func.func @spec_scale() {
      %two = arith.constant 2.0 : f32
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %i = arith.addi %base, %tid : index
      %in_range = arith.cmpi ult, %i, %n : index
      scf.if %in_range {
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.mulf %two, %v : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

// The reference of own_workgroup, written the naive way: one invocation per
// workgroup, one workgroup per element (the default count rule of a
// workgroup size of 1), y[i] = x[i] + b.
kb.executable @own_workgroup {
  kb.export @own_workgroup bindings(x: f32 readonly, y: f32 writeonly)
      constants(b: f32, n: u32) workgroup_size = [1, 1, 1]
  builtin.module {
    func.func @own_workgroup() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %b = kb.constant 0 : f32
      %n_i32 = kb.constant 1 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %i = kb.workgroup_id x
      %in_range = arith.cmpi ult, %i, %n : index
      scf.if %in_range {
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.addf %v, %b : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

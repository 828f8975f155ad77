// The reference of leaky_relu: y = x > 0 ? x : alpha * x.
kb.executable @leaky_relu {
  kb.export @leaky_relu bindings(x: f32 readonly, y: f32 writeonly)
      constants(alpha: f32, n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @leaky_relu() {
      %zero = arith.constant 0.0 : f32
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %alpha = kb.constant 0 : f32
      %n_i32 = kb.constant 1 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %wg_count = kb.workgroup_count x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %start = arith.addi %base, %tid : index
      %stride = arith.muli %wg_count, %wg_size : index
      scf.for %i = %start to %n step %stride {
        %v = memref.load %x[%i] : memref<?xf32>
        %positive = arith.cmpf ogt, %v, %zero : f32
        %scaled = arith.mulf %alpha, %v : f32
        %r = arith.select %positive, %v, %scaled : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

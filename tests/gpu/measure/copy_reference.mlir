// The reference of the GPU script's copy benchmarks (tests/gpu/measure.sh):
// dst[i] = src[i] for i < n with a grid-stride loop, so it is correct at the
// candidate's launch (kernels/copy: one float4 per invocation).
kb.executable @copy {
  kb.export @copy bindings(src: f32 readonly, dst: f32 writeonly)
      constants(n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @copy() {
      %src = kb.binding 0 : memref<?xf32>
      %dst = kb.binding 1 : memref<?xf32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %wg_count = kb.workgroup_count x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %start = arith.addi %base, %tid : index
      %stride = arith.muli %wg_count, %wg_size : index
      scf.for %i = %start to %n step %stride {
        %v = memref.load %src[%i] : memref<?xf32>
        memref.store %v, %dst[%i] : memref<?xf32>
      }
      return
    }
  }
}

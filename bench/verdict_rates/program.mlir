// The verdict-rates program: one saxpy over 1<<20 floats (the quickstart's
// first dispatch, examples/quickstart/program.mlir), so that a `bench
// --quick` run on lavapipe takes seconds.

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @saxpy() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %a = kb.constant 0 : f32
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
        %xv = memref.load %x[%i] : memref<?xf32>
        %yv = memref.load %y[%i] : memref<?xf32>
        %r = math.fma %a, %xv, %yv : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

func.func @main() {
  %c1048576 = arith.constant 1048576 : index
  %c1048576_i32 = arith.constant 1048576 : i32
  %alpha = arith.constant 2.0 : f32
  %x = kb.alloc : !kb.buffer<1048576xf32>
  %y = kb.alloc : !kb.buffer<1048576xf32>
  kb.dispatch @saxpy::@saxpy[%c1048576](%x, %y : !kb.buffer<1048576xf32>, !kb.buffer<1048576xf32>)
      constants(%alpha, %c1048576_i32 : f32, i32)
  return
}

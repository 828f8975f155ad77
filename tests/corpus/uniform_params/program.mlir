// The program whose @scale_shift the handwritten scale_shift/ substitutes:
// y[i] = alpha * x[i] + beta for i < n.

kb.executable @scale_shift {
  kb.export @scale_shift bindings(x: f32 readonly, y: f32 writeonly)
      constants(alpha: f32, beta: f32, n: u32) workgroup_size = [64, 1, 1]
  builtin.module {
    func.func @scale_shift() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %alpha = kb.constant 0 : f32
      %beta = kb.constant 1 : f32
      %n_i32 = kb.constant 2 : i32
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
        %scaled = arith.mulf %alpha, %v : f32
        %r = arith.addf %scaled, %beta : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

func.func @main() {
  %c10000 = arith.constant 10000 : index
  %n = arith.constant 10000 : i32
  %alpha = arith.constant 1.5 : f32
  %beta = arith.constant -0.25 : f32
  %x = kb.alloc : !kb.buffer<10000xf32>
  %y = kb.alloc : !kb.buffer<10000xf32>
  kb.dispatch @scale_shift::@scale_shift[%c10000](%x, %y : !kb.buffer<10000xf32>, !kb.buffer<10000xf32>)
      constants(%alpha, %beta, %n : f32, f32, i32)
  return
}

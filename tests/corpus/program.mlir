// The corpus program: the generated references of the corpus kernels that
// substitute an executable (relu/, square/, gather_rows/, block_sum/). Each
// body is target-independent and computes what the handwritten kernel does,
// so `kernel-bench run` compares the two.

kb.executable @relu {
  kb.export @relu bindings(x: f32 readonly, y: f32 writeonly)
      constants(n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @relu() {
      %zero = arith.constant 0.0 : f32
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
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
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.maxf %v, %zero : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

kb.executable @square {
  kb.export @square bindings(x: f32 readonly, y: f32 writeonly)
      constants(n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @square() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
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
        %v = memref.load %x[%i] : memref<?xf32>
        %r = arith.mulf %v, %v : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      return
    }
  }
}

kb.executable @gather_rows {
  // out[r * cols + c] = table[idx[r] * cols + c]; 0 for idx outside [0, rows).
  kb.export @gather_rows
      bindings(idx: i32 readonly, table: f32 readonly, out: f32 writeonly)
      constants(rows: i32, cols: i32, count: i32) workgroup_size = [128, 1, 1]
  builtin.module {
    func.func @gather_rows() {
      %zero = arith.constant 0.0 : f32
      %zero_i32 = arith.constant 0 : i32
      %idx = kb.binding 0 : memref<?xi32>
      %table = kb.binding 1 : memref<?xf32>
      %out = kb.binding 2 : memref<?xf32>
      %rows_i32 = kb.constant 0 : i32
      %cols_i32 = kb.constant 1 : i32
      %count_i32 = kb.constant 2 : i32
      %cols = arith.index_castui %cols_i32 : i32 to index
      %count = arith.index_castui %count_i32 : i32 to index
      %total = arith.muli %count, %cols : index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %wg_count = kb.workgroup_count x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %start = arith.addi %base, %tid : index
      %stride = arith.muli %wg_count, %wg_size : index
      scf.for %i = %start to %total step %stride {
        %r = arith.divui %i, %cols : index
        %c = arith.remui %i, %cols : index
        %row = memref.load %idx[%r] : memref<?xi32>
        %ge = arith.cmpi sge, %row, %zero_i32 : i32
        %lt = arith.cmpi slt, %row, %rows_i32 : i32
        %in_range = arith.andi %ge, %lt : i1
        %v = scf.if %in_range -> (f32) {
          %row_index = arith.index_castui %row : i32 to index
          %row_base = arith.muli %row_index, %cols : index
          %j = arith.addi %row_base, %c : index
          %t = memref.load %table[%j] : memref<?xf32>
          scf.yield %t : f32
        } else {
          scf.yield %zero : f32
        }
        memref.store %v, %out[%i] : memref<?xf32>
      }
      return
    }
  }
}

kb.executable @block_sum {
  // One partial sum per workgroup over a grid-stride range. The generated
  // code needs no dynamic shared memory; the handwritten CUDA kernel keeps
  // its warp sums in 32 bytes of it, declared in its kernel.toml and
  // stored on its variants only.
  kb.export @block_sum bindings(input: f32 readonly, partials: f32 writeonly)
      constants(n: u32) workgroup_size = [256, 1, 1]
      workload_per_workgroup = [4096]
  builtin.module {
    func.func @block_sum() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant 0.0 : f32
      %input = kb.binding 0 : memref<?xf32>
      %partials = kb.binding 1 : memref<?xf32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %sums = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %wg_count = kb.workgroup_count x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %start = arith.addi %base, %tid : index
      %stride = arith.muli %wg_count, %wg_size : index
      %sum = scf.for %i = %start to %n step %stride iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %input[%i] : memref<?xf32>
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      }
      memref.store %sum, %sums[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %half = arith.shrui %c128, %k : index
        %active = arith.cmpi ult, %tid, %half : index
        scf.if %active {
          %j = arith.addi %tid, %half : index
          %lhs = memref.load %sums[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          %rhs = memref.load %sums[%j] : memref<256xf32, #gpu.address_space<workgroup>>
          %s = arith.addf %lhs, %rhs : f32
          memref.store %s, %sums[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %total = memref.load %sums[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %total, %partials[%wg_id] : memref<?xf32>
      }
      return
    }
  }
}

func.func @main() {
  %c65536 = arith.constant 65536 : index
  %c32768 = arith.constant 32768 : index
  %c1048576 = arith.constant 1048576 : index
  %c65536_i32 = arith.constant 65536 : i32
  %c1048576_i32 = arith.constant 1048576 : i32
  %rows = arith.constant 1000 : i32
  %cols = arith.constant 64 : i32
  %count = arith.constant 512 : i32

  %x = kb.alloc : !kb.buffer<65536xf32>
  %relu_y = kb.alloc : !kb.buffer<65536xf32>
  kb.dispatch @relu::@relu[%c65536](%x, %relu_y : !kb.buffer<65536xf32>, !kb.buffer<65536xf32>)
      constants(%c65536_i32 : i32)
  %square_y = kb.alloc : !kb.buffer<65536xf32>
  kb.dispatch @square::@square[%c65536](%relu_y, %square_y : !kb.buffer<65536xf32>, !kb.buffer<65536xf32>)
      constants(%c65536_i32 : i32)

  // 512 lookups of 64-wide rows in a 1000-row table.
  %idx = kb.alloc : !kb.buffer<512xi32>
  %table = kb.alloc : !kb.buffer<64000xf32>
  %gathered = kb.alloc : !kb.buffer<32768xf32>
  kb.dispatch @gather_rows::@gather_rows[%c32768](%idx, %table, %gathered : !kb.buffer<512xi32>, !kb.buffer<64000xf32>, !kb.buffer<32768xf32>)
      constants(%rows, %cols, %count : i32, i32, i32)

  %input = kb.alloc : !kb.buffer<1048576xf32>
  %partials = kb.alloc : !kb.buffer<256xf32>
  kb.dispatch @block_sum::@block_sum[%c1048576](%input, %partials : !kb.buffer<1048576xf32>, !kb.buffer<256xf32>)
      constants(%c1048576_i32 : i32)
  return
}

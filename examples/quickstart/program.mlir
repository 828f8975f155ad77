// The quickstart program: four kinds of GPU work as separate dispatches,
// each executable with a real, target-independent kernel body.
//
//   @saxpy       y = a*x + y over 1<<20 floats
//   @reduce_sum  sum(y) in two passes: 256 per-workgroup partials, then 1
//   @softmax     row softmax of a 1024x1024 matrix, one workgroup per row
//   @matmul      C = A*B, 512x512x512, 16x16 tiles in workgroup memory
//
// Export names and layouts match the bundled kernels (kernels/*/kernel.toml),
// so `kernel-bench build examples/quickstart` substitutes their PTX/SPIR-V.
// Workgroup memory is a memref.alloc in #gpu.address_space<workgroup> at the
// top of a body. Compile alone with:
//   kb-compile examples/quickstart/program.mlir --target=cuda:sm_90 --target=vulkan:1.2

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  builtin.module {
    // Grid-stride loop: any workgroup count covers all n elements.
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

kb.executable @reduce_sum {
  // One partial sum per workgroup; each workgroup covers 4096 elements.
  kb.export @reduce_sum bindings(input: f32 readonly, partials: f32 writeonly)
      constants(n: u32) workgroup_size = [256, 1, 1]
      workload_per_workgroup = [4096]
  builtin.module {
    func.func @reduce_sum() {
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
      // Tree reduction over the 256 lanes: half = 128, 64, ..., 1.
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

kb.executable @softmax {
  kb.export @softmax bindings(input: f32 readonly, output: f32 writeonly)
      constants(rows: u32, cols: u32) workgroup_size = [256, 1, 1]
      workload_per_workgroup = [1]
  builtin.module {
    // One row per workgroup (row-stride loop): max, sum of exp, normalize,
    // each reduction a tree over workgroup memory.
    func.func @softmax() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant 0.0 : f32
      %neg_inf = arith.constant 0xFF800000 : f32
      %one = arith.constant 1.0 : f32
      %input = kb.binding 0 : memref<?xf32>
      %output = kb.binding 1 : memref<?xf32>
      %rows_i32 = kb.constant 0 : i32
      %cols_i32 = kb.constant 1 : i32
      %rows = arith.index_castui %rows_i32 : i32 to index
      %cols = arith.index_castui %cols_i32 : i32 to index
      %scratch = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
      %wg_id = kb.workgroup_id x
      %wg_count = kb.workgroup_count x
      %wg_size = kb.workgroup_size x
      %tid = gpu.thread_id x
      scf.for %row = %wg_id to %rows step %wg_count {
        %row_base = arith.muli %row, %cols : index
        // Row maximum.
        %local_max = scf.for %j = %tid to %cols step %wg_size iter_args(%m = %neg_inf) -> (f32) {
          %idx = arith.addi %row_base, %j : index
          %v = memref.load %input[%idx] : memref<?xf32>
          %nm = arith.maxf %m, %v : f32
          scf.yield %nm : f32
        }
        memref.store %local_max, %scratch[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        scf.for %k = %c0 to %c8 step %c1 {
          %half = arith.shrui %c128, %k : index
          %active = arith.cmpi ult, %tid, %half : index
          scf.if %active {
            %o = arith.addi %tid, %half : index
            %lhs = memref.load %scratch[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            %rhs = memref.load %scratch[%o] : memref<256xf32, #gpu.address_space<workgroup>>
            %m = arith.maxf %lhs, %rhs : f32
            memref.store %m, %scratch[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          }
          gpu.barrier
        }
        %row_max = memref.load %scratch[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        // Sum of exp(x - max).
        %local_sum = scf.for %j = %tid to %cols step %wg_size iter_args(%acc = %zero) -> (f32) {
          %idx = arith.addi %row_base, %j : index
          %v = memref.load %input[%idx] : memref<?xf32>
          %d = arith.subf %v, %row_max : f32
          %e = math.exp %d : f32
          %s = arith.addf %acc, %e : f32
          scf.yield %s : f32
        }
        memref.store %local_sum, %scratch[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        scf.for %k = %c0 to %c8 step %c1 {
          %half = arith.shrui %c128, %k : index
          %active = arith.cmpi ult, %tid, %half : index
          scf.if %active {
            %o = arith.addi %tid, %half : index
            %lhs = memref.load %scratch[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
            %rhs = memref.load %scratch[%o] : memref<256xf32, #gpu.address_space<workgroup>>
            %s = arith.addf %lhs, %rhs : f32
            memref.store %s, %scratch[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
          }
          gpu.barrier
        }
        %row_sum = memref.load %scratch[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %inverse = arith.divf %one, %row_sum : f32
        scf.for %j = %tid to %cols step %wg_size {
          %idx = arith.addi %row_base, %j : index
          %v = memref.load %input[%idx] : memref<?xf32>
          %d = arith.subf %v, %row_max : f32
          %e = math.exp %d : f32
          %p = arith.mulf %e, %inverse : f32
          memref.store %p, %output[%idx] : memref<?xf32>
        }
      }
      return
    }
  }
}

kb.executable @matmul {
  // C[M,N] = A[M,K] * B[K,N], row-major; workload = [N, M]: one 16x16 tile
  // of C per workgroup.
  kb.export @matmul_tiled bindings(a: f32 readonly, b: f32 readonly, c: f32 writeonly)
      constants(M: u32, N: u32, K: u32) workgroup_size = [16, 16, 1]
  builtin.module {
    func.func @matmul_tiled() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0.0 : f32
      %a = kb.binding 0 : memref<?xf32>
      %b = kb.binding 1 : memref<?xf32>
      %c = kb.binding 2 : memref<?xf32>
      %m_i32 = kb.constant 0 : i32
      %n_i32 = kb.constant 1 : i32
      %k_i32 = kb.constant 2 : i32
      %m = arith.index_castui %m_i32 : i32 to index
      %n = arith.index_castui %n_i32 : i32 to index
      %k = arith.index_castui %k_i32 : i32 to index
      %a_tile = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
      %b_tile = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %wg_x = kb.workgroup_id x
      %wg_y = kb.workgroup_id y
      %col_base = arith.muli %wg_x, %c16 : index
      %col = arith.addi %col_base, %tx : index
      %row_base = arith.muli %wg_y, %c16 : index
      %row = arith.addi %row_base, %ty : index
      %row_ok = arith.cmpi ult, %row, %m : index
      %col_ok = arith.cmpi ult, %col, %n : index
      %sum = scf.for %t = %c0 to %k step %c16 iter_args(%acc = %zero) -> (f32) {
        %a_col = arith.addi %t, %tx : index
        %b_row = arith.addi %t, %ty : index
        %a_col_ok = arith.cmpi ult, %a_col, %k : index
        %a_ok = arith.andi %row_ok, %a_col_ok : i1
        %a_v = scf.if %a_ok -> (f32) {
          %ra = arith.muli %row, %k : index
          %ia = arith.addi %ra, %a_col : index
          %v = memref.load %a[%ia] : memref<?xf32>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        memref.store %a_v, %a_tile[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %b_row_ok = arith.cmpi ult, %b_row, %k : index
        %b_ok = arith.andi %b_row_ok, %col_ok : i1
        %b_v = scf.if %b_ok -> (f32) {
          %rb = arith.muli %b_row, %n : index
          %ib = arith.addi %rb, %col : index
          %v = memref.load %b[%ib] : memref<?xf32>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        memref.store %b_v, %b_tile[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %partial = scf.for %kk = %c0 to %c16 step %c1 iter_args(%p = %acc) -> (f32) {
          %av = memref.load %a_tile[%ty, %kk] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %bv = memref.load %b_tile[%kk, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
          %np = math.fma %av, %bv, %p : f32
          scf.yield %np : f32
        }
        gpu.barrier
        scf.yield %partial : f32
      }
      %ok = arith.andi %row_ok, %col_ok : i1
      scf.if %ok {
        %rc = arith.muli %row, %n : index
        %ic = arith.addi %rc, %col : index
        memref.store %sum, %c[%ic] : memref<?xf32>
      }
      return
    }
  }
}

func.func @main() {
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %c1048576 = arith.constant 1048576 : index
  %c256_i32 = arith.constant 256 : i32
  %c512_i32 = arith.constant 512 : i32
  %c1024_i32 = arith.constant 1024 : i32
  %c1048576_i32 = arith.constant 1048576 : i32
  %alpha = arith.constant 2.0 : f32

  // y = alpha * x + y
  %x = kb.alloc : !kb.buffer<1048576xf32>
  %y = kb.alloc : !kb.buffer<1048576xf32>
  kb.dispatch @saxpy::@saxpy[%c1048576](%x, %y : !kb.buffer<1048576xf32>, !kb.buffer<1048576xf32>)
      constants(%alpha, %c1048576_i32 : f32, i32)

  // sum(y): 1<<20 -> 256 partials -> 1
  %partials = kb.alloc : !kb.buffer<256xf32>
  %total = kb.alloc : !kb.buffer<1xf32>
  kb.dispatch @reduce_sum::@reduce_sum[%c1048576](%y, %partials : !kb.buffer<1048576xf32>, !kb.buffer<256xf32>)
      constants(%c1048576_i32 : i32)
  kb.dispatch @reduce_sum::@reduce_sum[%c256](%partials, %total : !kb.buffer<256xf32>, !kb.buffer<1xf32>)
      constants(%c256_i32 : i32)

  // Row softmax of a 1024x1024 matrix.
  %logits = kb.alloc : !kb.buffer<1024x1024xf32>
  %probs = kb.alloc : !kb.buffer<1024x1024xf32>
  kb.dispatch @softmax::@softmax[%c1024](%logits, %probs : !kb.buffer<1024x1024xf32>, !kb.buffer<1024x1024xf32>)
      constants(%c1024_i32, %c1024_i32 : i32, i32)

  // C = A * B, 512x512x512; workload [N, M].
  %a = kb.alloc : !kb.buffer<512x512xf32>
  %b = kb.alloc : !kb.buffer<512x512xf32>
  %c = kb.alloc : !kb.buffer<512x512xf32>
  kb.dispatch @matmul::@matmul_tiled[%c512, %c512](%a, %b, %c : !kb.buffer<512x512xf32>, !kb.buffer<512x512xf32>, !kb.buffer<512x512xf32>)
      constants(%c512_i32, %c512_i32, %c512_i32 : i32, i32, i32)
  return
}

// The reference of matmul_tiled's standalone benchmark (kernel.toml [bench],
// used by `kernel-bench tune`): the executable the bundled program's @matmul
// dispatch compiles (examples/quickstart/program.mlir), the same export name
// and layout.
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

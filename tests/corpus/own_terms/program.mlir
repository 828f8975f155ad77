// The program whose transpose the handwritten transposeNaive substitutes:
// out[x * height + y] = in[y * width + x] over a width x height matrix,
// one 16x16 tile per workgroup (workload = [width, height]).

kb.executable @transpose {
  kb.export @transpose bindings(idata: f32 readonly, odata: f32 writeonly)
      constants(width: i32, height: i32) workgroup_size = [16, 16, 1]
      workload_per_workgroup = [16, 16]
  builtin.module {
    func.func @transpose() {
      %idata = kb.binding 0 : memref<?xf32>
      %odata = kb.binding 1 : memref<?xf32>
      %width_i32 = kb.constant 0 : i32
      %height_i32 = kb.constant 1 : i32
      %width = arith.index_castui %width_i32 : i32 to index
      %height = arith.index_castui %height_i32 : i32 to index
      %wg_x = kb.workgroup_id x
      %wg_y = kb.workgroup_id y
      %size_x = kb.workgroup_size x
      %size_y = kb.workgroup_size y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %base_x = arith.muli %wg_x, %size_x : index
      %base_y = arith.muli %wg_y, %size_y : index
      %x = arith.addi %base_x, %tx : index
      %y = arith.addi %base_y, %ty : index
      %in_x = arith.cmpi ult, %x, %width : index
      %in_y = arith.cmpi ult, %y, %height : index
      %inside = arith.andi %in_x, %in_y : i1
      scf.if %inside {
        %row = arith.muli %y, %width : index
        %from = arith.addi %row, %x : index
        %col = arith.muli %x, %height : index
        %to = arith.addi %col, %y : index
        %v = memref.load %idata[%from] : memref<?xf32>
        memref.store %v, %odata[%to] : memref<?xf32>
      }
      return
    }
  }
}

func.func @main() {
  %c384 = arith.constant 384 : index
  %c200 = arith.constant 200 : index
  %width = arith.constant 384 : i32
  %height = arith.constant 200 : i32
  %in = kb.alloc : !kb.buffer<76800xf32>
  %out = kb.alloc : !kb.buffer<76800xf32>
  kb.dispatch @transpose::@transpose[%c384, %c200](%in, %out : !kb.buffer<76800xf32>, !kb.buffer<76800xf32>)
      constants(%width, %height : i32, i32)
  return
}

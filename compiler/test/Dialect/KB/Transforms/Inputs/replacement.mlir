// Fixture: a replacement for @saxpy (a different body, workgroup size 128)
// next to an unrelated executable.
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [128, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @saxpy() {
      %x = kb.binding 0 : memref<?xf32>
      %y = kb.binding 1 : memref<?xf32>
      %a = kb.constant 0 : f32
      %i = kb.workgroup_id x
      %v = memref.load %x[%i] : memref<?xf32>
      %r = arith.mulf %a, %v : f32
      memref.store %r, %y[%i] : memref<?xf32>
      return
    }
  }
}
kb.executable @other {
  kb.export @other bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @other() {
      return
    }
  }
}

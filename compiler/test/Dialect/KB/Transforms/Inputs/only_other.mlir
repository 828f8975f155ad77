// Fixture: a source file without @saxpy.
kb.executable @other {
  kb.export @other bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @other() {
      return
    }
  }
}

// The reference of the empty benchmark: leaves its buffer as it was.
kb.executable @empty {
  kb.export @empty bindings(buf: f32 readwrite) constants(n: u32)
      workgroup_size = [32, 1, 1]
  builtin.module {
    func.func @empty() {
      return
    }
  }
}

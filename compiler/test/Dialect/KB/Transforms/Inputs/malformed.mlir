// Fixture: a replacement that does not parse (line 4: a missing comma).
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly) workgroup_size = [64, 1, 1]
  kb.variant @cuda_sm_90 target(cuda "sm_90")
}

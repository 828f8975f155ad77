// Object substitution errors, each at the location that needs fixing.
// RUN: kb-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%S/Inputs/saxpy.ptx})'

kb.executable @saxpy {
  // expected-error@+1 {{saxpy.ptx' does not match the ABI of export @saxpy of kb.executable @saxpy:}}
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @saxpy() { return }
  }
}

// -----

kb.executable @saxpy {
  // expected-error@+1 {{does not match the ABI of export @saxpy}}
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [512, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @saxpy() { return }
  }
}

// -----

// expected-error@+1 {{saxpy.ptx') is a CUDA object (.ptx/.cubin) but kb.executable @saxpy has no cuda variant (variants: @vulkan_1_2); request one with --target=cuda:sm_90 or substitute a .spv}}
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @saxpy() { return }
  }
}

// -----

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  // expected-error@+1 {{saxpy.ptx' targets sm_90, newer than variant @cuda_sm_80 (sm_80); build it for sm_80 or older}}
  kb.variant @cuda_sm_80 target(cuda, "sm_80")
  builtin.module {
    func.func @saxpy() { return }
  }
}

// -----

// expected-error@+1 {{saxpy.ptx' is a 'func.func', not a kb.executable}}
func.func @saxpy() {
  return
}

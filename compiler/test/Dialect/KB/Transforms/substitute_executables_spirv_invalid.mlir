// A .spv for an executable without a vulkan variant; a SPIR-V module whose
// push constants do not fit.
// RUN: kb-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%S/Inputs/saxpy.spv})'

// expected-error@+1 {{is a SPIR-V object but kb.executable @saxpy has no vulkan variant (variants: @cuda_sm_90); request one with --target=vulkan:1.2 or substitute a .ptx}}
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @saxpy() { return }
  }
}

// -----

kb.executable @saxpy {
  // expected-error@+1 {{saxpy.spv' does not match the ABI of export @saxpy of kb.executable @saxpy:}}
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u64) workgroup_size = [256, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @saxpy() { return }
  }
}

// -----

kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  // expected-error@+1 {{saxpy.spv' has version 1.5, newer than vulkan1.0 of variant @vulkan_1_0 accepts (1.0); compile it with --target-env=vulkan1.0}}
  kb.variant @vulkan_1_0 target(vulkan, "vulkan1.0")
  builtin.module {
    func.func @saxpy() { return }
  }
}

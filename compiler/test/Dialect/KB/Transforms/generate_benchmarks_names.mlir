// RUN: kb-opt %s --kb-generate-benchmarks | FileCheck %s

// A C++ kernel's export is its mangled entry; the benchmark is named with
// the plain function name, template instances included.
// CHECK: name = "scale_bf16_scale_kernel1_1024x1x1"
// CHECK: name = "gather_rows_512x1x1"
// CHECK: name = "plain_64x1x1"
// A standalone kernel's executable carries its kernel.toml name
// (`kb.kernel_name`); its benchmark is named after it alone.
// CHECK: name = "bf16_scale_2048x1x1"

kb.executable @scale_bf16 {
  kb.export @_Z13scale_kernel1P13__nv_bfloat16PKS_i
      bindings(out: bf16 writeonly, in: bf16 readonly) constants(n: i32)
      workgroup_size = [256, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @_Z13scale_kernel1P13__nv_bfloat16PKS_i() { return }
  }
}

kb.executable @gather {
  kb.export @_Z11gather_rowsIifEvPKT_PKT0_PS3_iii
      bindings(idx: i32 readonly, out: f32 writeonly)
      workgroup_size = [128, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @_Z11gather_rowsIifEvPKT_PKT0_PS3_iii() { return }
  }
}

kb.executable @plain {
  kb.export @plain bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @plain() { return }
  }
}

kb.executable @bf16_scale attributes {kb.kernel_name = "bf16_scale"} {
  kb.export @_Z12scale_kernelI13__nv_bfloat16EvPT_PKS1_fi
      bindings(out: bf16 writeonly) workgroup_size = [256, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @_Z12scale_kernelI13__nv_bfloat16EvPT_PKS1_fi() { return }
  }
}

func.func @main() {
  %c1024 = arith.constant 1024 : index
  %c512 = arith.constant 512 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 1024 : i32
  %a = kb.alloc : !kb.buffer<1024xbf16>
  %b = kb.alloc : !kb.buffer<1024xbf16>
  kb.dispatch @scale_bf16::@_Z13scale_kernel1P13__nv_bfloat16PKS_i[%c1024](%a, %b : !kb.buffer<1024xbf16>, !kb.buffer<1024xbf16>)
      constants(%n : i32)
  %idx = kb.alloc : !kb.buffer<512xi32>
  %out = kb.alloc : !kb.buffer<512xf32>
  kb.dispatch @gather::@_Z11gather_rowsIifEvPKT_PKT0_PS3_iii[%c512](%idx, %out : !kb.buffer<512xi32>, !kb.buffer<512xf32>)
  %x = kb.alloc : !kb.buffer<64xf32>
  kb.dispatch @plain::@plain[%c64](%x : !kb.buffer<64xf32>)
  %c2048 = arith.constant 2048 : index
  %s = kb.alloc : !kb.buffer<2048xbf16>
  kb.dispatch @bf16_scale::@_Z12scale_kernelI13__nv_bfloat16EvPT_PKS1_fi[%c2048](%s : !kb.buffer<2048xbf16>)
  return
}

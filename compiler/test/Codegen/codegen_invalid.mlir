// RUN: kb-opt %s --split-input-file --verify-diagnostics --kb-codegen=emit-cubin=false

// An op outside the supported set is refused at the op, naming the target.
kb.executable @unsupported {
  kb.export @unsupported bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  kb.variant @vulkan_1_2 target(vulkan, "vulkan1.2")
  builtin.module {
    func.func @unsupported() {
      %c0 = arith.constant 0 : index
      %x = kb.binding 0 : memref<?xf32>
      // expected-error@+1 {{'memref.alloca' op is not supported by the vulkan:1.2 codegen of kb.executable @unsupported (export @unsupported); kernel bodies may use}}
      %tmp = memref.alloca() : memref<4xf32>
      %v = memref.load %tmp[%c0] : memref<4xf32>
      memref.store %v, %x[%c0] : memref<?xf32>
      return
    }
  }
}

// -----

// A math function without a native or polynomial lowering would need
// libdevice on CUDA.
kb.executable @pow {
  kb.export @pow bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  // expected-error@+1 {{'kb.variant' op failed in the cuda:sm_90 codegen of kb.executable @pow}}
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @pow() {
      %c0 = arith.constant 0 : index
      %x = kb.binding 0 : memref<?xf32>
      %v = memref.load %x[%c0] : memref<?xf32>
      // expected-error@+1 {{'math.powf' op is not supported by the cuda:sm_90 codegen of kb.executable @pow (it would need libdevice)}}
      %p = math.powf %v, %v : f32
      memref.store %p, %x[%c0] : memref<?xf32>
      return
    }
  }
}

// -----

// The ABI passes no sizes, so only the leading dimension may be dynamic.
kb.executable @strided {
  kb.export @strided bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @strided() {
      // expected-error@+1 {{'kb.binding' op has type 'memref<4x?xf32>'; only the leading dimension of a binding may be dynamic in the cuda:sm_90 codegen of kb.executable @strided}}
      %x = kb.binding 0 : memref<4x?xf32>
      return
    }
  }
}

// -----

// Workgroup memory must be a static alloc at the top of the body.
kb.executable @nested_alloc {
  kb.export @nested_alloc workgroup_size = [64, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @nested_alloc() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c1 step %c1 {
        // expected-error@+1 {{'memref.alloc' op is not supported by the cuda:sm_90 codegen}}
        %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      }
      return
    }
  }
}

// D = A + B for f32 4-D tensors with B broadcast onto A, written in the
// style of ggml's Vulkan element-wise shaders: the push-constant block and
// index helpers come from an included header (include/ggml_common.glsl),
// the workgroup size is specialization constant 0 (BLOCK_SIZE, also
// local_size_x), and each invocation walks the flat index with a
// grid-stride loop, so any workgroup count covers the tensor. In the import
// corpus as a kernel whose interface must be read back through an #include
// and a spec-constant workgroup size; ggml_add_naive.comp is its twin
// reference with the same interface.
//
// Bindings: 0 A f32 readonly, 1 B f32 readonly, 2 D f32 writeonly.
// Strides are in elements. Launch: ceil(ne / BLOCK_SIZE) workgroups (or
// fewer: the loop covers the rest).
#version 450

#include "ggml_common.glsl"

layout(constant_id = 0) const uint BLOCK_SIZE = 256;
// local_size_x repeats the default: with local_size_x_id alone glslang
// gives the workgroup-size constant a default of 1 (a second SpecId 0
// constant beside BLOCK_SIZE), and an unspecialized pipeline would run
// one invocation per workgroup while the loop strides by BLOCK_SIZE.
layout(local_size_x = 256, local_size_x_id = 0, local_size_y = 1,
       local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer A { float data_a[]; };
layout(set = 0, binding = 1) readonly buffer B { float data_b[]; };
layout(set = 0, binding = 2) writeonly buffer D { float data_d[]; };

void main() {
  const uint stride = gl_NumWorkGroups.x * BLOCK_SIZE;
  for (uint idx = gl_GlobalInvocationID.x; idx < p.ne; idx += stride) {
    uint i0, i1, i2, i3;
    src0_coords(idx, i0, i1, i2, i3);
    data_d[dst_offset(i0, i1, i2, i3)] =
        data_a[src0_offset(i0, i1, i2, i3)] +
        data_b[src1_offset(i0, i1, i2, i3)];
    if (stride >= p.ne - idx) // the next step would pass ne (or wrap)
      break;
  }
}

#version 450
// Constants in a uniform block, as Vulkan samples pass them: i32, f32 (at
// an explicit offset 16), i64 and f64 members (std140 offsets 0, 16, 24,
// 32; 40 bytes) at binding 2, after the storage buffer at binding 0 and a
// gap at binding 1.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { double r[]; };
layout(set = 0, binding = 2) uniform Params {
  int i;
  layout(offset = 16) float f;
  int64_t l;
  double d;
} params;

void main() {
  r[gl_LocalInvocationIndex] =
      double(params.i) + params.f + double(params.l) + params.d;
}

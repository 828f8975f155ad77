#version 450
// A push-constant block with i32, f32, i64 and f64 members (offsets 0, 4, 8,
// 16; 24 bytes), a uniform buffer and a 3-D literal workgroup size.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
layout(set = 0, binding = 0) writeonly buffer Out { double r[]; };
layout(set = 1, binding = 2) uniform Params { vec4 bias; };
layout(push_constant) uniform Constants {
  int i;
  float f;
  int64_t l;
  double d;
} pc;

void main() {
  r[gl_LocalInvocationIndex] = double(pc.i) + pc.f + double(pc.l) + pc.d + bias.x;
}

#version 450
// A ggml-style interface: binding 0 declared twice (an f16 buffer also read
// as f16vec2), binding 1 left out (an optional buffer this shader does not
// use), binding 2 written as floats and as vec4.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t data_a[]; };
layout(set = 0, binding = 0) readonly buffer A2 { f16vec2 data_a2[]; };
layout(set = 0, binding = 2) writeonly buffer D { float data_d[]; };
layout(set = 0, binding = 2) writeonly buffer D4 { vec4 data_d4[]; };
layout(push_constant) uniform Parameters { uint n; } p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (4 * i + 3 < p.n) {
    f16vec2 lo = data_a2[2 * i];
    data_d4[i] = vec4(float(lo.x), float(lo.y), float(data_a[4 * i + 2]),
                      float(data_a[4 * i + 3]));
  } else if (i < p.n) {
    data_d[i] = float(data_a[i]);
  }
}

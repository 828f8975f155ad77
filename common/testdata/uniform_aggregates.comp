#version 450
// A uniform block the ABI cannot fill: a vector, a matrix, an array and a
// struct member where constants are scalars.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { float r[]; };
struct Range { float lo; float hi; };
layout(set = 0, binding = 1) uniform Params {
  vec2 scale;
  mat2 rotation;
  float weights[2];
  Range range;
} params;

void main() {
  r[gl_LocalInvocationIndex] = params.scale.x + params.rotation[0][0] +
                               params.weights[1] + params.range.hi;
}

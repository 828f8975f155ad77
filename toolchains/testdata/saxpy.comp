#version 450
// y = a * x + y, the Vulkan twin of saxpy.cu: set 0 binding 0 = x
// (readonly), binding 1 = y; push constants a (f32), n (u32).
#extension GL_GOOGLE_include_directive : require
#include "scale.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Constants { float a; uint n; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n)
    y[i] = KB_SCALE * pc.a * x[i] + y[i];
}

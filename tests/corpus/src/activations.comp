// The GLSL side of activations.cu: one source, one kernel per define
// (OP_RELU, OP_SQUARE, OP_LEAKY), as shader libraries build variants.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "corpus_common.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };

#if defined(OP_LEAKY)
layout(push_constant) uniform Constants {
  float alpha;
  uint n;
} pc;
#else
layout(push_constant) uniform Constants { uint n; } pc;
#endif

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = globalIndex(); i < pc.n; i += stride) {
    float v = x[i];
#if defined(OP_RELU)
    y[i] = reluOf(v);
#elif defined(OP_SQUARE)
    y[i] = v * v;
#elif defined(OP_LEAKY)
    y[i] = v > 0.0 ? v : pc.alpha * v;
#else
#error define OP_RELU, OP_SQUARE or OP_LEAKY
#endif
    if (stride >= pc.n - i)
      break;
  }
}

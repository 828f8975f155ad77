// y[i] = alpha * x[i] + beta for i < n, with the constants in a uniform
// block (std140: alpha at 0, beta at 4, n at 8) instead of push constants.
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2) uniform Params {
  float alpha;
  float beta;
  uint n;
} params;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < params.n; i += stride)
    y[i] = params.alpha * x[i] + params.beta;
}

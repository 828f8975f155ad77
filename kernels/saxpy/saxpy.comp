#version 450
// SAXPY: y[i] = a * x[i] + y[i] for i < n (see saxpy.cu for the contract).
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Constants {
  float a;
  uint n;
} pc;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
    y[i] = pc.a * x[i] + y[i];
    if (stride >= pc.n - i)
      break; // before i += stride could wrap
  }
}

#version 450
// Naive matrix multiply C = A * B, row-major, one output element per
// invocation (see matmul_naive.cu for the contract).
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Constants {
  uint M;
  uint N;
  uint K;
} pc;

void main() {
  uint col = gl_GlobalInvocationID.x;
  uint row = gl_GlobalInvocationID.y;
  if (row >= pc.M || col >= pc.N)
    return;
  float sum = 0.0;
  for (uint k = 0u; k < pc.K; ++k)
    sum += a[row * pc.K + k] * b[k * pc.N + col];
  c[row * pc.N + col] = sum;
}

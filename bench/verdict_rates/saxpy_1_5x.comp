#version 450
// kernels/saxpy/saxpy.comp doing its work about 1.5 times: an extra pass
// over the data (the loads and arithmetic of the real pass, without its
// store) before the real pass, with the same result. On lavapipe it takes
// about 1.5x the original's time (bench/README.md has the measured ratio). bench/verdict_rates
// substitutes it for the original to measure how often `compare` detects
// the slowdown.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Constants {
  float a;
  uint n;
} pc;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint first = gl_GlobalInvocationID.x;
  float sum = 0.0;
  for (uint i = first; i < pc.n; i += stride) {
    sum += pc.a * x[i] + y[i];
    if (stride >= pc.n - i)
      break; // before i += stride could wrap
  }
  for (uint i = first; i < pc.n; i += stride) {
    y[i] = pc.a * x[i] + y[i];
    if (stride >= pc.n - i)
      break;
  }
  // The extra pass's sum is used, so the compiler must keep the pass; no
  // input the benchmark draws sums to exactly this value.
  if (sum == -1.0e-30 && first < pc.n)
    y[first] = sum;
}

#version 450
// SPIR-V fixture source: saxpy in the kernel ABI (set 0 bindings x, y; push
// constants a, n). Regenerate the .spv files with regenerate.sh.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Constants {
  float a;
  uint n;
} pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n)
    y[i] = pc.a * x[i] + y[i];
}

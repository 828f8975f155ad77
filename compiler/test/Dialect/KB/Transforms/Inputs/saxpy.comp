#version 450
// Fixture: the GLSL saxpy (entry point `main`) for the same ABI.
layout(local_size_x = 256) in;
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

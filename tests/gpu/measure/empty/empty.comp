#version 450
// A kernel that does no work (see empty.cu).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Buf { float buf[]; };
layout(push_constant) uniform Constants { uint n; } pc;

void main() {
  if (pc.n == 0xffffffffu)
    buf[gl_LocalInvocationID.x] = 0.0;
}

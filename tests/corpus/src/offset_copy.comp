// A kernel written for its own launch: 128 invocations per workgroup, one
// element each, y[i] = x[i] + b for i < n. Its reference
// (references/offset_copy.mlir) is written the naive way, one element per
// workgroup of one invocation; the kernel declares no count rule, so it runs
// at its own workgroup size with ceil(n / 128) workgroups.
#version 450
layout(local_size_x = 128) in;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Constants { float b; uint n; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n)
    y[i] = x[i] + pc.b;
}

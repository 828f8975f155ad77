#version 450
// b[i] = a[i] * 2 + 1 for i < n. Bindings: a (u32, readonly), b (u32,
// writeonly). Constants: n (u32).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) writeonly buffer B { uint b[]; };
layout(push_constant) uniform C { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    b[i] = a[i] * 2u + 1u;
}

#version 450
// Writes every constant back, at the same offsets (std430 = the ABI's
// natural alignment), so the host can compare the 40 bytes it pushed.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) writeonly buffer O {
  int a; uint b; float c; int64_t d; uint64_t e; double f;
} o;
layout(push_constant) uniform K {
  int a; uint b; float c; int64_t d; uint64_t e; double f;
} k;
void main() {
  o.a = k.a; o.b = k.b; o.c = k.c; o.d = k.d; o.e = k.e; o.f = k.f;
}

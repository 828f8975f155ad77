#version 450
// Push-constant members whose sizes come from arrays (ArrayStride), vectors
// and matrices (MatrixStride): offsets 0, 16, 32; sizes 12, 12, 16; 48 bytes.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { float r[]; };
layout(push_constant) uniform Constants {
  float arr[3];
  vec3 v;
  mat2 m;
} pc;

void main() { r[0] = pc.arr[2] + pc.v.z + pc.m[1][1]; }

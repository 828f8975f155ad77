// The push-constant block and index helpers shared by ggml-style binary ops
// (written in the style of ggml's Vulkan backend, where every element-wise
// shader includes one common header). In the import corpus because the
// interface of ggml_add.comp comes from an #include (found with -I / the
// kernel's include_dirs) and is a wide push-constant block of 29 members,
// several of which add never reads.
//
// Tensors are 4-D, ggml order: dimension 0 is the innermost. neXY is the
// size of dimension Y of tensor X (0 = src0 A, 1 = src1 B, 2 = dst D), nbXY
// its stride in ELEMENTS (not bytes; the host divides ggml's byte strides by
// the element size). B broadcasts onto A: each ne1Y divides ne0Y. D has A's
// shape, ne = ne00*ne01*ne02*ne03 elements.
#ifndef GGML_COMMON_GLSL
#define GGML_COMMON_GLSL

layout(push_constant) uniform parameter {
  uint ne;                              // offset 0: elements of D
  uint ne00; uint ne01; uint ne02; uint ne03;  // 4..16
  uint nb00; uint nb01; uint nb02; uint nb03;  // 20..32
  uint ne10; uint ne11; uint ne12; uint ne13;  // 36..48
  uint nb10; uint nb11; uint nb12; uint nb13;  // 52..64
  uint ne20; uint ne21; uint ne22; uint ne23;  // 68..80
  uint nb20; uint nb21; uint nb22; uint nb23;  // 84..96
  uint misc_offset;                     // 100: used by other ops; add ignores it
  float param1;                         // 104: ditto
  float param2;                         // 108: ditto
  int param3;                           // 112: ditto; block size 116
} p;

// The 4-D coordinates of flat element `idx` of a tensor shaped like A.
void src0_coords(uint idx, out uint i0, out uint i1, out uint i2, out uint i3) {
  const uint plane = p.ne00 * p.ne01;
  const uint cube = plane * p.ne02;
  i3 = idx / cube;
  idx -= i3 * cube;
  i2 = idx / plane;
  idx -= i2 * plane;
  i1 = idx / p.ne00;
  i0 = idx - i1 * p.ne00;
}

uint src0_offset(uint i0, uint i1, uint i2, uint i3) {
  return i0 * p.nb00 + i1 * p.nb01 + i2 * p.nb02 + i3 * p.nb03;
}

// B repeats along every dimension where it is smaller than A.
uint src1_offset(uint i0, uint i1, uint i2, uint i3) {
  return (i0 % p.ne10) * p.nb10 + (i1 % p.ne11) * p.nb11 +
         (i2 % p.ne12) * p.nb12 + (i3 % p.ne13) * p.nb13;
}

uint dst_offset(uint i0, uint i1, uint i2, uint i3) {
  return i0 * p.nb20 + i1 * p.nb21 + i2 * p.nb22 + i3 * p.nb23;
}

#endif // GGML_COMMON_GLSL

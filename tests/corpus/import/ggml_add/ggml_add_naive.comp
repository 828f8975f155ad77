// The naive twin of ggml_add.comp: the same interface (bindings 0..2, the
// same 29-member push-constant block, spec constant 0 = BLOCK_SIZE =
// local_size_x) written out in this one file without the header, one
// invocation per element and plain div/mod index math. In the import
// corpus as the "twin" reference: the workbench runs it on the same
// buffers and constants and compares D. Its push-constant block must lay
// out byte for byte like ggml_common.glsl's.
//
// Launch: at least ceil(ne / BLOCK_SIZE) workgroups (extra invocations
// return).
#version 450

layout(constant_id = 0) const uint BLOCK_SIZE = 256;
layout(local_size_x = 256, local_size_x_id = 0) in;

layout(set = 0, binding = 0) readonly buffer A { float data_a[]; };
layout(set = 0, binding = 1) readonly buffer B { float data_b[]; };
layout(set = 0, binding = 2) writeonly buffer D { float data_d[]; };

layout(push_constant) uniform parameter {
  uint ne;
  uint ne00; uint ne01; uint ne02; uint ne03;
  uint nb00; uint nb01; uint nb02; uint nb03;
  uint ne10; uint ne11; uint ne12; uint ne13;
  uint nb10; uint nb11; uint nb12; uint nb13;
  uint ne20; uint ne21; uint ne22; uint ne23;
  uint nb20; uint nb21; uint nb22; uint nb23;
  uint misc_offset;
  float param1;
  float param2;
  int param3;
} p;

void main() {
  // BLOCK_SIZE is the workgroup size (SpecId 0 sets both); using it keeps
  // the constant in the module, as in ggml_add.comp.
  uint idx = gl_WorkGroupID.x * BLOCK_SIZE + gl_LocalInvocationID.x;
  if (idx >= p.ne)
    return;

  // Coordinates of element idx in A's shape (dimension 0 innermost).
  uint i0 = idx % p.ne00;
  uint i1 = (idx / p.ne00) % p.ne01;
  uint i2 = (idx / (p.ne00 * p.ne01)) % p.ne02;
  uint i3 = idx / (p.ne00 * p.ne01 * p.ne02);

  uint a = i0 * p.nb00 + i1 * p.nb01 + i2 * p.nb02 + i3 * p.nb03;
  uint b = (i0 % p.ne10) * p.nb10 + (i1 % p.ne11) * p.nb11 +
           (i2 % p.ne12) * p.nb12 + (i3 % p.ne13) * p.nb13;
  uint d = i0 * p.nb20 + i1 * p.nb21 + i2 * p.nb22 + i3 * p.nb23;

  data_d[d] = data_a[a] + data_b[b];
}

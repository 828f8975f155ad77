#version 450
// SPIR-V fixture source: storage buffers of several element types and
// static workgroup memory, for the scalar-kind check and the shared-memory
// reflection. Regenerate the .spv file with regenerate.sh.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { int a[]; };
layout(set = 0, binding = 1) readonly buffer B { vec4 b[]; };
layout(set = 0, binding = 2) readonly buffer C { uint16_t c[]; };
layout(set = 0, binding = 3) buffer D { uint d[]; };
layout(push_constant) uniform Constants { int n; } pc;
shared float tile[1024]; // 4096 bytes
shared uvec2 pairs[16];  // 128 bytes

void main() {
  uint i = gl_GlobalInvocationID.x;
  tile[i % 1024] = float(a[i]) + b[i].x + float(c[i]);
  pairs[i % 16] = uvec2(i, d[i]);
  barrier();
  d[i] = uint(tile[(i + 1) % 1024]) + pairs[(i + 3) % 16].y + uint(pc.n);
}

#version 450
// 64 KiB of workgroup (shared) memory: more than many devices allow
// (lavapipe and NVIDIA's Vulkan: 48 KiB or less), so loading it must be
// refused before any dispatch.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
shared uint tile[16384];

void main() {
  uint i = gl_LocalInvocationID.x;
  for (uint j = i; j < 16384u; j += 64u)
    tile[j] = j;
  barrier();
  o[gl_GlobalInvocationID.x] = tile[(i * 257u) % 16384u];
}

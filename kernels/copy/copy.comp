#version 450
// Vectorized copy: dst[i] = src[i] for i < n (see copy.cu for the contract).
// The buffers are viewed as vec4 arrays; the n % 4 trailing floats are copied
// component by component from the last, partial vec4, so nothing past n is
// read or written.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform Constants { uint n; } pc;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint tid = gl_GlobalInvocationID.x;
  uint vecCount = pc.n / 4u;
  for (uint i = tid; i < vecCount; i += stride) {
    dst[i] = src[i];
    if (stride >= vecCount - i)
      break; // before i += stride could wrap
  }
  uint rest = pc.n % 4u;
  if (tid < rest)
    dst[vecCount][tid] = src[vecCount][tid];
}

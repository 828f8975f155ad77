// The GLSL port of reduce_sum.cu, the way a Vulkan renderer's compute pass
// writes a block reduction: 256 invocations per workgroup, each first adding
// two elements (workgroup w covers input[512*w .. 512*w + 512)), then a
// shared-memory tree with a barrier per level. One partial sum per
// workgroup in output[gl_WorkGroupID.x]. Same interface as the CUDA kernel
// (input, output; n), so reduce_sum_ref.cpp checks both.
#version 450
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Input { float g_idata[]; };
layout(set = 0, binding = 1) writeonly buffer Output { float g_odata[]; };
layout(push_constant) uniform Params { uint n; } params;

shared float sdata[256];

void main() {
  uint tid = gl_LocalInvocationID.x;
  uint i = gl_WorkGroupID.x * 512u + tid;
  float sum = 0.0;
  if (i < params.n)
    sum += g_idata[i];
  if (i + 256u < params.n)
    sum += g_idata[i + 256u];
  sdata[tid] = sum;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    barrier();
  }
  if (tid == 0u)
    g_odata[gl_WorkGroupID.x] = sdata[0];
}

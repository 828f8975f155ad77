// block_sum.cu for Vulkan with subgroup operations: subgroupAdd per
// subgroup, one shared slot per subgroup (any subgroup size: lavapipe has
// 8 lanes, GPUs 32 or 64), then invocation 0 adds the gl_NumSubgroups
// partial sums.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Input { float inputv[]; };
layout(set = 0, binding = 1) writeonly buffer Partials { float partials[]; };
layout(push_constant) uniform Constants { uint n; } pc;

shared float subgroupSums[256];

void main() {
  float v = 0.0;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
    v += inputv[i];
    if (stride >= pc.n - i)
      break;
  }
  v = subgroupAdd(v);
  if (subgroupElect())
    subgroupSums[gl_SubgroupID] = v;
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    float total = 0.0;
    for (uint s = 0; s < gl_NumSubgroups; ++s)
      total += subgroupSums[s];
    partials[gl_WorkGroupID.x] = total;
  }
}

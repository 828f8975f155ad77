// The maximum of each workgroup's 256 elements with subgroup operations:
// subgroupMax, one shared slot per subgroup, then invocation 0 folds the
// gl_NumSubgroups values (correct for any subgroup size). Elements past n
// count as -inf; out[workgroup] = max.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Input { float inputv[]; };
layout(set = 0, binding = 1) writeonly buffer Output { float outv[]; };
layout(push_constant) uniform Constants { uint n; } pc;

shared float subgroupMaxima[256];

void main() {
  uint i = gl_GlobalInvocationID.x;
  float v = i < pc.n ? inputv[i] : uintBitsToFloat(0xff800000u);
  v = subgroupMax(v);
  if (subgroupElect())
    subgroupMaxima[gl_SubgroupID] = v;
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    float m = subgroupMaxima[0];
    for (uint s = 1; s < gl_NumSubgroups; ++s)
      m = max(m, subgroupMaxima[s]);
    outv[gl_WorkGroupID.x] = m;
  }
}

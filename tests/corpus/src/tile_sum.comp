// A workgroup sum as Vulkan compute libraries write it: the workgroup size
// (local_size_x_id) and the elements each invocation adds (TILE,
// constant_id) are specialization constants chosen at pipeline creation;
// subgroupAdd folds each subgroup into one shared slot, invocation 0 folds
// the gl_NumSubgroups slots (correct for any subgroup size).
// out[workgroup] = the sum of its gl_WorkGroupSize.x * TILE elements,
// those past n counting as 0.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TILE = 4;

layout(set = 0, binding = 0) readonly buffer Input { uint inputv[]; };
layout(set = 0, binding = 1) writeonly buffer Output { uint outv[]; };
layout(push_constant) uniform Constants { uint n; } pc;

shared uint partial[64]; // one slot per subgroup: workgroups up to 64 lanes x 64

void main() {
  uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * TILE;
  uint s = 0u;
  for (uint t = 0u; t < TILE; ++t) {
    uint i = base + t * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    s += i < pc.n ? inputv[i] : 0u;
  }
  s = subgroupAdd(s);
  if (subgroupElect())
    partial[gl_SubgroupID] = s;
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    uint total = 0u;
    for (uint k = 0u; k < gl_NumSubgroups; ++k)
      total += partial[k];
    outv[gl_WorkGroupID.x] = total;
  }
}

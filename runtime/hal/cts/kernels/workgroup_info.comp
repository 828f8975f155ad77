// What the pipeline was created with, as the kernel sees it: the
// specialized workgroup size (local_size_x_id) and constant (MARK), the
// subgroup size and count. Invocation 0 writes them to o[0..3].
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MARK = 1u;

layout(set = 0, binding = 0) writeonly buffer O { uint o[]; };

void main() {
  if (gl_LocalInvocationIndex == 0u) {
    o[0] = gl_WorkGroupSize.x;
    o[1] = MARK;
    o[2] = gl_SubgroupSize;
    o[3] = gl_NumSubgroups;
  }
}

// The copy of the copy-bandwidth probe (copy_bandwidth.h) for Vulkan: the
// same grid-stride copy of 16-byte elements as copy_vec4.cu. The SPIR-V is
// checked in (copy_vec4.spv.inc, made by regenerate.sh) because GPU hosts
// have no GLSL compiler.
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) readonly buffer Source { vec4 source[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Target { vec4 target[]; };
layout(push_constant) uniform Constants { uint count; };

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride)
    target[i] = source[i];
}

#version 450
// Workgroup size with a specialization constant: vulkan1.1/1.2 encode it as a
// WorkgroupSize builtin (OpSpecConstantComposite), vulkan1.3 as LocalSizeId.
layout(local_size_x_id = 3, local_size_y = 2) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint v[]; };

void main() { v[gl_LocalInvocationIndex] = gl_WorkGroupSize.x; }

// Specialization constants, as Vulkan compute libraries size their
// kernels: the workgroup size (local_size_x_id) and the scale factor
// (constant_id) are set at pipeline creation; the defaults below are what
// runs without a [specialization] table. y[i] = SCALE * x[i] for i < n.
#version 450
layout(local_size_x = 64, local_size_x_id = 0) in;
layout(constant_id = 1) const float SCALE = 2.0;

layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Constants { uint n; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n)
    y[i] = SCALE * x[i];
}

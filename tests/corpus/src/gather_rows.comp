// gather_rows.cu for Vulkan: out[r * cols + c] = table[idx[r] * cols + c],
// 0 for an index outside [0, rows).
#version 450
layout(local_size_x = 128) in;

layout(set = 0, binding = 0) readonly buffer Idx { int idx[]; };
layout(set = 0, binding = 1) readonly buffer Table { float table[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float outv[]; };
layout(push_constant) uniform Constants {
  int rows;
  int cols;
  int count;
} pc;

void main() {
  uint total = uint(pc.count) * uint(pc.cols);
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
    uint r = i / uint(pc.cols), c = i % uint(pc.cols);
    int row = idx[r];
    outv[i] = (row >= 0 && row < pc.rows) ? table[uint(row) * uint(pc.cols) + c]
                                          : 0.0;
    if (stride >= total - i)
      break;
  }
}

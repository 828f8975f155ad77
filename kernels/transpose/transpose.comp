#version 450
// Tiled transpose of a row-major rows x cols matrix through a padded shared
// tile (see transpose.cu for the contract: 32x8 workgroups, one 32x32 tile
// each, ceil(cols / 32) x ceil(rows / 32) workgroups).
layout(local_size_x = 32, local_size_y = 8) in;
layout(set = 0, binding = 0) readonly buffer Input { float input_[]; };
layout(set = 0, binding = 1) writeonly buffer Output { float output_[]; };
layout(push_constant) uniform Constants {
  uint rows;
  uint cols;
} pc;

const uint kTile = 32u;
const uint kRowsPerPass = 8u;
shared float tile[kTile][kTile + 1u]; // +1: no bank conflicts on columns

void main() {
  uvec2 lid = gl_LocalInvocationID.xy;
  uint x = gl_WorkGroupID.x * kTile + lid.x; // input column
  uint y = gl_WorkGroupID.y * kTile + lid.y; // input row
  for (uint k = 0u; k < kTile; k += kRowsPerPass)
    if (x < pc.cols && y + k < pc.rows)
      tile[lid.y + k][lid.x] = input_[(y + k) * pc.cols + x];
  barrier();
  x = gl_WorkGroupID.y * kTile + lid.x; // output column = input row
  y = gl_WorkGroupID.x * kTile + lid.y; // output row = input column
  for (uint k = 0u; k < kTile; k += kRowsPerPass)
    if (x < pc.rows && y + k < pc.cols)
      output_[(y + k) * pc.rows + x] = tile[lid.x][lid.y + k];
}

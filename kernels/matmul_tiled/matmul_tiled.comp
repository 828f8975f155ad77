#version 450
// Tiled matrix multiply C = A * B through 16x16 shared-memory tiles (see
// matmul_tiled.cu for the contract).
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Constants {
  uint M;
  uint N;
  uint K;
} pc;

const uint kTile = 16u;
shared float aTile[kTile][kTile];
shared float bTile[kTile][kTile];

void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint col = gl_WorkGroupID.x * kTile + tx;
  uint row = gl_WorkGroupID.y * kTile + ty;
  float sum = 0.0;
  for (uint t = 0u; t < pc.K; t += kTile) {
    uint aCol = t + tx, bRow = t + ty;
    aTile[ty][tx] = row < pc.M && aCol < pc.K ? a[row * pc.K + aCol] : 0.0;
    bTile[ty][tx] = bRow < pc.K && col < pc.N ? b[bRow * pc.N + col] : 0.0;
    barrier();
    for (uint k = 0u; k < kTile; ++k)
      sum += aTile[ty][k] * bTile[k][tx];
    barrier();
    if (pc.K - t <= kTile)
      break; // before t += kTile could wrap
  }
  if (row < pc.M && col < pc.N)
    c[row * pc.N + col] = sum;
}

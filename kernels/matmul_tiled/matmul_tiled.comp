#version 450
// Tiled matrix multiply C = A * B through shared-memory tiles of A
// (16 x TILE_K) and B (TILE_K x 16); TILE_K, UNROLL and PAD are tuned
// (see matmul_tiled.cu for the contract and the parameters).
#ifndef TILE_K
#define TILE_K 16
#endif
#ifndef UNROLL
#define UNROLL TILE_K
#endif
#ifndef PAD
#define PAD 0
#endif
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
const uint kDepth = uint(TILE_K);
const uint kUnroll = uint(UNROLL);
shared float aTile[kTile][kDepth + uint(PAD)];
shared float bTile[kDepth][kTile + uint(PAD)];

void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tid = ty * kTile + tx;
  uint col0 = gl_WorkGroupID.x * kTile, row0 = gl_WorkGroupID.y * kTile;
  uint col = col0 + tx, row = row0 + ty;
  float sum = 0.0;
  for (uint t = 0u; t < pc.K; t += kDepth) {
    for (uint i = tid; i < kTile * kDepth; i += kTile * kTile) {
      uint ar = i / kDepth, ac = i % kDepth;
      aTile[ar][ac] = row0 + ar < pc.M && t + ac < pc.K
                          ? a[(row0 + ar) * pc.K + t + ac]
                          : 0.0;
      uint br = i / kTile, bc = i % kTile;
      bTile[br][bc] = t + br < pc.K && col0 + bc < pc.N
                          ? b[(t + br) * pc.N + col0 + bc]
                          : 0.0;
    }
    barrier();
    for (uint k0 = 0u; k0 < kDepth; k0 += kUnroll)
      for (uint u = 0u; u < kUnroll; ++u)
        sum += aTile[ty][k0 + u] * bTile[k0 + u][tx];
    barrier();
    if (pc.K - t <= kDepth)
      break; // before t += kDepth could wrap
  }
  if (row < pc.M && col < pc.N)
    c[row * pc.N + col] = sum;
}

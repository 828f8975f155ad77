#version 450
// Tiled matrix multiply C = A * B: each workgroup computes one TILE x TILE
// tile of C through shared-memory tiles of A (TILE x TILE_K) and B (TILE_K x
// TILE), with TILE x (TILE / WPT) invocations of WPT rows each; TILE, WPT,
// TILE_K, UNROLL and PAD are tuned (see matmul_tiled.cu for the contract and
// the parameters).
#ifndef TILE
#define TILE 16
#endif
#ifndef WPT
#define WPT 1
#endif
#ifndef TILE_K
#define TILE_K 16
#endif
#ifndef UNROLL
#define UNROLL TILE_K
#endif
#ifndef PAD
#define PAD 0
#endif
layout(local_size_x = TILE, local_size_y = TILE / WPT) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Constants {
  uint M;
  uint N;
  uint K;
} pc;

const uint kTile = uint(TILE);
const uint kRows = uint(TILE / WPT);
const uint kThreads = kTile * kRows;
const uint kDepth = uint(TILE_K);
const uint kUnroll = uint(UNROLL);
shared float aTile[kTile][kDepth + uint(PAD)];
shared float bTile[kDepth][kTile + uint(PAD)];

void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tid = ty * kTile + tx;
  uint col0 = gl_WorkGroupID.x * kTile, row0 = gl_WorkGroupID.y * kTile;
  uint col = col0 + tx;
  float sum[WPT];
  for (uint r = 0u; r < uint(WPT); ++r)
    sum[r] = 0.0;
  for (uint t = 0u; t < pc.K; t += kDepth) {
    for (uint i = tid; i < kTile * kDepth; i += kThreads) {
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
      for (uint u = 0u; u < kUnroll; ++u) {
        float bv = bTile[k0 + u][tx];
        for (uint r = 0u; r < uint(WPT); ++r)
          sum[r] += aTile[ty + r * kRows][k0 + u] * bv;
      }
    barrier();
    if (pc.K - t <= kDepth)
      break; // before t += kDepth could wrap
  }
  for (uint r = 0u; r < uint(WPT); ++r) {
    uint row = row0 + ty + r * kRows;
    if (row < pc.M && col < pc.N)
      c[row * pc.N + col] = sum[r];
  }
}

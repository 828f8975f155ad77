// Tiled matrix multiply: C = A * B with row-major A (M x K), B (K x N) and
// C (M x N), f32 accumulation, through shared-memory tiles of A (TILE x
// TILE_K) and B (TILE_K x TILE).
//
// ABI (kernel.toml): same as matmul_naive: bindings a, b (f32, readonly), c
// (f32, writeonly); constants M, N, K (u32). Each workgroup computes one TILE
// x TILE tile of C with TILE x (TILE / WPT) threads, each thread WPT rows of
// its column (rows ty, ty + TILE / WPT, ...); the dispatch runs ceil(N /
// TILE) x ceil(M / TILE) workgroups (kernel.toml's workload_per_workgroup).
// Each element of A and B is read from global memory TILE times fewer than
// in the naive kernel. Out-of-range tile elements load as 0, so any M, N, K
// works; every thread reaches every barrier.
//
// Tuned by `kernel-bench tune` (kernel.toml [tune]; the chosen values come
// from tuned.toml as defines):
//   TILE    the edge of C's tile per workgroup (default 16),
//   WPT     the rows of C each thread computes (divides TILE; default 1),
//   TILE_K  the K depth of the shared tiles (a power of two; default 16),
//   UNROLL  the unroll factor of the inner product loop (divides TILE_K),
//   PAD     extra columns per shared row (0 or 1: bank conflicts).
// TILE and WPT change the workgroup and its count: kernel.toml derives both
// from them, and the program's @matmul dispatch runs this kernel with them.
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

constexpr unsigned kTile = TILE;
constexpr unsigned kRows = TILE / WPT; // threads along y
constexpr unsigned kThreads = kTile * kRows;
constexpr unsigned kDepth = TILE_K;
constexpr unsigned kUnroll = UNROLL;
static_assert(kTile % WPT == 0, "WPT must divide TILE");
static_assert(kDepth % kUnroll == 0, "UNROLL must divide TILE_K");

extern "C" __global__ void __launch_bounds__(kThreads)
    matmul_tiled(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ c, unsigned M, unsigned N, unsigned K) {
  __shared__ float aTile[kTile][kDepth + PAD];
  __shared__ float bTile[kDepth][kTile + PAD];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned tid = ty * kTile + tx;
  const unsigned col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;
  const unsigned col = col0 + tx;
  float sum[WPT];
#pragma unroll
  for (unsigned r = 0; r < WPT; ++r)
    sum[r] = 0.0f;
  for (unsigned t = 0; t < K; t += kDepth) {
    for (unsigned i = tid; i < kTile * kDepth; i += kThreads) {
      const unsigned ar = i / kDepth, ac = i % kDepth;
      aTile[ar][ac] = row0 + ar < M && t + ac < K
                          ? a[static_cast<size_t>(row0 + ar) * K + t + ac]
                          : 0.0f;
      const unsigned br = i / kTile, bc = i % kTile;
      bTile[br][bc] = t + br < K && col0 + bc < N
                          ? b[static_cast<size_t>(t + br) * N + col0 + bc]
                          : 0.0f;
    }
    __syncthreads();
#pragma unroll 1
    for (unsigned k0 = 0; k0 < kDepth; k0 += kUnroll) {
#pragma unroll
      for (unsigned u = 0; u < kUnroll; ++u) {
        const float bv = bTile[k0 + u][tx];
#pragma unroll
        for (unsigned r = 0; r < WPT; ++r)
          sum[r] += aTile[ty + r * kRows][k0 + u] * bv;
      }
    }
    __syncthreads();
    if (K - t <= kDepth)
      break; // before t += kDepth could wrap
  }
#pragma unroll
  for (unsigned r = 0; r < WPT; ++r) {
    const unsigned row = row0 + ty + r * kRows;
    if (row < M && col < N)
      c[static_cast<size_t>(row) * N + col] = sum[r];
  }
}

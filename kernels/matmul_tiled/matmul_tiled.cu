// Tiled matrix multiply: C = A * B with row-major A (M x K), B (K x N) and
// C (M x N), f32 accumulation, through shared-memory tiles of A (16 x TILE_K)
// and B (TILE_K x 16).
//
// ABI (kernel.toml): same as matmul_naive: bindings a, b (f32, readonly), c
// (f32, writeonly); constants M, N, K (u32). Workgroup 16x16x1, one output
// element per thread; dispatch ceil(N / 16) x ceil(M / 16) workgroups. Each
// element of A and B is read from global memory 16 times fewer than in the
// naive kernel. Out-of-range tile elements load as 0, so any M, N, K works;
// every thread reaches every barrier.
//
// Tuned by `kernel-bench tune` (kernel.toml [tune]; the chosen values come
// from tuned.toml as defines), none of which changes the workgroup or the
// dispatch, so the tuned kernel still substitutes the program's @matmul:
//   TILE_K  the K depth of the shared tiles (a power of two; default 16),
//   UNROLL  the unroll factor of the inner product loop (divides TILE_K),
//   PAD     extra columns per shared row (0 or 1: bank conflicts).
#ifndef TILE_K
#define TILE_K 16
#endif
#ifndef UNROLL
#define UNROLL TILE_K
#endif
#ifndef PAD
#define PAD 0
#endif

constexpr unsigned kTile = 16;
constexpr unsigned kDepth = TILE_K;
constexpr unsigned kUnroll = UNROLL;
static_assert(kDepth % kUnroll == 0, "UNROLL must divide TILE_K");

extern "C" __global__ void __launch_bounds__(kTile *kTile)
    matmul_tiled(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ c, unsigned M, unsigned N, unsigned K) {
  __shared__ float aTile[kTile][kDepth + PAD];
  __shared__ float bTile[kDepth][kTile + PAD];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned tid = ty * kTile + tx;
  const unsigned col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;
  const unsigned col = col0 + tx, row = row0 + ty;
  float sum = 0.0f;
  for (unsigned t = 0; t < K; t += kDepth) {
    for (unsigned i = tid; i < kTile * kDepth; i += kTile * kTile) {
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
      for (unsigned u = 0; u < kUnroll; ++u)
        sum += aTile[ty][k0 + u] * bTile[k0 + u][tx];
    }
    __syncthreads();
    if (K - t <= kDepth)
      break; // before t += kDepth could wrap
  }
  if (row < M && col < N)
    c[static_cast<size_t>(row) * N + col] = sum;
}

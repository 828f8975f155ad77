// Tiled matrix multiply: C = A * B with row-major A (M x K), B (K x N) and
// C (M x N), f32 accumulation, through 16x16 shared-memory tiles of A and B.
//
// ABI (kernel.toml): same as matmul_naive: bindings a, b (f32, readonly), c
// (f32, writeonly); constants M, N, K (u32). Workgroup 16x16x1, one output
// element per thread; dispatch ceil(N / 16) x ceil(M / 16) workgroups. Each
// element of A and B is read from global memory K / 16 times fewer than in the
// naive kernel. Out-of-range tile elements load as 0, so any M, N, K works;
// every thread reaches every barrier.
constexpr unsigned kTile = 16;

extern "C" __global__ void __launch_bounds__(kTile *kTile)
    matmul_tiled(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ c, unsigned M, unsigned N, unsigned K) {
  __shared__ float aTile[kTile][kTile];
  __shared__ float bTile[kTile][kTile];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned col = blockIdx.x * kTile + tx;
  const unsigned row = blockIdx.y * kTile + ty;
  float sum = 0.0f;
  for (unsigned t = 0; t < K; t += kTile) {
    const unsigned aCol = t + tx, bRow = t + ty;
    aTile[ty][tx] =
        row < M && aCol < K ? a[static_cast<size_t>(row) * K + aCol] : 0.0f;
    bTile[ty][tx] =
        bRow < K && col < N ? b[static_cast<size_t>(bRow) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (unsigned k = 0; k < kTile; ++k)
      sum += aTile[ty][k] * bTile[k][tx];
    __syncthreads();
    if (K - t <= kTile)
      break; // before t += kTile could wrap
  }
  if (row < M && col < N)
    c[static_cast<size_t>(row) * N + col] = sum;
}

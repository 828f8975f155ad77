// Naive matrix multiply: C = A * B with row-major A (M x K), B (K x N) and
// C (M x N), f32 accumulation. The baseline that matmul_tiled is compared to.
//
// ABI (kernel.toml): bindings a (f32, readonly), b (f32, readonly), c (f32,
// writeonly); constants M, N, K (u32). Workgroup 16x16x1, one output element
// per thread; dispatch ceil(N / 16) x ceil(M / 16) workgroups.
extern "C" __global__ void __launch_bounds__(256)
    matmul_naive(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ c, unsigned M, unsigned N, unsigned K) {
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  const float *aRow = a + static_cast<size_t>(row) * K;
  float sum = 0.0f;
  for (unsigned k = 0; k < K; ++k)
    sum += aRow[k] * b[static_cast<size_t>(k) * N + col];
  c[static_cast<size_t>(row) * N + col] = sum;
}

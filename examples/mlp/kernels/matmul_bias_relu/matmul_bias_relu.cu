// relu(x * w1 + b1) for `main_dispatch_0` of examples/mlp/model.mlir: row-major
// x (M x K), w1 (K x N), bias b1 (N), result (M x N), f32 accumulation through
// 16x16 shared-memory tiles of x and w1 (as kernels/matmul_tiled), with the
// bias and the ReLU applied in registers before the one store.
//
// ABI (kernel.toml, written by `kernel-bench new-kernel`): bindings arg0 = x,
// arg1 = w1, arg2 = b1 (readonly), result (writeonly); no constants — the
// model's shapes are static, so M, N and K come from kernel.toml `defines`.
// Workgroup 16x16x1, one output element per thread; the program dispatches
// the generated kernel's grid, ceil(N / 16) x ceil(M / 16) (x = column).
// Out-of-range tile elements load as 0 and every thread reaches every
// barrier, so sizes that are not multiples of 16 work too.
#if !defined(M) || !defined(N) || !defined(K)
#error "M, N and K come from kernel.toml `defines`"
#endif

constexpr unsigned kTile = 16;

extern "C" __global__ void __launch_bounds__(kTile *kTile)
    main_dispatch_0(const float *__restrict__ x, const float *__restrict__ w1,
                    const float *__restrict__ b1, float *__restrict__ result) {
  __shared__ float xTile[kTile][kTile];
  __shared__ float wTile[kTile][kTile];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned col = blockIdx.x * kTile + tx;
  const unsigned row = blockIdx.y * kTile + ty;
  float sum = 0.0f;
  for (unsigned t = 0; t < K; t += kTile) {
    const unsigned xCol = t + tx, wRow = t + ty;
    xTile[ty][tx] =
        row < M && xCol < K ? x[static_cast<size_t>(row) * K + xCol] : 0.0f;
    wTile[ty][tx] =
        wRow < K && col < N ? w1[static_cast<size_t>(wRow) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (unsigned k = 0; k < kTile; ++k)
      sum += xTile[ty][k] * wTile[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    result[static_cast<size_t>(row) * N + col] = fmaxf(sum + b1[col], 0.0f);
}

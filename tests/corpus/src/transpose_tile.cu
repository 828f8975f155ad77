// Tiled transpose, templated on the tile shape and explicitly instantiated
// for 32x8 (the workgroup is TILE x ROWS threads): a padded static shared
// tile, as the classic CUDA sample. input rows x cols, output cols x rows.
template <int TILE, int ROWS>
__global__ void __launch_bounds__(TILE *ROWS)
    transpose_tile(const float *__restrict__ input, float *__restrict__ output,
                   unsigned rows, unsigned cols) {
  __shared__ float tile[TILE][TILE + 1];
  const unsigned x = blockIdx.x * TILE + threadIdx.x;
  const unsigned y0 = blockIdx.y * TILE + threadIdx.y;
  for (unsigned dy = 0; dy < TILE; dy += ROWS)
    if (x < cols && y0 + dy < rows)
      tile[threadIdx.y + dy][threadIdx.x] =
          input[static_cast<size_t>(y0 + dy) * cols + x];
  __syncthreads();
  const unsigned ox = blockIdx.y * TILE + threadIdx.x;
  const unsigned oy0 = blockIdx.x * TILE + threadIdx.y;
  for (unsigned dy = 0; dy < TILE; dy += ROWS)
    if (ox < rows && oy0 + dy < cols)
      output[static_cast<size_t>(oy0 + dy) * rows + ox] =
          tile[threadIdx.x][threadIdx.y + dy];
}

template __global__ void transpose_tile<32, 8>(const float *, float *,
                                               unsigned, unsigned);

// Tiled transpose: output[c][r] = input[r][c] for a row-major rows x cols
// input (the output is cols x rows).
//
// ABI (kernel.toml): bindings input (f32, readonly), output (f32, writeonly);
// constants rows (u32), cols (u32). Workgroup 32x8x1; dispatch
// ceil(cols / 32) x ceil(rows / 32) workgroups, one 32x32 tile each (every
// thread moves 4 elements). Reads and writes are both coalesced through a
// shared tile; its rows are padded to 33 floats so that the column-wise reads
// hit 32 different banks.
constexpr unsigned kTile = 32;
constexpr unsigned kRowsPerPass = 8;

extern "C" __global__ void __launch_bounds__(kTile *kRowsPerPass)
    transpose(const float *__restrict__ input, float *__restrict__ output,
              unsigned rows, unsigned cols) {
  __shared__ float tile[kTile][kTile + 1];
  unsigned x = blockIdx.x * kTile + threadIdx.x; // input column
  unsigned y = blockIdx.y * kTile + threadIdx.y; // input row
  for (unsigned k = 0; k < kTile; k += kRowsPerPass)
    if (x < cols && y + k < rows)
      tile[threadIdx.y + k][threadIdx.x] =
          input[static_cast<size_t>(y + k) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x; // output column = input row
  y = blockIdx.x * kTile + threadIdx.y; // output row = input column
  for (unsigned k = 0; k < kTile; k += kRowsPerPass)
    if (x < rows && y + k < cols)
      output[static_cast<size_t>(y + k) * rows + x] =
          tile[threadIdx.x][threadIdx.y + k];
}

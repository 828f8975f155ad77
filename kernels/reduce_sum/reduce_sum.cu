// Sum reduction, first stage: partials[w] = sum of the elements workgroup w
// visits, for every workgroup w of the dispatch.
//
// ABI (kernel.toml): bindings input (f32, readonly), partials (f32,
// writeonly; one float per workgroup); constants n (u32). Workgroup 256x1x1.
// Each thread sums a grid-stride slice of input, then the workgroup reduces
// its 256 sums in shared memory. The full sum is the sum of the partials: run
// this kernel again on them with one workgroup, or add them on the host.
// With G workgroups, partials must hold G floats.
constexpr unsigned kBlock = 256;

extern "C" __global__ void __launch_bounds__(kBlock)
    reduce_sum(const float *__restrict__ input, float *__restrict__ partials,
               unsigned n) {
  __shared__ float sums[kBlock];
  const unsigned stride = gridDim.x * kBlock;
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * kBlock + threadIdx.x; i < n; i += stride) {
    sum += input[i];
    if (stride >= n - i)
      break; // before i += stride could wrap
  }
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = sums[0];
}

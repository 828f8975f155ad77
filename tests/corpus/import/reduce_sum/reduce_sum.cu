// A block-wise sum in the style of the classic CUDA reduction samples (the
// "reduce6" shape): templated on the block size and on whether n needs no
// bounds check for the second load, __launch_bounds__(blockSize), each thread
// first adds two elements per grid-stride step, then a static shared-memory
// tree halves the block down to one warp, which finishes with
// __shfl_down_sync. One partial sum per block in g_odata[blockIdx.x].
// Not extern "C": the import corpus needs a mangled template entry, so only
// reduce<256, true> is instantiated below (one .entry,
// _Z6reduceILj256ELb1EEvPKfPfj). reduce_sum_ref.cpp is its host reference.
//
// Launch (what the reference assumes): blockSize threads, n a multiple of
// 2 * blockSize and n / (2 * blockSize) blocks. Then the grid stride
// (2 * blockSize * gridDim.x) equals n, the loop runs once, and block b sums
// g_idata[2*blockSize*b .. 2*blockSize*(b+1)). Fewer blocks still give a
// correct total over the partials, but each block then sums a strided set.

template <unsigned int blockSize, bool nIsPow2>
__global__ void __launch_bounds__(blockSize)
    reduce(const float *g_idata, float *g_odata, unsigned int n) {
  static_assert(blockSize >= 64 && (blockSize & (blockSize - 1)) == 0,
                "blockSize: a power of two, at least two warps");
  __shared__ float sdata[blockSize];

  const unsigned int tid = threadIdx.x;
  const unsigned int gridStep = 2u * blockSize * gridDim.x;
  float sum = 0.0f;

  // Each step covers two blockSize-wide slices: [i] and [i + blockSize].
  // nIsPow2 promises n is a multiple of 2 * blockSize, so the second load
  // needs no check.
  for (unsigned int i = blockIdx.x * 2u * blockSize + tid; i < n;
       i += gridStep) {
    sum += g_idata[i];
    if (nIsPow2 || i + blockSize < n)
      sum += g_idata[i + blockSize];
    if (gridStep >= n - i) // the next step would pass n (or wrap)
      break;
  }
  sdata[tid] = sum;
  __syncthreads();

  // Tree in shared memory down to 64 partial sums.
  if (blockSize >= 1024 && tid < 512)
    sdata[tid] = sum = sum + sdata[tid + 512];
  if (blockSize >= 1024)
    __syncthreads();
  if (blockSize >= 512 && tid < 256)
    sdata[tid] = sum = sum + sdata[tid + 256];
  if (blockSize >= 512)
    __syncthreads();
  if (blockSize >= 256 && tid < 128)
    sdata[tid] = sum = sum + sdata[tid + 128];
  if (blockSize >= 256)
    __syncthreads();
  if (blockSize >= 128 && tid < 64)
    sdata[tid] = sum = sum + sdata[tid + 64];
  if (blockSize >= 128)
    __syncthreads();

  // The first warp folds the last 64 into 32, then shuffles down to lane 0.
  if (tid < 32) {
    sum += sdata[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sum;
}

// The one instance the corpus builds: 256 threads, n a multiple of 512.
template __global__ void reduce<256, true>(const float *, float *,
                                           unsigned int);

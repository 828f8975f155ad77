// One partial sum per block with cooperative groups: a warp reduction
// (cg::reduce over a 32-thread tile), the warp sums in *dynamic* shared
// memory (extern __shared__, blockDim.x / 32 floats, launched with 32
// bytes), then the first warp reduces those. Grid-stride input, as the
// program's @block_sum.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __launch_bounds__(256)
    block_sum(const float *__restrict__ input, float *__restrict__ partials,
              unsigned n) {
  extern __shared__ float warpSums[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

  float v = 0.0f;
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    v += input[i];
    if (stride >= n - i)
      break;
  }
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0)
    warpSums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < warp.meta_group_size()
            ? warpSums[warp.thread_rank()]
            : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0)
      partials[blockIdx.x] = v;
  }
}

// Vectorized copy: dst[i] = src[i] for i < n.
//
// ABI (kernel.toml): bindings src (f32, readonly), dst (f32, writeonly);
// constants n (u32). Workgroup 256x1x1. Each thread moves float4s with a
// grid-stride loop, so any workgroup count is correct; ceil(n / 1024)
// workgroups give one float4 per thread. The n % 4 trailing elements are
// copied one by one. Bindings must be 16-byte aligned (every HAL buffer is).
extern "C" __global__ void __launch_bounds__(256)
    copy(const float *__restrict__ src, float *__restrict__ dst, unsigned n) {
  const unsigned stride = gridDim.x * blockDim.x;
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned vecCount = n / 4;
  const float4 *src4 = reinterpret_cast<const float4 *>(src);
  float4 *dst4 = reinterpret_cast<float4 *>(dst);
  // `stride >= vecCount - i` ends the loop before `i += stride` could wrap.
  for (unsigned i = tid; i < vecCount; i += stride) {
    dst4[i] = src4[i];
    if (stride >= vecCount - i)
      break;
  }
  // Scalar tail: the at most 3 elements past the last full float4.
  if (tid < n % 4)
    dst[vecCount * 4 + tid] = src[vecCount * 4 + tid];
}

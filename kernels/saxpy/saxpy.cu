// SAXPY: y[i] = a * x[i] + y[i] for i < n.
//
// ABI (kernel.toml): bindings x (f32, readonly), y (f32, readwrite);
// constants a (f32), n (u32). Workgroup 256x1x1; grid-stride loop, so any
// workgroup count is correct (ceil(n / 256) gives one element per thread).
extern "C" __global__ void __launch_bounds__(256)
    saxpy(const float *__restrict__ x, float *__restrict__ y, float a,
          unsigned n) {
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = a * x[i] + y[i];
    if (stride >= n - i)
      break; // before i += stride could wrap
  }
}

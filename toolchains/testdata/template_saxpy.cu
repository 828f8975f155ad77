// saxpy as a template on its block size, never instantiated by the file
// itself (no host code): the build instantiates the one `entry` names.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    saxpyT(const float *__restrict__ x, float *__restrict__ y, float a,
           unsigned n) {
  static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of a warp");
  unsigned i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

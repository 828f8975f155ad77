// Elementwise activations, several kernels in one file as activation
// libraries ship them. extern "C" entries; the shared helpers come from a
// header. Each kernel's ABI is in its own kernel.toml (relu/, square/,
// leaky_relu/): bindings x (f32, readonly), y (f32, writeonly), then the
// constants; workgroup 256x1x1, grid-stride loops.
#include "corpus_common.cuh"

extern "C" __global__ void __launch_bounds__(256)
    relu(const float *__restrict__ x, float *__restrict__ y, unsigned n) {
  const corpus::GridStride g = corpus::gridStride();
  for (unsigned i = g.start; i < n; i += g.stride) {
    y[i] = corpus::relu(x[i]);
    if (corpus::lastStep(i, g.stride, n))
      break;
  }
}

extern "C" __global__ void __launch_bounds__(256)
    square(const float *__restrict__ x, float *__restrict__ y, unsigned n) {
  const corpus::GridStride g = corpus::gridStride();
  for (unsigned i = g.start; i < n; i += g.stride) {
    y[i] = x[i] * x[i];
    if (corpus::lastStep(i, g.stride, n))
      break;
  }
}

extern "C" __global__ void __launch_bounds__(256)
    leaky_relu(const float *__restrict__ x, float *__restrict__ y, float alpha,
               unsigned n) {
  const corpus::GridStride g = corpus::gridStride();
  for (unsigned i = g.start; i < n; i += g.stride) {
    const float v = x[i];
    y[i] = v > 0.0f ? v : alpha * v;
    if (corpus::lastStep(i, g.stride, n))
      break;
  }
}

// Two kernels of one source, as libraries write them: both have saxpy's ABI
// (x f32 readonly, y f32 readwrite; a f32, n u32; 256). Built as two
// kernels, they share one nvcc and one ptxas run.
#include "scale.h"

extern "C" __global__ void __launch_bounds__(256)
    saxpy(const float *__restrict__ x, float *__restrict__ y, float a,
          unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = KB_SCALE * a * x[i] + y[i];
}

extern "C" __global__ void __launch_bounds__(256)
    saxmy(const float *__restrict__ x, float *__restrict__ y, float a,
          unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = KB_SCALE * a * x[i] - y[i];
}

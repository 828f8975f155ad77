// y = a * x + y. ABI: bindings x (f32, readonly), y (f32, readwrite);
// constants a (f32), n (u32); workgroup size 256.
#include "scale.h"

extern "C" __global__ void __launch_bounds__(256)
    saxpy(const float *__restrict__ x, float *__restrict__ y, float a,
          unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = KB_SCALE * a * x[i] + y[i];
}

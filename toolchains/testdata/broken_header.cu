#include "broken.h"

extern "C" __global__ void saxpy(const float *x, float *y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = broken_scale() * a * x[i] + y[i];
}

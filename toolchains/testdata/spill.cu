// A kernel whose per-thread array is indexed at run time: with a register
// cap it cannot live in registers, so ptxas spills.
extern "C" __global__ void spill(const float *x, float *y, unsigned n) {
  float acc[64];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < 64; ++j)
    acc[j] = x[(i + j * 7) % n];
  float s = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j)
    s += acc[j] * acc[63 - j] + acc[(j * 5) & 63];
  y[i % n] = s;
}

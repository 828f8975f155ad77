// Fixture: `n` is 64-bit, so the parameter list does not fit the export.
extern "C" __global__ void __launch_bounds__(256)
    saxpy(const float *x, float *y, float a, unsigned long long n) {
  unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

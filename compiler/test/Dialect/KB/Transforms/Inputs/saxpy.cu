// Fixture: a saxpy that fits the ABI of the test executables
// (x: f32 readonly, y: f32 readwrite, a: f32, n: u32, workgroup 256).
extern "C" __global__ void __launch_bounds__(256)
    saxpy(const float *x, float *y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

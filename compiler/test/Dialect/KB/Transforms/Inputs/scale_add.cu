// saxpy under a name and a parameter order of its own, as code written
// outside the workbench declares it: substitutes @saxpy with
// `entry=scale_add;parameter_order=3.2.1.0`.
extern "C" __global__ void __launch_bounds__(256)
    scale_add(unsigned n, float a, float *y, const float *x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

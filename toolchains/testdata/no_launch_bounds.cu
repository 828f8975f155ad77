// saxpy without __launch_bounds__: the PTX has neither .reqntid nor
// .maxntid, so the workgroup size cannot be checked against it.
extern "C" __global__ void saxpy(const float *__restrict__ x,
                                 float *__restrict__ y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
